//===- SyncMessages.cpp - synchronisation between a region's hosts ---------===//
#include "omp/SyncMessages.h"

#include <algorithm>
#include <iterator>

#include "util/LittleEndian.h"

namespace synergy::omp {
namespace {

// The field at `in`, which then moves past it.
uint64_t get(const uint8_t*& in, int bytes) {
  uint64_t value = util::readLittleEndian(in, size_t(bytes));
  in += bytes;
  return value;
}

}  // namespace

bool syncOpReleases(SyncOp op) {
  switch (op) {
    case SyncOp::Join:
    case SyncOp::Barrier:
    case SyncOp::Unlock:
    case SyncOp::Release:
    case SyncOp::OrderedLeave:
    case SyncOp::LibcUnlock:
    case SyncOp::Atomic:
    case SyncOp::PthreadCall:
    case SyncOp::PthreadEnd:
    case SyncOp::FulfillEvent:
      return true;
    default:
      return false;
  }
}

bool syncOpFromNestedThreads(SyncOp op) {
  switch (op) {
    case SyncOp::Lock:
    case SyncOp::NestLock:
    case SyncOp::TestLock:
    case SyncOp::TestNestLock:
    case SyncOp::Unlock:
    case SyncOp::Acquire:
    case SyncOp::Release:
    case SyncOp::LibcLock:
    case SyncOp::LibcUnlock:
    case SyncOp::AllocatorCreate:
    case SyncOp::AllocatorDestroy:
    case SyncOp::AllocatorTraits:
    case SyncOp::PoolReserve:
    case SyncOp::PoolRefund:
    case SyncOp::Atomic:
    case SyncOp::ThreadExit:
    case SyncOp::FulfillEvent:
      return true;
    default:
      return false;
  }
}

std::vector<uint8_t> encodeSyncRequest(const SyncRequest& request) {
  std::vector<uint8_t> out;
  out.reserve(kSyncRequestBytes);
  util::appendLittleEndian(out, uint32_t(request.op), 4);
  util::appendLittleEndian(out, request.threadNum, 4);
  for (uint64_t argument : request.arguments) util::appendLittleEndian(out, argument, 8);
  util::appendLittleEndian(out, request.waiter, 4);
  return out;
}

bool decodeSyncRequest(const uint8_t* data, size_t size, SyncRequest& request,
                       std::string& error) {
  if (size != kSyncRequestBytes) {
    error = "synchronisation request of " + std::to_string(size) + " bytes, not " +
            std::to_string(kSyncRequestBytes);
    return false;
  }
  uint32_t op = uint32_t(get(data, 4));
  if (op < uint32_t(SyncOp::Join) || op > uint32_t(kLastSyncOp) ||
      op == uint32_t(SyncOp::ReductionArrive) ||
      std::find(std::begin(kRetiredSyncOps), std::end(kRetiredSyncOps), op) !=
          std::end(kRetiredSyncOps)) {
    error = "unknown synchronisation operation " + std::to_string(op);
    return false;
  }
  request.op = SyncOp(op);
  request.threadNum = uint32_t(get(data, 4));
  for (uint64_t& argument : request.arguments) argument = get(data, 8);
  request.waiter = uint32_t(get(data, 4));
  if (request.waiter != 0 && !syncOpFromNestedThreads(request.op)) {
    error = "synchronisation operation " + std::to_string(op) + " of waiter " +
            std::to_string(request.waiter) + ", which only its thread itself makes";
    return false;
  }
  return true;
}

std::vector<uint8_t> encodeSyncReply(const SyncReply& reply) {
  std::vector<uint8_t> out;
  out.reserve(kSyncReplyBytes);
  util::appendLittleEndian(out, reply.threadNum, 4);
  util::appendLittleEndian(out, reply.withUpdate ? 1 : 0, 4);
  for (uint64_t result : reply.results) util::appendLittleEndian(out, result, 8);
  util::appendLittleEndian(out, reply.waiter, 4);
  return out;
}

bool decodeSyncReply(const uint8_t* data, size_t size, SyncReply& reply, std::string& error) {
  if (size != kSyncReplyBytes) {
    error = "synchronisation reply of " + std::to_string(size) + " bytes, not " +
            std::to_string(kSyncReplyBytes);
    return false;
  }
  reply.threadNum = uint32_t(get(data, 4));
  uint32_t withUpdate = uint32_t(get(data, 4));
  if (withUpdate > 1) {
    error = "synchronisation reply with update flag " + std::to_string(withUpdate);
    return false;
  }
  reply.withUpdate = withUpdate == 1;
  for (uint64_t& result : reply.results) result = get(data, 8);
  reply.waiter = uint32_t(get(data, 4));
  return true;
}

}  // namespace synergy::omp
