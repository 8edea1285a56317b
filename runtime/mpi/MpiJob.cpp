//===- MpiJob.cpp - run an MPI program as N granules on this host ----------===//
//
// The main thread only launches and watches: it polls the World every tick
// for a deadlock, and once the job is over (all ranks finished, or one
// aborted it) it gives the remaining ranks a grace period to unwind from
// their MPI calls. A rank busy in pure computation cannot be stopped from
// outside, so after the grace period the process ends with the job's status,
// as mpirun kills its processes.
//
// Like mpirun, the launcher binds each rank to its own CPU when there are
// enough of them. A bound rank then spins for messages before it sleeps
// (World), which is what makes shared-memory latency sub-microsecond; two
// polling ranks sharing a core would instead take turns at every message.
// A single rank is not pinned unless asked (see runJob).
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiJob.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "granule/ProcessEnd.h"
#include "mpi/BarrierControlPoint.h"
#include "mpi/OutputForwarding.h"
#include "mpi/World.h"
#include "wasi/WasiState.h"

namespace synergy::mpi {

namespace {

constexpr auto kWatchdogTick = std::chrono::milliseconds(100);
// Ticks with every rank blocked and nothing happening before a deadlock is
// declared. Woken ranks no longer count as blocked, so this only has to
// outlast a loaded machine's scheduling delays between related wake-ups.
constexpr int kDeadlockTicks = 20;

// Test hook, for the deadlock tests only: SYNERGY_DEADLOCK_TICKS=N (1 to
// kDeadlockTicks) declares a deadlock after N quiet ticks instead, so that
// a test can show that a long but live step (a large message in flight or
// being copied) is not reported without waiting for it to take 2 s.
int deadlockTicks() {
  if (const char* ticks = std::getenv("SYNERGY_DEADLOCK_TICKS")) {
    long value = std::strtol(ticks, nullptr, 10);
    if (value >= 1 && value <= kDeadlockTicks) return int(value);
  }
  return kDeadlockTicks;
}
constexpr auto kAbortGrace = std::chrono::seconds(2);
constexpr size_t kRankStackBytes = 64u << 20;

struct RankThread;

// What a rank thread needs to make its rank's granule again, in a fresh
// instance, when the rank departs at a control point (a live move).
struct RankRemaker {
  // A granule of the job's module bound to the World as `worldRank`, its
  // fds 1 and 2 on `stdioFds` (taken over), instantiated; null with `error`.
  std::function<std::unique_ptr<granule::Granule>(int worldRank, int stdioFds[2],
                                                  std::string& error)>
      make;
  BarrierControlPoint* controlPoint = nullptr;
  // Where the rank threads start (stack size and CPU, as the first).
  std::function<bool(RankThread&)> startThread;
  // A rank that left this part by a live move: its unfinished output
  // lines, which it carried to the target, are not forwarded here.
  std::function<void(int worldRank)> outputLeft;
};

struct RankThread {
  int rank = 0;
  // The rank's granule, replaced when the rank arrives in a fresh one.
  std::unique_ptr<granule::Granule>* granule = nullptr;
  World* world = nullptr;
  pthread_t thread{};
  bool started = false;
  // Shared completion counter.
  std::mutex* mutex = nullptr;
  std::condition_variable* finished = nullptr;
  int* finishedCount = nullptr;
  RankRemaker* remaker = nullptr;
  // The rank's stdio write ends, taken from its departed granule, while it
  // waits to arrive in a fresh one on this thread.
  int arrivingStdio[2] = {-1, -1};
};

// The departed granule's stdio host fds, duplicated, so that the rank's
// output pipes stay open while no granule of it exists.
bool takeStdio(granule::Granule& granule, int fds[2]) {
  auto& files = granule.extension<wasi::WasiState>();
  for (int stream : {1, 2}) {
    wasi::FileDescriptor* file = files.find(uint32_t(stream));
    fds[stream - 1] = file ? ::dup(file->hostFd()) : -1;
    if (fds[stream - 1] < 0) return false;
  }
  return true;
}

void* runRank(void* arg) {
  auto* job = static_cast<RankThread*>(arg);
  std::string who = "rank " + std::to_string(job->rank);
  if (job->arrivingStdio[0] >= 0) {
    // A live move: the rank arrives in a fresh instance on this new thread.
    std::string error;
    int fds[2] = {job->arrivingStdio[0], job->arrivingStdio[1]};
    job->arrivingStdio[0] = job->arrivingStdio[1] = -1;
    std::unique_ptr<granule::Granule> fresh = job->remaker->make(job->rank, fds, error);
    if (!fresh || !job->remaker->controlPoint->arrive(job->rank, *fresh, error)) {
      if (fresh && job->remaker->controlPoint->rankLeft(job->rank)) {
        // It runs on another part now: its output streams here end with
        // the fresh instance, and the rank does not finish here.
        if (job->remaker->outputLeft) job->remaker->outputLeft(job->rank);
        fresh.reset();
        job->world->rankLeft(job->rank);
      } else {
        job->world->abort(2, who + ": cannot arrive in a fresh instance: " + error);
        job->world->rankFinished(job->rank);
      }
      std::lock_guard<std::mutex> guard(*job->mutex);
      ++*job->finishedCount;
      job->finished->notify_all();
      return nullptr;
    }
    *job->granule = std::move(fresh);
    job->world->rankArrived(job->rank);
  }
  granule::RunResult result = (*job->granule)->runStart();
  if (result.kind == granule::RunResult::Kind::Departed) {
    // Its state went to the control point; the instance and its memory go
    // now, before the rank arrives in a fresh one on a thread of its own.
    job->world->rankDeparted(job->rank);
    bool tookStdio = takeStdio(**job->granule, job->arrivingStdio);
    job->granule->reset();
    pthread_detach(pthread_self());
    if (tookStdio && job->remaker->startThread(*job)) return nullptr;
    job->started = false;  // detached: not joined
    for (int& fd : job->arrivingStdio)
      if (fd >= 0) ::close(std::exchange(fd, -1));
    job->world->abort(2, who + ": cannot start a thread for it to arrive on");
  } else if (result.kind == granule::RunResult::Kind::Trapped) {
    job->world->abort(kTrapExitCode,
                      who + ": trap: " + result.trapReason + " in " + result.trapFunction);
  } else if (result.exitCode != 0) {
    job->world->abort(result.exitCode,
                      who + " exited with status " + std::to_string(result.exitCode));
  }
  job->world->rankFinished(job->rank);
  std::lock_guard<std::mutex> guard(*job->mutex);
  ++*job->finishedCount;
  job->finished->notify_all();
  return nullptr;
}

// The CPUs this process may run on, in increasing order.
std::vector<int> usableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// Points the guest's fds 1 and 2 at the rank's forwarding pipes.
bool redirectStdio(granule::Granule& granule, const int stdioFds[2], int rank,
                   std::string& error) {
  auto& files = granule.extension<wasi::WasiState>();
  if (!files.startupError().empty()) {
    error = files.startupError();
    return false;
  }
  for (int stream : {1, 2}) {
    auto slot = files.insert(wasi::FileDescriptor(stdioFds[stream - 1], true));
    if (!slot || files.renumber(*slot, uint32_t(stream)) != wasi::Errno::Success) {
      error = "cannot set up the output of rank " + std::to_string(rank);
      return false;
    }
  }
  return true;
}

// Runs joinHosts (JobOptions) on a thread of its own from construction:
// a job spread over hosts connects to them while this host loads and
// instantiates the module, instead of after. Frames that arrive meanwhile
// go into the World's mailboxes, which exist before any rank does. A
// launch error of this host still waits for the thread (the destructor),
// since it uses the World.
class HostJoin {
 public:
  HostJoin(const std::function<bool(World&, std::string&)>& joinHosts, World& world) {
    if (!joinHosts) return;
    thread_ = std::thread([this, &joinHosts, &world] { joined_ = joinHosts(world, error_); });
  }
  HostJoin(const HostJoin&) = delete;
  HostJoin& operator=(const HostJoin&) = delete;
  ~HostJoin() { waitForThread(); }

  // True once joined (or with nothing to join); false with its `error`.
  bool finish(std::string& error) {
    waitForThread();
    if (!joined_) error = error_;
    return joined_;
  }

 private:
  void waitForThread() {
    if (thread_.joinable()) thread_.join();
  }

  std::thread thread_;
  bool joined_ = true;
  std::string error_;
};

// An abort that another host reported has no message here: that host
// prints it.
void reportAbort(World& world) {
  std::string message = world.takeAbortMessage();
  if (!message.empty()) std::fprintf(stderr, "synergy-run: %s\n", message.c_str());
}

}  // namespace

int runJob(const JobOptions& options) {
  auto launchError = [](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
    return 2;
  };
  if (options.ranks < 1) return launchError("-np needs at least one rank");
  std::vector<int> cpus = usableCpus();
  bool fits = size_t(options.ranks) <= cpus.size();
  if (options.bindToCores.value_or(false) && !fits)
    return launchError("--bind-to core needs a CPU per rank: " + std::to_string(options.ranks) +
                       " ranks, " + std::to_string(cpus.size()) + " usable CPUs");
  bool bind = options.bindToCores.value_or(fits);
  // A lone rank has no other rank here to share a CPU with, so by default
  // it is not pinned, only polls: pinned, every such job on a shared host
  // would queue for the first CPU (a cluster host's jobs, or many
  // `-np 1` runs at once), which costs a loaded host milliseconds at start.
  bool pin = bind && (options.ranks > 1 || options.bindToCores.value_or(false));

  int worldSize = options.worldSize > 0 ? options.worldSize : options.ranks;
  std::vector<int> ranksHere = options.worldRanks;
  if (ranksHere.empty())
    for (int rank = 0; rank < options.ranks; ++rank) ranksHere.push_back(rank);
  if (int(ranksHere.size()) != options.ranks || ranksHere.front() < 0 ||
      ranksHere.back() >= worldSize ||
      std::adjacent_find(ranksHere.begin(), ranksHere.end(), std::greater_equal<int>()) !=
          ranksHere.end())
    return launchError("this host's ranks lie outside the job");
  World world(worldSize, /*ranksOwnCpus=*/bind);
  world.setBarrierControlPoint(options.barrierControlPoint);
  // Joining the other hosts waits for them to load the module too, so it
  // runs while this host loads its own (HostJoin).
  HostJoin join(options.joinHosts, world);
  // A launch error once the join has begun (a checkpoint to resume from
  // refused, a rank that cannot be restored): the link delivers frames into
  // `world`, and a checkpoint agreement holds it, until this process ends,
  // so the World is not destroyed under them. The job is aborted, which
  // tells the other parts at once, and the process ends as an abort ends
  // it below.
  auto failJoined = [&](const std::string& message) -> int {
    if (!options.joinHosts) return launchError(message);
    std::string joinError;
    bool joined = join.finish(joinError);
    world.abort(2, message);
    if (joined && options.leaveHosts) options.leaveHosts();
    launchError(message);
    std::fflush(nullptr);
    ::_exit(2);
  };

  std::string error;
  auto module = granule::Module::loadFile(options.program, error, options.showProgress);
  if (!module) return failJoined(error);
  OutputForwarding output(ranksHere, options.tagOutput);
  if (!output.ok()) return failJoined("cannot create output pipes");
  // Deques: a rank taken in by a live move between parts appends while the
  // others' threads hold pointers into them.
  std::deque<std::unique_ptr<granule::Granule>> granules;
  BarrierControlPoint* controlPoint = options.barrierControlPoint;
  RankRemaker remaker;
  remaker.controlPoint = controlPoint;
  remaker.make = [&](int worldRank, int stdioFds[2], std::string& error)
      -> std::unique_ptr<granule::Granule> {
    auto made = std::make_unique<granule::Granule>(module, options.config);
    World::bind(made.get(), &world, worldRank);
    if (controlPoint)
      made->setSuspensionHandler(
          [controlPoint, worldRank](granule::Granule& granule, const snapshot::Snapshot* snap,
                                    std::string& error) {
            return controlPoint->suspended(worldRank, granule, snap, error);
          },
          [controlPoint, worldRank] { return controlPoint->resumesInPlace(worldRank); });
    if (!redirectStdio(*made, stdioFds, worldRank, error)) return nullptr;
    // A rank refused here (more initial memory than --max-memory) is bad
    // input for the whole job, reported before any rank runs.
    if (!made->instantiate(error)) {
      error = options.program + ": " + error;
      return nullptr;
    }
    return made;
  };
  for (int rank = 0; rank < options.ranks; ++rank) {
    int stdioFds[2] = {output.takeWriteEnd(rank, 1), output.takeWriteEnd(rank, 2)};
    granules.push_back(remaker.make(ranksHere[rank], stdioFds, error));
    if (!granules.back()) return failJoined(error);
    if (controlPoint && !controlPoint->prepareRank(ranksHere[rank], *granules.back(), error))
      return failJoined(error);
  }
  if (BarrierControlPoint* controlPoint = options.barrierControlPoint) {
    controlPoint->setOutputDrain([&output] { output.drain(); });
    controlPoint->setOutputCount([&output] { return output.stdoutBytes(); });
    // The ranks this part runs now: a live move between parts adds or
    // takes one (the World's remote flags follow the route switch).
    controlPoint->setQuiescenceCheck([&world, &output]() -> std::string {
      for (int rank = 0; rank < world.size(); ++rank)
        if (!world.isRemote(rank) && !world.mailboxHoldsNoArrival(rank))
          return "rank " + std::to_string(rank) + ": a message is still waiting to be received";
      return {};
    });
    controlPoint->setUnfinishedLineCheck([&output]() -> std::string {
      if (int rank = output.rankMidLine(); rank >= 0)
        return "rank " + std::to_string(rank) +
               ": its output ends mid-line (a checkpoint would cut the line)";
      return {};
    });
    controlPoint->setOutputHandOver(
        {[&output](int rank) {
           return output.holdTails(rank, BarrierControlPoint::kMaxCarriedTailBytes);
         },
         [&output](int rank, const std::array<std::string, 2>& tails) {
           output.seedTails(rank, tails);
         }});
    remaker.outputLeft = [&output](int rank) { output.dropTails(rank); };
    controlPoint->setRankWaiting(
        {[&world](int rank, util::FunctionRef<bool()> done) {
           return world.waitForOthers(rank, WaitInfo{kControlPointWait},
                                      done);
         },
         [&world](int rank) { world.wakeWaiter(rank); }});
  }
  if (!join.finish(error)) return launchError(error);
  // Joining may have found that the ranks share their CPUs after all.
  pin = pin && world.ranksOwnCpus();
  output.start();
  // A guest thread's exit() or trap ends the process where it is; the job
  // ends as it does when its ranks return.
  granule::setProcessEndHook([&output, &options] {
    output.flushNow();
    if (options.reportAtEnd) options.reportAtEnd();
  });

  std::mutex mutex;
  std::condition_variable finished;
  int finishedCount = 0;
  int expectedCount = options.ranks;  // grows with each rank taken in (adoption)
  std::deque<RankThread> threads(size_t(options.ranks));
  for (int rank : ranksHere) world.rankStarted(rank);
  // A rank that arrives after a live move starts on a new thread, bound as
  // its first one was.
  std::vector<int> cpuOfRank(options.ranks, -1);
  if (pin)
    for (int rank = 0; rank < options.ranks; ++rank) cpuOfRank[rank] = cpus[rank];
  remaker.startThread = [&cpuOfRank, &ranksHere](RankThread& job) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kRankStackBytes);
    size_t local = size_t(std::find(ranksHere.begin(), ranksHere.end(), job.rank) - ranksHere.begin());
    // A rank taken in from another part is not pinned.
    if (local < cpuOfRank.size() && cpuOfRank[local] >= 0) {
      cpu_set_t cpu;
      CPU_ZERO(&cpu);
      CPU_SET(cpuOfRank[local], &cpu);
      pthread_attr_setaffinity_np(&attr, sizeof(cpu), &cpu);
    }
    bool started = pthread_create(&job.thread, &attr, runRank, &job) == 0;
    pthread_attr_destroy(&attr);
    return started;
  };
  // A rank a live move between parts brings here (BarrierControlPoint::
  // setRankAdoption): its output streams and a thread that arrives (its
  // progress on each communicator comes with its bytes: RankMove.h).
  auto takeIn = [&](int worldRank, std::string& error) {
    if (worldRank < 0 || worldRank >= worldSize || world.isRemote(worldRank)) {
      error = "rank " + std::to_string(worldRank) + " cannot be taken in here (the job has " +
              std::to_string(worldSize) + " ranks, and this part's table must hold it)";
      return false;
    }
    std::lock_guard<std::mutex> guard(mutex);
    for (const RankThread& other : threads)
      if (other.rank == worldRank) {
        error = "rank " + std::to_string(worldRank) + " already runs here";
        return false;
      }
    int fds[2];
    if (!output.addRank(worldRank, fds)) {
      error = "cannot make the output streams of rank " + std::to_string(worldRank);
      return false;
    }
    granules.emplace_back();
    RankThread& job = threads.emplace_back();
    job.rank = worldRank;
    job.granule = &granules.back();
    job.world = &world;
    job.mutex = &mutex;
    job.finished = &finished;
    job.finishedCount = &finishedCount;
    job.remaker = &remaker;
    job.arrivingStdio[0] = fds[0];
    job.arrivingStdio[1] = fds[1];
    world.rankStarted(worldRank);
    job.started = remaker.startThread(job);
    if (!job.started) {
      ::close(fds[0]);
      ::close(fds[1]);
      world.rankFinished(worldRank);
      error = "cannot start a thread for rank " + std::to_string(worldRank);
      return false;
    }
    ++expectedCount;
    return true;
  };
  // Before the ranks start: a live move into this part can come at their
  // first control points, before this thread would otherwise get here
  // (under load it did not: "the launcher takes no rank in").
  if (controlPoint)
    controlPoint->setRankAdoption([&](int worldRank, std::string& error) {
      bool taken = takeIn(worldRank, error);
      if (!taken) world.abort(2, "rank " + std::to_string(worldRank) + ": " + error);
      return taken;
    });
  for (int rank = 0; rank < options.ranks; ++rank) {
    RankThread& job = threads[rank];
    job.rank = ranksHere[rank];
    job.granule = &granules[rank];
    job.world = &world;
    job.mutex = &mutex;
    job.finished = &finished;
    job.finishedCount = &finishedCount;
    job.remaker = &remaker;
    job.started = remaker.startThread(job);
    if (!job.started) {
      world.abort(2, "cannot start a thread for rank " + std::to_string(job.rank));
      world.rankFinished(job.rank);
      std::lock_guard<std::mutex> guard(mutex);
      ++finishedCount;
    }
  }

  std::unique_lock<std::mutex> lock(mutex);
  std::optional<std::chrono::steady_clock::time_point> abortDeadline;
  int stableTicks = deadlockTicks();
  while (finishedCount < expectedCount) {
    finished.wait_for(lock, kWatchdogTick);
    if (finishedCount == expectedCount) break;
    lock.unlock();
    if (auto report = world.checkDeadlock(stableTicks))
      world.abort(kDeadlockExitCode, *report);
    bool aborted = world.aborted();
    lock.lock();
    if (!aborted) continue;
    auto now = std::chrono::steady_clock::now();
    if (!abortDeadline) abortDeadline = now + kAbortGrace;
    if (now >= *abortDeadline) {
      // Ranks still computing cannot be unwound; end the process as mpirun
      // ends the job, after passing on what they printed.
      lock.unlock();
      if (options.leaveHosts) options.leaveHosts();
      output.flushNow();
      reportAbort(world);
      std::fflush(stderr);
      ::_exit(world.abortStatus());
    }
  }
  lock.unlock();
  if (controlPoint) controlPoint->setRankAdoption({});
  // A rank that moved ended on the thread it arrived on; the threads it
  // left detached themselves.
  for (RankThread& job : threads)
    if (job.started) pthread_join(job.thread, nullptr);
  if (options.leaveHosts) options.leaveHosts();
  if (std::any_of(granules.begin(), granules.end(),
                  [](const auto& granule) { return granule && granule->threadsOutliveRun(); })) {
    // exit() ends a process's other threads wherever they are; host threads
    // cannot be ended so, and destroying the granules would free what they
    // still use (a detached pthread's mutex, its proxy's copy of a thread
    // host's memory), so the process ends here, as exit() would.
    output.flushNow();
    int status = 0;
    if (world.aborted()) {
      reportAbort(world);
      status = world.abortStatus();
    }
    if (options.reportAtEnd) options.reportAtEnd();
    std::fflush(nullptr);
    ::_exit(status);
  }
  granule::setProcessEndHook({});
  // Destroying the granules closes their pipes, which ends the forwarding.
  granules.clear();
  output.finish();
  if (BarrierControlPoint* controlPoint = options.barrierControlPoint) {
    controlPoint->setOutputDrain({});
    controlPoint->setOutputCount({});
    controlPoint->setQuiescenceCheck({});
    controlPoint->setRankWaiting({});
  }
  if (world.aborted()) {
    reportAbort(world);
    return world.abortStatus();
  }
  return 0;
}

}  // namespace synergy::mpi
