//===- EagerCredit.cpp - bounds on the eager data between a job's parts ---===//
#include "cluster/EagerCredit.h"

#include <algorithm>

#include "transport/FrameTypes.h"

namespace synergy::cluster {

namespace {

// Credit goes back in batches of an eighth of the grant, up to this: a
// sender then lacks at most that much of its credit while its receiver
// gathers (1 MiB of the default 16 MiB), and a stream of 1 KiB messages
// costs one frame in 1024. Synchronous sends' acknowledgements carry what
// has gathered (releaseAll()), so a host calling MPI_Reduce of 512 KiB in
// a loop, whose other segments charge 384 KiB a call, gets its credit back
// with each acknowledgement and never in a frame of its own (with batches
// of 256 KiB it got one a call).
constexpr int64_t kMaxReturnBatchBytes = 1 << 20;

}  // namespace

EagerCredit::EagerCredit(size_t parts, int64_t grant)
    : grant_(grant),
      returnBatch_(std::max<int64_t>(1, std::min(grant / 8, kMaxReturnBatchBytes))),
      held_(std::make_unique<std::atomic<int64_t>[]>(parts)),
      unreturned_(std::make_unique<std::atomic<int64_t>[]>(parts)),
      grantsFrom_(std::make_unique<std::atomic<int64_t>[]>(parts)),
      left_(std::make_unique<std::atomic<int64_t>[]>(parts)) {}

bool EagerCredit::hold(uint32_t part, int64_t bytes, std::string& reason) {
  if (bytes == 0) return true;
  int64_t before = held_[part].fetch_add(bytes, std::memory_order_relaxed);
  if (bytes <= grant_ - before) return true;
  held_[part].fetch_sub(bytes, std::memory_order_relaxed);
  reason = "eager message of " + std::to_string(bytes) + " bytes beyond the eager credit of " +
           std::to_string(grant_) + " bytes (" + std::to_string(before) + " held)";
  return false;
}

int64_t EagerCredit::release(uint32_t part, int64_t bytes) {
  held_[part].fetch_sub(bytes, std::memory_order_relaxed);
  int64_t gathered = unreturned_[part].fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (gathered < returnBatch_) return 0;
  // Another rank may have taken the batch in between: then 0.
  return unreturned_[part].exchange(0, std::memory_order_relaxed);
}

int64_t EagerCredit::releaseAll(uint32_t part, int64_t bytes) {
  held_[part].fetch_sub(bytes, std::memory_order_relaxed);
  // What another rank adds in between goes with its own release.
  return unreturned_[part].exchange(0, std::memory_order_relaxed) + bytes;
}

bool EagerCredit::granted(uint32_t part, uint64_t bytes, std::string& reason) {
  int64_t before = grantsFrom_[part].load(std::memory_order_relaxed);
  if (before != 0 || bytes == 0 || bytes > transport::kMaxMpiEagerGrantBytes) {
    reason = "MpiEagerGrant of " + std::to_string(bytes) + " bytes" +
             (before ? " after a grant of " + std::to_string(before) : std::string()) +
             " (one grant, of 1 to " + std::to_string(transport::kMaxMpiEagerGrantBytes) + ")";
    return false;
  }
  left_[part].fetch_add(int64_t(bytes), std::memory_order_relaxed);
  grantsFrom_[part].store(int64_t(bytes), std::memory_order_release);
  return true;
}

bool EagerCredit::take(uint32_t part, int64_t bytes) {
  std::atomic<int64_t>& left = left_[part];
  int64_t now = left.load(std::memory_order_relaxed);
  do {
    if (now < bytes) {
      shortfalls_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  } while (!left.compare_exchange_weak(now, now - bytes, std::memory_order_relaxed));
  return true;
}

bool EagerCredit::returned(uint32_t part, uint64_t bytes, std::string& reason) {
  // Only the reader of this part's connection adds to left_, and ranks
  // only take from it, so what is out can only have grown by the time the
  // bytes are added.
  uint64_t granted = uint64_t(grantsFrom_[part].load(std::memory_order_relaxed));
  uint64_t out = granted - uint64_t(left_[part].load(std::memory_order_relaxed));
  if (bytes == 0 || bytes > out) {
    reason = "MpiEagerCredit returning " + std::to_string(bytes) + " bytes where " +
             std::to_string(out) + " of a grant of " + std::to_string(granted) + " are out";
    return false;
  }
  left_[part].fetch_add(int64_t(bytes), std::memory_order_relaxed);
  return true;
}

}  // namespace synergy::cluster
