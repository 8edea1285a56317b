//===- Team.h - OpenMP teams, their threads and the worker pool ------------===//
//
// __kmpc_fork_call makes a Team: the encountering thread becomes its thread
// 0 and idle workers from the process's pool the others. A worker is a host
// thread that owns one thread granule (instance, stack, TLS block) for its
// whole life, so threadprivate data persists from one region to the next as
// OpenMP requires, and a fork costs a wake-up, not an instantiation.
//
// Every granule that runs OpenMP code carries an OmpThread: its team, its
// number in it, its ICVs, its worksharing bookkeeping and the task it is
// running; the team holds the explicit tasks its threads share (Tasking.h).
// In --dsm mode a team's threads run on replicas of the encountering
// thread's memory, or of the process's DsmHub once pthreads exist (DsmTeam),
// and each synchronisation point is also a memory synchronisation.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>

#include "granule/Granule.h"
#include "omp/Allocators.h"
#include "omp/KeyedLocks.h"
#include "omp/Tasking.h"
#include "omp/ThreadGroup.h"
#include "omp/WaitWord.h"

namespace synergy::omp {

// The internal control variables a thread carries into the teams it forks.
struct Icvs {
  int nthreads = 1;
  int maxActiveLevels = 1;
  bool dynamic = false;
  int runScheduleKind = 2;  // omp_sched_t; libgomp's default is dynamic,1
  int runScheduleChunk = 1;
  uint32_t defaultAllocator = kDefaultMemAllocator;  // def-allocator-var
};

// The ICVs the spec scopes to the whole device rather than to a thread:
// the teams defaults and the affinity format.
struct DeviceIcvs {
  std::mutex lock;
  int teams = 0;             // nteams-var (0: implementation's choice)
  int teamsThreadLimit = 0;  // teams-thread-limit-var
  std::string affinityFormat = "level %L thread %i affinity %A";
};

// Processors available to this process (at least 1): the default team size
// and omp_get_num_procs.
int onlineProcessors();

class Barrier {
 public:
  // Waiters spin for `spins` pauses before they sleep (SpinCounts).
  Barrier(int parties, uint64_t spins) : parties_(parties), spins_(spins) {}
  // Returns true in exactly one of the threads of each round.
  bool arriveAndWait();

  // For waits that do other work meanwhile: read generation(), then
  // arrive(); the last to arrive (true) opens the barrier with complete(),
  // the others wait for generation() to change.
  uint32_t generation() const { return generation_.load(std::memory_order_acquire); }
  bool arrive();
  void complete();
  // Waits until the barrier has opened past `seen` (a generation()).
  void awaitOpening(uint32_t seen) { generation_.waitWhileEquals(seen, spins_); }

 private:
  const int parties_;
  const uint64_t spins_;
  std::atomic<int> arrived_{0};
  WaitWord generation_;
};

// A worksharing loop whose iterations are handed out at run time (dynamic,
// guided, runtime, and every ordered loop), shared by the team's threads.
struct LoopShare {
  // The kinds whose chunks are claimed at run time.
  static constexpr int kDynamic = 35;
  static constexpr int kGuided = 36;

  uint64_t tripCount = 0;
  int kind = 0;  // 33 static chunked, 34 static, 35 dynamic, 36 guided
  uint64_t chunk = 1;
  bool ordered = false;
  uint64_t lowerBits = 0;  // the first iteration's value, as unsigned bits
  int64_t increment = 1;
  std::atomic<uint64_t> nextIteration{0};
  WaitWord orderedNext;  // iteration index whose turn it is
  std::atomic<int> finishedThreads{0};

  void copyShape(const LoopShare& shape) {
    tripCount = shape.tripCount;
    kind = shape.kind;
    chunk = shape.chunk;
    ordered = shape.ordered;
    lowerBits = shape.lowerBits;
    increment = shape.increment;
  }
};

// Claims the next chunk [begin, end) of a dynamic or guided `loop` shared
// by a team of `threads`; false when none is left.
bool claimSharedChunk(LoopShare& loop, int threads, uint64_t& begin, uint64_t& end);

// claimSharedChunk for a thread on a thread host, which pays a round trip
// per claim: the next chunks [begin, end) of a dynamic `loop`, as many
// consecutive ones as fit in 1/(2 * threads) of the iterations left (at
// least one). The thread runs them one chunk at a time, in order, as if it
// had claimed each when it finished the one before: every iteration still
// runs once, a chunk runs whole, and the tail of the loop still goes one
// chunk a claim. A guided loop's claim is one chunk, as claimSharedChunk's:
// a guided chunk already holds 1/threads of what is left.
bool claimSharedChunks(LoopShare& loop, int threads, uint64_t& begin, uint64_t& end);

class DsmTeam;
class MainCopy;
class ThreadHostSync;

class Team {
 public:
  // `barrierParties`: the parties of its barrier (0: its size), fewer when
  // some of its threads run on other hosts.
  Team(Team* parent, int size, int activeLevel, int parentThreadNum, uint64_t spins,
       int barrierParties = 0);
  ~Team();

  Team* const parent;
  const int size;
  const int level;        // nesting depth, including inactive regions
  const int activeLevel;  // enclosing teams with more than one thread
  const int parentThreadNum;
  // Its threads that run in this process: all of them, except in a team
  // that spans hosts (set by the fork on the main host, by the region's
  // share on a thread host).
  int localMembers;
  // How long its threads spin before they sleep in any wait (SpinCounts).
  const uint64_t spins;
  Barrier barrier;
  std::atomic<uint64_t> singlesTaken{0};
  std::atomic<uint32_t> copyprivateData{0};
  // __kmpc_reduce: each thread's list of pointers to its private copies,
  // and a counter thread 0 bumps when the others may go on.
  std::vector<uint32_t> reductionLists;
  WaitWord reductionsReleased;

  // The k-th dispatched loop of the team, created by its first arriver.
  LoopShare& loop(uint64_t index, const LoopShare& shape);
  // Drops loop `index` once every thread has finished it.
  void finishLoop(uint64_t index);

  // The region's outlined function and its shared arguments.
  uint32_t microtask = 0;
  std::vector<uint32_t> arguments;
  WaitWord workersRunning;

  std::unique_ptr<DsmTeam> dsm;
  TaskPool tasks;
  // Some of its threads run on other hosts (omp/RemoteThreads.h). On the
  // main host its barrier has one party per thread host besides the local
  // threads; on a thread host `threadHost` carries the team's
  // synchronisation to the main host (omp/ThreadHostSync.h). Reductions:
  // this process's threads fold their copies into those of
  // `reductionLeader`, which then calls combineAcrossHosts (it combines the
  // other hosts' partial results on the main host, sends this host's there
  // on a thread host) and returns 1 from __kmpc_reduce on the main host, 0
  // on a thread host.
  bool spansHosts = false;
  ThreadHostSync* threadHost = nullptr;
  int reductionLeader = 0;
  bool reductionWritesShared = true;
  std::function<void(granule::Granule& leader, uint32_t list, uint32_t combiner)> combineAcrossHosts;

 private:
  std::mutex loopsLock_;
  std::map<uint64_t, std::unique_ptr<LoopShare>> loops_;
};

// Where a thread is: its team and its progress through the team's
// worksharing constructs. A thread that forks saves it and gets it back at
// the join.
struct TeamPosition {
  Team* team = nullptr;  // nullptr: the implicit initial team of one
  int threadNum = 0;
  uint64_t singlesSeen = 0;
  uint64_t loopsSeen = 0;
  // The dispatched loop in progress.
  LoopShare* loop = nullptr;
  uint64_t loopIndex = 0;
  uint64_t staticChunksTaken = 0;
  // On a thread host: what is left of the chunks of the dispatched loop that
  // the main host handed out in one claim (claimSharedChunks), [next, end).
  uint64_t claimedNext = 0;
  uint64_t claimedEnd = 0;
  uint32_t orderedIteration = 0;
  bool orderedDone = false;
  // The task the thread is running; nullptr until the implicit task is
  // first needed.
  std::shared_ptr<Task> task;
  // The innermost tied task suspended in this thread at a taskwait, the end
  // of a taskgroup or a taskyield (nullptr at a barrier): the thread may
  // start only tied tasks that descend from it (OpenMP's task scheduling
  // constraint), so a task never runs under a lock its suspended ancestor
  // holds.
  const Task* suspendedTied = nullptr;
};

// One granule's OpenMP state.
class OmpThread : public granule::HostExtension {
 public:
  explicit OmpThread(granule::Granule& granule);

  granule::Granule& granule;
  TeamPosition at;
  Icvs icvs;
  int pushedNumThreads = 0;
  // A dispatched loop met outside any parallel region.
  std::unique_ptr<LoopShare> soloLoop;
  // Tasks created outside any parallel region.
  std::unique_ptr<TaskPool> soloTasks;

  int teamSize() const { return at.team ? at.team->size : 1; }
  // The spin budget of the thread's waits: its team's, or none outside one,
  // where nothing else can release it.
  uint64_t spins() const { return at.team ? at.team->spins : 0; }
  int globalThreadId();
};

class OmpRuntime;
class RemoteTeams;

// Runs thread `member.at.threadNum`'s share of `team`'s region in `granule`,
// on its replica when the team has one; a trap or exit ends the process.
void runTeamMember(Team& team, OmpThread& member, granule::Granule& granule);

// A pooled worker: a host thread that runs regions in its own granule.
struct Worker {
  ThreadGranule thread;
  pthread_t host{};
  WaitWord jobs;  // bumped to start a region
  bool busy = false;
  Team* team = nullptr;
  int threadNum = 0;
  Icvs icvs;
  // The encountering thread's memory and its synchronisation, for a team
  // without replicas.
  snapshot::LinearMemory* memory = nullptr;
  granule::MemorySync* memorySync = nullptr;
};

// Process-wide OpenMP state, owned by the ThreadGroup.
class OmpRuntime {
 public:
  explicit OmpRuntime(ThreadGroup& group);
  ~OmpRuntime();

  ThreadGroup& group() { return group_; }
  const Icvs& initialIcvs() const { return initialIcvs_; }
  KeyedLocks& locks() { return locks_; }
  AllocatorTable& allocators() { return allocators_; }
  DeviceIcvs& device() { return device_; }
  // How long a thread of a team of `threads` spins before it sleeps.
  uint64_t spinsForTeam(int threads) const;

  // Runs one parallel region from `encountering` (__kmpc_fork_call).
  void forkCall(OmpThread& encountering, uint32_t microtask, std::vector<uint32_t> arguments);
  // Null unless the job has thread hosts.
  RemoteTeams* remoteTeams() { return remote_.get(); }

 private:
  std::vector<Worker*> acquireWorkers(granule::Granule& spawner, int count);
  void releaseWorkers(const std::vector<Worker*>& workers);
  void workerLoop(Worker& worker, uint64_t idleSpins);
  // The main copy a new team inside `parent` must share: the pthreads' hub
  // (--dsm), else the one of the nearest enclosing replicated team (--dsm,
  // or a team that spans hosts); null when neither exists.
  MainCopy* sharedMainCopy(Team* parent);

  ThreadGroup& group_;
  Icvs initialIcvs_;
  SpinCounts spinCounts_;
  KeyedLocks locks_;
  AllocatorTable allocators_;
  DeviceIcvs device_;
  std::mutex poolLock_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<bool> shuttingDown_{false};
  // Set when the job has thread hosts (threadHostLink()).
  std::unique_ptr<RemoteTeams> remote_;
};

// The OpenMP state of the granule a host function was called from.
OmpThread& ompThread(granule::Granule& granule);
OmpRuntime& ompRuntime(granule::Granule& granule);

}  // namespace synergy::omp
