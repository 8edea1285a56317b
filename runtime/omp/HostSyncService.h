//===- HostSyncService.h - the main host's side of a spread region's synchronisation
//
// While a parallel region's threads span hosts (omp/RemoteThreads.h), the
// main host serves what its thread hosts ask (omp/SyncMessages.h,
// omp/ThreadHostSync.h for the other side). Per thread host one service
// thread takes that host's messages in order:
//
//  - a copy update of the host's writes goes into the host's stand-in
//    replica, which pulls first (its baseline is then the main copy, so a
//    byte the host set back to an older value still merges) and pushes
//    once the update is complete: the host's writes reach the main copy as
//    a local thread's would;
//  - a request the team's counters answer at once (single, copyprivate,
//    a dynamic or guided loop chunk) is answered there, as is one of the
//    process's allocator table (omp/Allocators.h);
//  - an atomic access is done here, on the stand-in replica under the main
//    copy's exclusive lock, and answered with the old value;
//  - a request that may wait (barrier, lock, critical, the atomics' and
//    libc's locks, ordered) goes to the proxy of the thread that made it,
//    a host thread per remote thread and waiter (SyncMessages.h: a nested
//    team's threads on a thread host ask as their spread thread, each as
//    its own waiter, and get a proxy each, made at their first such
//    request) that waits as that thread would, on
//    the team's barrier (one party per thread host), the process's keyed
//    locks, the main copy's exclusive lock, the loop's ordered turn;
//  - a reduction list is kept for the reduction leader and the host's
//    party arrives at the team barrier.
//
// An answer that acquires carries the bytes of the main copy the host's
// copy lacks (its CopyLink's view says which, on the pages pushed since
// the host's last answer: the main copy's page versions tell). A malformed or out-of-order
// message, or a host that leaves, ends the job with a one-line error: its
// threads' part of the region is lost and the team would wait forever.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "omp/RemoteThreads.h"
#include "omp/SyncMessages.h"
#include "snapshot/CopyLink.h"

namespace synergy::snapshot {
class DsmReplica;
}

namespace synergy::omp {

class AllocatorTable;
class KeyedLocks;
class Team;

// The main host's link to one thread host's copy; both directions of a
// region's traffic use it, so the service and the proxies share it.
struct HostCopy {
  snapshot::CopyLink link;
  std::mutex lock;
  // Signalled when an update from the host is complete and merged. An
  // answer that acquires waits for that: while an update arrives in chunks,
  // the link's view already holds the host's bytes that the main copy does
  // not, and shipping the difference would overwrite them on the host with
  // older ones.
  std::condition_variable updateMerged;

  // Takes one chunk of a copy update from the host into `standIn`, its
  // stand-in replica (pulled first when the last update was complete, and
  // grown as the update says: the host's threads grew the memory under
  // libc's lock, which the main host holds for them); once the update is
  // complete, pushes the stand-in into the main copy, sets `released` and
  // wakes the answers waiting for it. An update while `released` is set
  // (the operation it releases was due) or one that does not check out is
  // refused: false with `error`.
  bool mergeUpdate(const std::vector<uint8_t>& payload, snapshot::DsmReplica& standIn,
                   bool& released, std::string& error);
};

// A thread host's atomic access (SyncOp::Atomic), done on the main copy
// through `standIn`, the host's stand-in replica, which holds the host's
// writes merged: under the main copy's `exclusive` lock it takes in
// everyone else's, does the access and pushes it, as a local thread's
// replica does around an atomic. Sets `old` to the cell's old value; an
// access that is malformed, outside the memory or misaligned, or a memory
// that cannot grow, is false with `error`. Used by HostSyncService (OpenMP
// teams) and RemotePthreads.
bool performStandInAtomic(const SyncRequest& request, snapshot::DsmReplica& standIn,
                          std::recursive_mutex& exclusive, uint64_t& old, std::string& error);

class HostSyncService {
 public:
  // Serves `team`'s thread hosts: host h runs the threads placement[h], whose
  // keyed-lock owner ids are globalIds (by thread number).
  HostSyncService(ThreadHostLink& link, Team& team, KeyedLocks& locks,
                  std::recursive_mutex& libcLock, AllocatorTable& allocators,
                  std::vector<HostCopy*> copies,
                  std::vector<std::vector<int>> placement, std::map<int, int> globalIds);
  ~HostSyncService();

  // The reduction list of `host`'s next reduction, once it arrived.
  uint32_t takeReductionList(uint32_t host);
  // Waits until every thread host has finished the region.
  void finish();

 private:
  struct Proxy {
    uint32_t host = 0;
    int threadNum = 0;
    uint32_t waiter = 0;
    std::deque<SyncRequest> requests;
    bool closed = false;
    int libcDepth = 0;
    std::thread thread;
  };

  void serve(uint32_t host);
  void handle(uint32_t host, const SyncRequest& request);
  // The allocator table's requests; false when `request` is none of them.
  bool handleAllocatorRequest(uint32_t host, const SyncRequest& request);
  // An atomic access of `host`'s threads, on the main copy through the
  // host's stand-in replica; answered with the old value and acquiring.
  void performAtomic(uint32_t host, const SyncRequest& request);
  void runProxy(Proxy& proxy);
  void serveBlocking(Proxy& proxy, const SyncRequest& request);
  // The host's party arrives at the team barrier and waits for it to open;
  // as the last to arrive, with `completesTasks` (a barrier, not a
  // reduction), it first waits for the main host's tasks.
  void arriveAtBarrier(bool completesTasks);
  void answer(uint32_t host, const SyncRequest& request, uint64_t first, uint64_t second,
              bool acquires);
  // The proxy of `request`'s thread and waiter, made for a waiter's first
  // request; under lock_.
  Proxy& proxyOf(uint32_t host, const SyncRequest& request);
  [[noreturn]] void fail(uint32_t host, const std::string& message);

  ThreadHostLink& link_;
  Team& team_;
  KeyedLocks& locks_;
  std::recursive_mutex& libcLock_;
  AllocatorTable& allocators_;
  std::vector<HostCopy*> copies_;
  std::vector<std::vector<int>> placement_;
  std::map<int, int> globalIds_;
  // By thread number and waiter (0: the thread itself, made at the start).
  std::map<std::pair<int, uint32_t>, std::unique_ptr<Proxy>> proxies_;
  std::vector<size_t> waiterProxies_;  // by host: how many were made
  std::mutex lock_;  // the proxies' queues and the reduction lists
  std::condition_variable changed_;
  std::vector<std::deque<uint32_t>> reductionLists_;  // by host
  std::vector<std::thread> services_;                 // by host
  // By host, under its HostCopy's lock: the main copy's version its copy
  // was last brought to.
  std::vector<uint64_t> shippedVersions_;
};

}  // namespace synergy::omp
