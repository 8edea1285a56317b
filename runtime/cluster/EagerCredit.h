//===- EagerCredit.h - bounds on the eager data between a job's parts -----===//
//
// The accounting behind mpi/RemoteRanks.h's eager credit, for one part of
// a job spread over hosts (MpiPeerLink.h), kept apart from the link so that
// its checks of hostile numbers can be tested alone.
//
// As a receiver, the part grants every other part the same number of
// bytes, holds the eager data each sends within that grant (a message
// beyond it is a sender that ignores its credit, whose connection goes),
// and gives bytes back once its ranks have received them, gathered into
// batches so that small messages do not cost a frame each.
//
// As a sender, it keeps what each other part granted it and what is left
// of that: a rank takes credit for a message, or, when too little is left,
// sends it by rendezvous. A second grant, or a return of more bytes than
// are out, is refused.
//
// Every count is an atomic of its own: ranks take and release on their
// threads; the thread reading a part's connection (the link's I/O thread,
// or a waiting rank) holds, grants and adds returns for that part, one
// such thread at a time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace synergy::cluster {

class EagerCredit {
 public:
  // For a job of `parts` parts; this one grants each other part `grant`
  // bytes (1 to transport::kMaxMpiEagerGrantBytes).
  EagerCredit(size_t parts, int64_t grant);

  int64_t grant() const { return grant_; }

  // Receiving side. Counts an eager message of `bytes` (its
  // eagerCreditCharge) from `part` as held; false, with a one-line
  // `reason`, when that would exceed the grant. By the reader of
  // `part`'s connection.
  bool hold(uint32_t part, int64_t bytes, std::string& reason);
  // A rank received `bytes` held from `part`: the bytes to give back to it
  // now in one MpiEagerCredit, or 0 while the batch is still gathering.
  int64_t release(uint32_t part, int64_t bytes);
  // As release(), for a frame that goes to `part` anyway (a synchronous
  // send's acknowledgement): all that is gathered for it, whatever the
  // batch, which may be 0.
  int64_t releaseAll(uint32_t part, int64_t bytes);

  // Sending side. A MpiEagerGrant of `bytes` from `part`; false, with a
  // `reason`, for a second grant or one out of range. By the reader of
  // `part`'s connection.
  bool granted(uint32_t part, uint64_t bytes, std::string& reason);
  bool hasGrantFrom(uint32_t part) const {
    return grantsFrom_[part].load(std::memory_order_acquire) != 0;
  }
  // Takes `bytes` of what `part` granted; false, taking nothing, when less
  // is left.
  bool take(uint32_t part, int64_t bytes);
  // How often take() found too little (the messages that went by
  // rendezvous instead), for SYNERGY_MPI_STATS.
  uint64_t shortfalls() const { return shortfalls_.load(std::memory_order_relaxed); }
  // A MpiEagerCredit of `bytes` from `part`; false, with a `reason`, when
  // no grant came first or more bytes come back than are out. By the
  // reader of `part`'s connection.
  bool returned(uint32_t part, uint64_t bytes, std::string& reason);

 private:
  int64_t grant_;
  int64_t returnBatch_;
  // By part. Received: held, and released but not yet given back.
  std::unique_ptr<std::atomic<int64_t>[]> held_;
  std::unique_ptr<std::atomic<int64_t>[]> unreturned_;
  // Sent: granted (0 until the grant), and left of it.
  std::unique_ptr<std::atomic<int64_t>[]> grantsFrom_;
  std::unique_ptr<std::atomic<int64_t>[]> left_;
  std::atomic<uint64_t> shortfalls_{0};
};

}  // namespace synergy::cluster
