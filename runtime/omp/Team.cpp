//===- Team.cpp - OpenMP teams, their threads and the worker pool ----------===//
#include "omp/Team.h"

#include <pthread.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "omp/DsmTeam.h"
#include "omp/RemotePthreads.h"
#include "omp/RemoteThreads.h"
#include "omp/ThreadHostSync.h"

namespace synergy::omp {
namespace {

using granule::Granule;

constexpr uint32_t kWorkerStackBytes = 1u << 20;
constexpr int kSupportedActiveLevels = 255;

// The value of an environment variable for the guest: its own --env first,
// then the runtime's environment (OMP_NUM_THREADS=4 synergy-run ...).
const char* environmentValue(const Granule& granule, const std::string& name) {
  for (const std::string& entry : granule.config().env)
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=')
      return entry.c_str() + name.size() + 1;
  return std::getenv(name.c_str());
}

bool parsePositive(const char* text, int& value) {
  if (!text) return false;
  char* end = nullptr;
  long parsed = std::strtol(text, &end, 10);
  if (end == text || parsed <= 0 || parsed > INT_MAX) return false;
  value = int(parsed);
  return true;
}

Icvs icvsFromEnvironment(const Granule& root) {
  Icvs icvs;
  icvs.nthreads = onlineProcessors();
  // OMP_NUM_THREADS may be a list, one value per nesting level; as in
  // libgomp, a list also enables nesting.
  if (const char* threads = environmentValue(root, "OMP_NUM_THREADS")) {
    parsePositive(threads, icvs.nthreads);
    if (std::strchr(threads, ',')) icvs.maxActiveLevels = kSupportedActiveLevels;
  }
  if (const char* nested = environmentValue(root, "OMP_NESTED"))
    icvs.maxActiveLevels = (!strcasecmp(nested, "true") || !std::strcmp(nested, "1"))
                               ? kSupportedActiveLevels
                               : 1;
  int levels = 0;
  if (parsePositive(environmentValue(root, "OMP_MAX_ACTIVE_LEVELS"), levels))
    icvs.maxActiveLevels = std::min(levels, kSupportedActiveLevels);
  if (const char* dynamic = environmentValue(root, "OMP_DYNAMIC"))
    icvs.dynamic = !strcasecmp(dynamic, "true");
  if (const char* schedule = environmentValue(root, "OMP_SCHEDULE")) {
    std::string text = schedule;
    std::string kind = text.substr(0, text.find(','));
    if (kind.find(':') != std::string::npos) kind = kind.substr(kind.find(':') + 1);
    if (!strcasecmp(kind.c_str(), "static")) icvs.runScheduleKind = 1;
    else if (!strcasecmp(kind.c_str(), "dynamic")) icvs.runScheduleKind = 2;
    else if (!strcasecmp(kind.c_str(), "guided")) icvs.runScheduleKind = 3;
    else if (!strcasecmp(kind.c_str(), "auto")) icvs.runScheduleKind = 4;
    int chunk = 0;
    icvs.runScheduleChunk =
        text.find(',') != std::string::npos &&
                parsePositive(text.c_str() + text.find(',') + 1, chunk)
            ? chunk
            : (icvs.runScheduleKind == 1 ? 0 : 1);
  }
  return icvs;
}

// Calls the outlined region body as thread `threadNum`: it takes pointers to
// the global and bound thread ids, which live in a frame pushed on the
// granule's guest stack, then the shared arguments.
void invokeMicrotask(Granule& granule, int globalThreadId, int threadNum, uint32_t microtask,
                     const std::vector<uint32_t>& arguments) {
  uint32_t stackPointer = 0;
  granule.readGlobal32("__stack_pointer", stackPointer);
  uint32_t frame = (stackPointer - 16) & ~15u;
  int32_t* ids = granule.guestPtr<int32_t>(frame, 2);
  ids[0] = globalThreadId;
  ids[1] = threadNum;
  exchangeStackPointer(granule, frame);
  std::vector<uint32_t> callArguments = {frame, frame + 4};
  callArguments.insert(callArguments.end(), arguments.begin(), arguments.end());
  callTableFunction(granule, microtask, callArguments);
  exchangeStackPointer(granule, stackPointer);
}

}  // namespace

void runTeamMember(Team& team, OmpThread& member, Granule& granule) {
  if (team.dsm) team.dsm->enter(member.at.threadNum, granule);
  granule::RunResult result = granule.run([&] {
    invokeMicrotask(granule, member.globalThreadId(), member.at.threadNum, team.microtask,
                    team.arguments);
    finishImplicitTask(member);
  });
  if (!result.returned) {
    if (ThreadHostSync* remote = threadHostSyncOf(granule)) remote->endJob(member, result);
    endProcessFromThread(result);
  }
  if (team.dsm) team.dsm->leave(member.at.threadNum, granule);
}

int onlineProcessors() {
  static const int processors = [] {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? int(online) : 1;
  }();
  return processors;
}

bool Barrier::arriveAndWait() {
  uint32_t seen = generation();
  if (arrive()) {
    complete();
    return true;
  }
  generation_.waitWhileEquals(seen, spins_);
  return false;
}

bool Barrier::arrive() {
  return arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_;
}

void Barrier::complete() {
  arrived_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.wakeAll();
}

Team::Team(Team* parentTeam, int teamSize, int active, int parentNum, uint64_t spinCount,
           int barrierParties)
    : parent(parentTeam),
      size(teamSize),
      level(parentTeam ? parentTeam->level + 1 : 1),
      activeLevel(active),
      parentThreadNum(parentNum),
      localMembers(teamSize),
      spins(spinCount),
      barrier(barrierParties ? barrierParties : teamSize, spinCount),
      reductionLists(size_t(teamSize)) {}

Team::~Team() = default;

LoopShare& Team::loop(uint64_t index, const LoopShare& shape) {
  std::lock_guard guard(loopsLock_);
  auto& slot = loops_[index];
  if (!slot) {
    slot = std::make_unique<LoopShare>();
    slot->copyShape(shape);
  }
  return *slot;
}

void Team::finishLoop(uint64_t index) {
  std::lock_guard guard(loopsLock_);
  auto it = loops_.find(index);
  if (it != loops_.end() && it->second->finishedThreads.fetch_add(1) + 1 == size)
    loops_.erase(it);
}

OmpThread::OmpThread(Granule& owner) : granule(owner) {
  icvs = ompRuntime(owner).initialIcvs();
}

int OmpThread::globalThreadId() { return granule.extension<ThreadMember>().threadId(); }

OmpRuntime::OmpRuntime(ThreadGroup& group)
    : group_(group),
      initialIcvs_(icvsFromEnvironment(group.root())),
      spinCounts_(SpinCounts::fromEnvironment(environmentValue(group.root(), "OMP_WAIT_POLICY"),
                                              environmentValue(group.root(), "GOMP_SPINCOUNT"))) {
  if (ThreadHostLink* link = threadHostLink()) remote_ = std::make_unique<RemoteTeams>(*link);
}

uint64_t OmpRuntime::spinsForTeam(int threads) const {
  return spinCounts_.forTeam(threads, onlineProcessors(), group_.dsm());
}

OmpRuntime::~OmpRuntime() {
  shuttingDown_ = true;
  for (auto& worker : workers_) {
    worker->jobs.fetch_add(1);
    worker->jobs.wakeAll();
    // A worker still inside a region (the process is ending on a trap) may
    // never return; leave it, and its granule, to process exit.
    if (worker->busy) {
      pthread_detach(worker->host);
      (void)worker.release();
    } else {
      pthread_join(worker->host, nullptr);
    }
  }
}

std::vector<Worker*> OmpRuntime::acquireWorkers(Granule& spawner, int count) {
  std::vector<Worker*> chosen;
  std::lock_guard guard(poolLock_);
  for (auto& worker : workers_) {
    if (int(chosen.size()) == count) break;
    if (!worker->busy) chosen.push_back(worker.get());
  }
  while (int(chosen.size()) < count) {
    auto worker = std::make_unique<Worker>();
    worker->thread = group_.spawn(spawner, kWorkerStackBytes);
    spawner.extension<ThreadMember>().adopt(*worker->thread.granule, group_.nextThreadId());
    Worker* raw = worker.get();
    // A worker waits for its next region as a member of a team as large as
    // the pool with its master, as libgomp's docked threads do.
    uint64_t idleSpins = spinsForTeam(int(workers_.size()) + 2);
    if (!startHostThread(raw->host, [this, raw, idleSpins] { workerLoop(*raw, idleSpins); }))
      spawner.trap("cannot start a host thread for an OpenMP worker");
    chosen.push_back(worker.get());
    workers_.push_back(std::move(worker));
  }
  for (Worker* worker : chosen) worker->busy = true;
  return chosen;
}

void OmpRuntime::releaseWorkers(const std::vector<Worker*>& workers) {
  std::lock_guard guard(poolLock_);
  for (Worker* worker : workers) worker->busy = false;
}

void OmpRuntime::workerLoop(Worker& worker, uint64_t idleSpins) {
  Granule& granule = *worker.thread.granule;
  OmpThread& me = ompThread(granule);
  uint32_t seen = 0;
  for (;;) {
    worker.jobs.waitWhileEquals(seen, idleSpins);
    seen = worker.jobs.load(std::memory_order_acquire);
    if (shuttingDown_) return;
    Team& team = *worker.team;
    me.at = TeamPosition{};
    me.at.team = &team;
    me.at.threadNum = worker.threadNum;
    me.icvs = worker.icvs;
    // A team without replicas runs on its encountering thread's memory, with
    // its memory synchronisation (a thread host's copy and the RemoteSync
    // of the thread the team is nested in): not on what the worker was
    // spawned or last ran with.
    if (!team.dsm) {
      if (granule.linearMemory() != worker.memory) granule.rebindMemory(*worker.memory);
      granule.setMemorySync(worker.memorySync);
    }
    runTeamMember(team, me, granule);
    me.at.team = nullptr;
    if (team.workersRunning.fetch_sub(1, std::memory_order_acq_rel) == 1)
      team.workersRunning.wakeAll();
  }
}

MainCopy* OmpRuntime::sharedMainCopy(Team* parent) {
  if (DsmHub* hub = group_.existingDsmHub()) return &hub->mainCopy();
  for (Team* enclosing = parent; enclosing; enclosing = enclosing->parent)
    if (enclosing->dsm) return &enclosing->dsm->mainCopy();
  return nullptr;
}

void OmpRuntime::forkCall(OmpThread& encountering, uint32_t microtask,
                          std::vector<uint32_t> arguments) {
  Granule& granule = encountering.granule;
  refuseOnThreadHost(granule, "an OpenMP parallel region");
  int size = encountering.pushedNumThreads ? encountering.pushedNumThreads
                                           : encountering.icvs.nthreads;
  encountering.pushedNumThreads = 0;
  Team* parent = encountering.at.team;
  int activeLevel = parent ? parent->activeLevel : 0;
  if (activeLevel >= encountering.icvs.maxActiveLevels) size = 1;
  size = std::max(size, 1);

  // An outermost team of the main thread may spread over thread hosts: their
  // threads' numbers are placed there, the others run here. Not while a
  // pthread runs: it would write the memory the team's replicas meet in
  // directly, and its pthread mutexes are not shared with thread hosts; nor
  // a pthread's team, which would start a second region on the thread hosts
  // while the first runs (both hung pthread_openmp_mixed.c).
  std::vector<std::vector<int>> placement;
  if (remote_ && !parent && &granule == &group_.root() && !group_.existingDsmHub() &&
      !group_.pthreadsRunning())
    placement = remote_->placeThreads(size);
  std::vector<int> localThreads, remoteThreads;
  for (const std::vector<int>& threads : placement)
    remoteThreads.insert(remoteThreads.end(), threads.begin(), threads.end());
  for (int thread = 0; thread < size; ++thread)
    if (std::find(remoteThreads.begin(), remoteThreads.end(), thread) == remoteThreads.end())
      localThreads.push_back(thread);
  int local = int(localThreads.size());
  // Each thread host takes part in the team's barriers as one party.
  Team team(parent, size, activeLevel + (size > 1 ? 1 : 0), encountering.at.threadNum,
            spinsForTeam(size), local + int(placement.size()));
  team.microtask = microtask;
  team.arguments = std::move(arguments);
  team.localMembers = local;
  std::vector<Worker*> workers = acquireWorkers(granule, local - 1);
  if (!placement.empty()) {
    team.spansHosts = true;
    uint32_t hosts = uint32_t(placement.size());
    team.combineAcrossHosts = [this, hosts](Granule& leader, uint32_t list, uint32_t combiner) {
      remote_->combineReductions(leader, hosts, list, combiner);
    };
    remote_->startRegion(granule, team, placement);
    team.dsm = std::make_unique<DsmTeam>(granule, size, nullptr, remoteThreads,
                                         int(placement.size()));
    remote_->serveRegion(granule, team, placement);
  } else if (MainCopy* shared = sharedMainCopy(parent); (group_.dsm() || shared) && size > 1) {
    // A team nested in one on replicas (under --dsm, or in a team that spans
    // hosts) is on replicas of the same main copy: its workers may not share
    // the encountering thread's replica, which only one thread may use and
    // which ends with the enclosing region while pooled workers live on.
    team.dsm = std::make_unique<DsmTeam>(granule, size, shared);
  }

  TeamPosition saved = encountering.at;
  team.workersRunning.store(uint32_t(local - 1), std::memory_order_relaxed);
  for (int i = 0; i < local - 1; ++i) {
    Worker& worker = *workers[i];
    worker.team = &team;
    worker.threadNum = localThreads[size_t(i) + 1];
    worker.icvs = encountering.icvs;
    worker.memory = granule.linearMemory();
    worker.memorySync = granule.memorySync();
    worker.jobs.fetch_add(1, std::memory_order_release);
    worker.jobs.wakeOne();
  }
  encountering.at = TeamPosition{};
  encountering.at.team = &team;
  runTeamMember(team, encountering, granule);
  for (uint32_t running; (running = team.workersRunning.load(std::memory_order_acquire)) != 0;)
    team.workersRunning.waitWhileEquals(running, team.spins);
  if (!placement.empty()) remote_->joinRegion();
  if (team.dsm) team.dsm->join(granule);
  releaseWorkers(workers);
  encountering.at = saved;
}

OmpThread& ompThread(Granule& granule) { return granule.extension<OmpThread>(); }

OmpRuntime& ompRuntime(Granule& granule) {
  return granule.extension<ThreadMember>().group().openmp();
}

}  // namespace synergy::omp
