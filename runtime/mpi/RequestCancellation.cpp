//===- RequestCancellation.cpp - MPI_Cancel --------------------------------===//
//
// This file implements MPI_Cancel as MPI-3.1 section 3.8.4 asks: either the
// cancellation succeeds or the operation completes, never both, and a Wait
// on a cancelled request returns whatever other ranks do.
//
//  - A receive still posted is taken back from its rank's Mailbox; one
//    that has matched has completed, and is not cancelled.
//  - A rendezvous send to a rank of this host is cancelled when its
//    sender claims it before a receiver does (claimSend() in World.h); the
//    receiver then drops the message wherever it finds it, so no part of
//    it is received. A send copied into its message (eager, buffered) has
//    completed as it started, and is not cancelled.
//  - A send to a rank on another host has left this host and is not
//    cancelled; its Wait completes as it would have.
//  - A generalized request calls its cancel function; a nonblocking
//    collective may not be cancelled (MPI makes it erroneous).
//
// MPI_Test_cancelled reads the outcome from the status (StatusFields.cpp).
//
//===----------------------------------------------------------------------===//
#include "mpi/GeneralizedRequests.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

void completeCancelled(Request& request) {
  request.cancelled = true;
  request.statusSource = abi::kAnySource;
  request.statusTag = abi::kAnyTag;
  request.statusBytes = 0;
  markComplete(request);
}

void cancelSend(HostCall& call, Request& send) {
  int destination = send.comm->worldRanks[send.peer];
  if (call.world().isRemote(destination)) return;
  if (claimSend(send, kSendCancelled)) completeCancelled(send);
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Cancel(void* instance, u32 slot) {
  HostCall call(instance, "MPI_Cancel");
  int32_t handle;
  if (!call.load(slot, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  Request* request = call.rank.borrowRequest(handle);
  if (!request)
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "invalid request handle " + std::to_string(handle));
  // An inactive persistent request and a completed one have nothing to
  // take back.
  if (request->persistent || isCompleteNow(*request)) {
    if (request->kind == Request::Kind::Generalized) return cancelGeneralized(call, *request);
    return abi::kSuccess;
  }
  switch (request->kind) {
    case Request::Kind::Recv:
      call.world().progress(call.rank.worldRank);
      if (!isCompleteNow(*request) && call.world().withdrawRecv(*request))
        completeCancelled(*request);
      break;
    case Request::Kind::Send:
      cancelSend(call, *request);
      break;
    case Request::Kind::Generalized:
      return cancelGeneralized(call, *request);
    case Request::Kind::Collective:
      return call.fail(request->commHandle, abi::kErrRequest,
                       "a nonblocking collective cannot be cancelled");
    case Request::Kind::Null:
      break;
  }
  return abi::kSuccess;
}

}  // extern "C"
