//===- RemotePthreads.h - pthreads on other hosts (issue 22, part 3) -------===//
//
// In a job with thread hosts (--threads-per-host K, omp/RemoteThreads.h) the
// main host runs main() and K-1 pthreads; each further pthread runs on a
// thread host with fewer than K of the job's pthreads, while one has room
// (then on the main host). Every pthread of such a job runs on a replica of
// the process's DsmHub, as under --dsm, so the first pthread_create must
// come from the main thread outside parallel regions; a pthread on a thread
// host runs on that host's copy of the hub's main copy:
//
//  - pthread_create releases the creator's writes, ships the host the bytes
//    its copy lacks (the whole memory the first time, diffs after that:
//    snapshot/CopyLink.h, the link OpenMP regions use too) and an
//    OmpPthreadStart naming the start routine, its argument and the stack
//    and TLS block the main host allocated with the guest's malloc;
//  - on the main host a proxy, a granule on its own replica of the hub with
//    the thread's id, stands in for the thread: every pthread function that
//    touches state shared between threads (mutexes, condition variables,
//    barriers, rwlocks, spinlocks, once, names) is a PthreadCall the proxy makes
//    as the thread would, with the same memory synchronisation; the call
//    releases the host's writes first (a copy update pushed into the hub
//    through the host's stand-in replica) and its answer acquires;
//  - libc's lock, atomics and plain acquires go through the thread's
//    MemorySync (RemoteSync) as an OpenMP thread's do on a thread host;
//  - the thread's end releases its writes with a PthreadEnd carrying the
//    result; pthread_join on the main host then acquires as for a local one.
//
// exit() or a trap in a pthread on a thread host ends the job with its
// status (SyncOp::ThreadExit), as a local thread's ends the process.
//
// Not supported in a pthread on a thread host, each ending the job with a
// one-line error naming it: pthread_create, join and detach, thread-specific
// data keys and OpenMP parallel regions. A program that
// imports any OpenMP entry point (`__kmpc_*`, `omp_*`: regions, but also
// OpenMP locks and critical sections, which a thread host would take
// locally) keeps its pthreads on the main host, as before
// (ThreadHostLink::spreadsPthreads).
//
// OpenMP regions spread over thread hosts only while the process has no
// DsmHub (omp/Team.cpp), so a thread host never serves a region and
// pthreads at once.
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
#include <vector>

#include "granule/Granule.h"
#include "omp/SyncMessages.h"

namespace synergy::omp {

class GranuleReplica;
class MainCopy;
class RemoteTeams;
class ThreadHostLink;
class ThreadHostSync;
struct HostCopy;

// The pthread functions a thread host's pthread has its proxy make.
enum class PthreadFunction : uint32_t {
  MutexInit = 1,
  MutexDestroy,
  MutexLock,
  MutexTrylock,
  MutexUnlock,
  CondInit,
  CondDestroy,
  CondWait,
  CondTimedwait,
  CondSignal,
  CondBroadcast,
  BarrierInit,
  BarrierDestroy,
  BarrierWait,
  RwlockInit,
  RwlockDestroy,
  RwlockRdlock,
  RwlockTryrdlock,
  RwlockTimedrdlock,
  RwlockWrlock,
  RwlockTrywrlock,
  RwlockTimedwrlock,
  RwlockUnlock,
  SpinInit,
  SpinDestroy,
  SpinLock,
  SpinTrylock,
  SpinUnlock,
  OnceEnter,  // result 1: the caller runs the routine, then OnceLeave
  OnceLeave,
  SetnameNp,
  GetnameNp,
};
inline constexpr uint32_t kLastPthreadFunction = uint32_t(PthreadFunction::GetnameNp);

// Runs `function` in `proxy` as the thread it stands for would (Pthreads.cpp).
uint32_t runPthreadFunction(granule::Granule& proxy, PthreadFunction function, uint32_t a,
                            uint32_t b, uint32_t c);

// The wire form of OmpPthreadStart, little-endian: u64 copy sequence, then
// u32 pthread id, global thread id, start routine, argument, stack top, TLS
// block (kPthreadStartBytes).
struct PthreadStart {
  uint64_t copySequence = 0;
  uint32_t id = 0;
  uint32_t globalThreadId = 0;
  uint32_t startRoutine = 0;
  uint32_t argument = 0;
  uint32_t stackTop = 0;
  uint32_t tlsBlock = 0;
};
inline constexpr size_t kPthreadStartBytes = 32;
std::vector<uint8_t> encodePthreadStart(const PthreadStart& start);
// Checks the length, that the id is a pthread's (2 or more) and that the
// stack top and TLS block lie inside `memoryBytes`.
bool decodePthreadStart(const uint8_t* data, size_t size, uint64_t memoryBytes,
                        PthreadStart& start, std::string& error);

// The thread host's side: a pthread function of a pthread running here
// (`granule`) is made by its proxy on the main host; false when `granule`
// is no such pthread. `name` is the function's, for the error that ends
// the job when it is not supported here (refuseOnThreadHost).
bool forwardedToMainHost(granule::Granule& granule, PthreadFunction function, uint32_t& result,
                         uint32_t a = 0, uint32_t b = 0, uint32_t c = 0);
// Ends the job with "`what` in a pthread on a thread host is not supported"
// when `granule` is a pthread running on a thread host.
void refuseOnThreadHost(granule::Granule& granule, const char* what);
// The ThreadHostSync of a pthread running on a thread host, else null.
ThreadHostSync* pthreadThreadHost(granule::Granule& granule);

// The thread host's side: starts `start`'s thread on `root`'s copy; false
// when the system refuses a host thread.
bool startPthreadOnThreadHost(granule::Granule& root, ThreadHostSync& sync,
                              const PthreadStart& start);
// Waits for the pthreads started here to end.
void joinPthreadsOnThreadHost();
// Whether a pthread started here still runs.
bool pthreadsRunOnThreadHost();

// The main host's side, owned by the PthreadRuntime of a job with thread
// hosts.
class RemotePthreads {
 public:
  RemotePthreads(ThreadHostLink& link, RemoteTeams& teams, MainCopy& main);
  ~RemotePthreads();

  // The thread host (0-based) to run a new pthread on, counting it there;
  // -1 to run it here. `localThreads`: the pthreads running here.
  int place(uint32_t localThreads);
  // Ships `host` the bytes of the hub's main copy its copy lacks and starts pthread `id`
  // there, with the stack and TLS block of `proxy`, its stand-in here.
  // `creator` has released its writes into it; traps it on failure.
  void start(granule::Granule& creator, uint32_t host, uint32_t id, granule::Granule& proxy,
             uint32_t stackTop, uint32_t startRoutine, uint32_t argument);
  // The proxy's host thread: makes the thread's calls until it ends;
  // returns the start routine's result.
  uint32_t serve(uint32_t id, granule::Granule& proxy);

 private:
  struct Thread {
    uint32_t host = 0;
    std::deque<SyncRequest> requests;
  };
  struct Host {
    HostCopy* copy = nullptr;
    std::unique_ptr<GranuleReplica> standIn;
    uint32_t live = 0;
    bool serving = false;
    std::thread service;
    // Under the copy's lock: the hub's version the host's copy was brought to.
    uint64_t shippedVersion = 0;
  };

  void serveHost(uint32_t host);
  void performAtomic(uint32_t host, const SyncRequest& request);
  void answer(uint32_t host, uint32_t id, uint64_t value, bool acquires);
  [[noreturn]] void fail(uint32_t host, const std::string& message);

  ThreadHostLink& link_;
  RemoteTeams& teams_;
  MainCopy& main_;  // the hub's
  std::mutex lock_;           // hosts' counts and the threads' queues
  std::condition_variable changed_;
  std::vector<Host> hosts_;
  std::map<uint32_t, Thread> threads_;  // by pthread id, while running remotely
};

}  // namespace synergy::omp
