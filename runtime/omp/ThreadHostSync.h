//===- ThreadHostSync.h - a thread host's synchronisation through the main host
//
// On a thread host (omp/RemoteThreads.h) a region's threads share the host's
// copy of the main memory directly; what they must agree on with the rest
// of the team lives on the main host (omp/HostSyncService.h). This is the
// thread host's half, the --dsm rules with the host's copy as one replica:
//
//  - a barrier is first a local one, where the host's threads run the
//    host's tasks (omp/Tasking.h); its last arriver, once no task is left,
//    releases the host's writes (a copy update), asks the main host, and
//    opens the local barrier once the answer's update is in the copy: one
//    round trip per barrier and host, not per thread;
//  - a lock, critical or the atomics' exclusive lock is granted by the main
//    host, whose answer brings the copy up to date (acquire); leaving it
//    sends the host's writes and the unlock in one go, unanswered (release);
//  - single, copyprivate and dynamic, guided and ordered loop chunks are
//    decided on the main host, whose team holds the counters;
//  - a team nested in the spread team runs on the host's own pooled
//    workers, over the host's copy: its barriers, worksharing and
//    reductions are local, as on one host; its threads' requests to the
//    main host (locks, libc, atomics, allocators) go as the spread team's
//    thread they descend from, each thread as its own waiter
//    (SyncMessages.h): the main host serves each waiter on its own proxy
//    and answers it, and only that thread wakes here, so a nested thread's
//    request never waits behind a sibling's (a sibling waiting for a lock
//    held on another host does not hold up the request that would let it
//    go, as under libgomp); the main host records one owner of a lock or
//    critical per spread thread, so the host's threads take each one here
//    first, one thread at a time, and ask the main host while they hold it
//    here (the main host takes an unlock at once);
//  - user allocators live in the main host's table (omp/Allocators.h):
//    creating, destroying, looking one up and charging its pool are
//    requests there that neither acquire nor release;
//  - an atomic instruction is done by the main host on the main copy (one
//    round trip that releases and acquires, granule/AtomicAccess.h), so all
//    atomics on a cell apply in one place and order; libc (malloc, stdio,
//    serialised by SerializeLibc) runs under the main host's lock; both
//    through the MemorySync each thread granule gets (RemoteSync).
//
// An update the host ships compares only the pages of its copy written
// since the last one (an Mprotect DirtyTracker over the copy, whose
// takeDirtyPages stays exact while the host's threads go on writing), so
// a lock's release costs what the host wrote, not the memory's size.
//
// The host's serving loop (serveThreadHost) feeds every copy update and
// answer from the main host in here, in arrival order: an update is written
// into the copy under the link's lock, then the answer wakes its thread.
// Updates run while other threads of the host run, as a --dsm pull does; in
// a data-race-free program no thread writes a byte another host's update
// changes without having synchronised with it first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "granule/Granule.h"
#include "omp/Allocators.h"
#include "omp/KeyedLocks.h"
#include "omp/RemoteThreads.h"
#include "omp/SyncMessages.h"
#include "snapshot/CopyLink.h"
#include "snapshot/DirtyTracker.h"

namespace synergy::omp {

class OmpThread;
struct LoopShare;

class ThreadHostSync {
 public:
  ThreadHostSync(MainHostLink& link, granule::Granule& root, snapshot::CopyLink& copy);
  ~ThreadHostSync();

  // The serving loop: one received copy update, or one answer. False with
  // `error` when malformed or out of order.
  bool acceptUpdate(const std::vector<uint8_t>& payload, std::string& error);
  bool deliverReply(const std::vector<uint8_t>& payload, std::string& error);

  // A region's threads (`me` on a team whose threads span hosts).
  void barrier(OmpThread& me);
  int lock(OmpThread& me, uint32_t key, bool nested);
  int testLock(OmpThread& me, uint32_t key, bool nested);
  void unlock(OmpThread& me, uint32_t key);
  bool single(OmpThread& me, uint64_t number);
  void offerCopyprivate(OmpThread& me, uint32_t data);
  // Claims the next chunk of a dynamic or guided loop from the main host.
  bool claimChunk(OmpThread& me, const LoopShare& loop, uint64_t& begin, uint64_t& end);
  void orderedEnter(OmpThread& me, const LoopShare& loop, uint32_t iteration);
  void orderedLeave(OmpThread& me, const LoopShare& loop, uint32_t iteration);
  void orderedSkip(OmpThread& me, const LoopShare& loop, uint32_t iteration);
  // The host's reduction leader: ships the host's writes and its list, and
  // returns once the main host's team barrier has opened.
  void reduce(uint32_t threadNum, uint32_t list);
  // The main host's allocator table (omp/Allocators.h).
  uint32_t createAllocator(OmpThread& me, const AllocatorTraits& traits);
  void destroyAllocator(OmpThread& me, uint32_t handle);
  std::optional<AllocatorTraits> allocatorTraits(OmpThread& me, uint32_t handle);
  bool reservePool(OmpThread& me, uint32_t handle, uint64_t bytes);
  void refundPool(OmpThread& me, uint32_t handle, uint64_t bytes);
  // omp_fulfill_event for a task this host did not create: the main host
  // fulfils it, after the host's writes so far (omp/Tasking.h).
  void fulfilEvent(OmpThread& me, uint32_t event);
  void lockLibc(OmpThread& me);
  void unlockLibc(OmpThread& me);
  // A pthread running here (omp/RemotePthreads.h), by its id: libc's lock,
  // a call its proxy makes (the answer's value), and its end.
  void lockLibc(uint32_t pthread);
  void unlockLibc(uint32_t pthread);
  uint64_t pthreadCall(uint32_t pthread, uint32_t function, uint32_t a, uint32_t b, uint32_t c);
  void pthreadEnd(uint32_t pthread, uint32_t result);
  // Thread `threadNum` (a pthread's id, or `me`'s spread thread) called
  // exit() or trapped (`outcome`): as a local thread's would
  // (endProcessFromThread), that ends the process, which is the job's, so
  // the main host ends it with the status. This host ends when the link
  // closes (serveThreadHost); the thread waits meanwhile.
  [[noreturn]] void endJob(uint32_t threadNum, const granule::RunResult& outcome,
                            uint32_t asWaiter = 0);
  [[noreturn]] void endJob(const OmpThread& me, const granule::RunResult& outcome);
  // Whether a thread here has ended the job.
  bool jobEnded() const { return jobEnded_.load(); }
  // The last of the host's threads of a region to finish: ships the host's
  // writes and ends the host's part of the region.
  void finishRegion(uint32_t threadNum);
  // An atomic access, done on the main copy: the cell's old value.
  uint64_t atomic(uint32_t threadNum, const granule::AtomicAccess& access,
                  uint32_t asWaiter = 0);
  // Memory synchronisation of one thread.
  void acquire(uint32_t threadNum, uint32_t asWaiter = 0);
  void release(uint32_t threadNum, uint32_t asWaiter = 0);
  // The calling OS thread's waiter number (SyncMessages.h), never 0: the
  // requests a nested team's thread may make as its spread thread carry it.
  static uint32_t waiter();

 private:
  // Sends `request`, after the host's writes when it releases; with
  // `answered`, blocks until its answer arrives. A reduction
  // (`reductionList` nonzero) sends the host's writes and that list
  // instead of a request.
  SyncReply call(SyncRequest request, bool answered, uint32_t reductionList = 0);
  SyncRequest loopRequest(SyncOp op, OmpThread& me, const LoopShare& loop, uint64_t value);
  // The number in the spread team of the thread `me` is or descends from
  // (through nested teams on this host), which its requests carry.
  static uint32_t spreadThread(const OmpThread& me);
  int localOwner(const OmpThread& me);
  [[noreturn]] void fail(const std::string& message);

  // Ships the host's writes since its last update.
  bool shipWrites(std::vector<std::vector<uint8_t>>& update, std::string& error);

  MainHostLink& link_;
  granule::Granule& root_;
  snapshot::CopyLink& copy_;
  // The copy's pages written since the last update (null when no tracker
  // could start: every update then compares the whole copy).
  std::unique_ptr<snapshot::DirtyTracker> written_;
  // Guards the copy link (ship and accept) and the order of sends.
  std::mutex linkLock_;
  std::mutex answersLock_;
  std::condition_variable answered_;
  struct Answer {
    bool arrived = false;
    SyncReply reply;
  };
  // By thread number and waiter, until taken.
  std::map<std::pair<uint32_t, uint32_t>, Answer> answers_;
  // Held by the host's thread that holds libc's lock on the main host.
  std::recursive_mutex libcOnThisHost_;
  // The OpenMP locks and criticals the host's threads hold or ask the main
  // host for, by localOwner: the threads of the host that descend from one
  // spread thread would all be that thread's there.
  KeyedLocks hostLocks_;
  // A number per thread of this host for hostLocks_ (global thread ids are
  // not: the spread team's come from the main host, the pooled workers'
  // from this process).
  std::mutex localOwnersLock_;
  std::map<const OmpThread*, int> localOwners_;
  std::atomic<bool> jobEnded_{false};
};

// A thread granule's MemorySync on a thread host: each atomic is done by the
// main host on the main copy, one round trip that carries this host's writes
// and brings back the old value and what this host is missing. With
// `perThread` (a spread team's thread, whose nested teams' threads share
// it) each OS thread asks as its own waiter; else as the thread itself.
class RemoteSync : public granule::MemorySync {
 public:
  RemoteSync(ThreadHostSync& sync, uint32_t threadNum, bool perThread = false)
      : sync_(sync), threadNum_(threadNum), perThread_(perThread) {}
  void acquire() override;
  void release() override;
  const void* domain() const override { return &sync_; }
  uint64_t performAtomic(const granule::AtomicAccess& access, uint8_t* cell) override;

 private:
  uint32_t asWaiter() const;

  ThreadHostSync& sync_;
  const uint32_t threadNum_;
  const bool perThread_;
};

// The ThreadHostSync of the thread host `granule` runs on inside a region
// that spans hosts (its team's, or an enclosing team's: a nested team there
// runs on the host's own threads and still locks through the main host),
// else null.
ThreadHostSync* threadHostSyncOf(granule::Granule& granule);

}  // namespace synergy::omp
