//===- Tasking.cpp - OpenMP explicit tasks ----------------------------------===//
//
// The __kmpc_omp_task*, __kmpc_taskgroup, __kmpc_taskloop, omp_in_final and
// omp_fulfill_event host functions, and the task scheduling the team barrier
// and the end of a region share (see Tasking.h).
//
//===----------------------------------------------------------------------===//
#include "omp/Tasking.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "omp/Team.h"
#include "omp/ThreadHostSync.h"

using synergy::granule::Granule;

namespace synergy::omp {
namespace {

// kmp_tasking_flags_t bits of __kmpc_omp_task_alloc's flags.
constexpr int32_t kTiedFlag = 1;
constexpr int32_t kFinalFlag = 2;
constexpr int32_t kDestructorsThunkFlag = 8;

// kmp_task_t on wasm32: shareds, routine, part_id, data1 (the destructors
// thunk), data2 (priority).
constexpr uint32_t kSharedsField = 0;
constexpr uint32_t kRoutineField = 4;
constexpr uint32_t kDestructorsField = 12;
constexpr uint32_t kTaskHeaderBytes = 20;
constexpr uint32_t kMaxTaskBytes = 1u << 30;

// kmp_depend_info on wasm32: base address, length, flags byte.
constexpr uint32_t kDependInfoBytes = 12;
constexpr uint8_t kDependIn = 1;
constexpr uint8_t kDependAllMemory = 0x80;

// Ready tasks per team thread beyond which a new task runs at once.
constexpr size_t kQueuedTasksPerThread = 64;
// A dependence entry's reader list is pruned of completed tasks when it
// grows past this.
constexpr size_t kReadersBeforePruning = 64;

// __kmpc_taskloop's sched argument.
constexpr uint32_t kTaskloopGrainsize = 1;
constexpr uint32_t kTaskloopNumTasks = 2;
constexpr uint64_t kDefaultTaskloopTasksPerThread = 10;

struct DependRequest {
  uint32_t address;
  bool writes;
};

bool hasLiveTask(OmpThread& me, uint32_t address) {
  TaskPool& pool = taskPoolOf(me);
  std::lock_guard guard(pool.lock);
  return pool.live.count(address) != 0;
}

// Whether `me`'s team has threads on other hosts (omp/RemoteThreads.h).
bool inTeamAcrossHosts(const OmpThread& me) {
  return me.at.team && me.at.team->localMembers < me.at.team->size;
}

std::shared_ptr<Task> liveTask(OmpThread& me, uint32_t address) {
  TaskPool& pool = taskPoolOf(me);
  std::shared_ptr<Task> task;
  {
    std::lock_guard guard(pool.lock);
    auto it = pool.live.find(address);
    if (it != pool.live.end()) task = it->second;
  }
  if (!task) me.granule.trap("OpenMP task not allocated by __kmpc_omp_task_alloc in this team");
  return task;
}

// A host Task for the guest task at `address`, child of the running task.
std::shared_ptr<Task> registerTask(OmpThread& me, uint32_t address, uint32_t bytes,
                                   uint32_t sharedsOffset, int32_t flags, uint32_t routine) {
  const std::shared_ptr<Task>& parent = currentTask(me);
  auto task = std::make_shared<Task>();
  task->address = address;
  task->routine = routine;
  task->bytes = bytes;
  task->sharedsOffset = sharedsOffset;
  task->flags = flags;
  task->included = parent->final;
  task->final = (flags & kFinalFlag) || parent->final;
  task->parent = parent;
  task->group = parent->openGroup;
  task->openGroup = task->group;
  TaskPool& pool = taskPoolOf(me);
  task->pool = &pool;
  parent->children.fetch_add(1, std::memory_order_relaxed);
  if (task->group) task->group->pending.fetch_add(1, std::memory_order_relaxed);
  pool.unfinished.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard guard(pool.lock);
  pool.live[address] = task;
  return task;
}

// Ends a task whose last run returned (or a taskloop pattern that never
// runs): wakes its successors, frees its guest memory and tells whoever
// waits for it.
void complete(OmpThread& me, const std::shared_ptr<Task>& task) {
  Granule& granule = me.granule;
  if (task->flags & kDestructorsThunkFlag) {
    uint32_t thunk = *granule.guestPtr<uint32_t>(task->address + kDestructorsField);
    if (thunk)
      callTableFunctionU32(granule, thunk, {uint32_t(me.globalThreadId()), task->address});
  }
  TaskPool& pool = *task->pool;
  {
    std::lock_guard guard(pool.lock);
    task->completed.store(true, std::memory_order_release);
    pool.live.erase(task->address);
    for (const std::shared_ptr<Task>& successor : task->successors)
      if (--successor->pendingPredecessors == 0) pool.ready.push_back(successor);
    task->successors.clear();
    task->childDependences.clear();
  }
  guestFree(granule, task->address);
  task->parent->children.fetch_sub(1, std::memory_order_acq_rel);
  if (task->group) task->group->pending.fetch_sub(1, std::memory_order_acq_rel);
  pool.unfinished.fetch_sub(1, std::memory_order_acq_rel);
  pool.signal();
}

void finishRun(OmpThread& me, const std::shared_ptr<Task>& task) {
  if (task->runs.fetch_sub(1, std::memory_order_acq_rel) == 1) complete(me, task);
}

// Runs one run of `task` in the calling thread, as its current task.
void runTask(OmpThread& me, const std::shared_ptr<Task>& task) {
  Granule& granule = me.granule;
  std::shared_ptr<Task> interrupted = me.at.task;
  me.at.task = task;
  bool shared = me.teamSize() > 1;
  if (shared) acquireForTasks(me);
  callTableFunctionU32(granule, task->routine, {uint32_t(me.globalThreadId()), task->address});
  if (shared) releaseForTasks(me);
  me.at.task = std::move(interrupted);
  finishRun(me, task);
}

// Whether a thread whose innermost suspended tied task is `constraint` may
// start `candidate`: untied tasks always, tied ones only below it.
bool schedulable(const Task& candidate, const Task* constraint) {
  if (!constraint || !(candidate.flags & kTiedFlag)) return true;
  for (const Task* ancestor = candidate.parent.get(); ancestor; ancestor = ancestor->parent.get())
    if (ancestor == constraint) return true;
  return false;
}

// The oldest ready task the thread may start.
std::shared_ptr<Task> takeReady(TaskPool& pool, const Task* constraint) {
  std::lock_guard guard(pool.lock);
  auto it = std::find_if(pool.ready.begin(), pool.ready.end(),
                         [&](const auto& task) { return schedulable(*task, constraint); });
  if (it == pool.ready.end()) return nullptr;
  std::shared_ptr<Task> task = std::move(*it);
  pool.ready.erase(it);
  return task;
}

enum class Wait { Barrier, InTask };

// What a thread about to suspend its current task may start meanwhile: at a
// barrier anything; in a task, descendants of the innermost tied task it
// suspends (the current one unless that is untied).
const Task* constraintFor(OmpThread& me, Wait wait) {
  if (wait == Wait::Barrier) return nullptr;
  const Task& current = *currentTask(me);
  bool tied = current.address == 0 || (current.flags & kTiedFlag);
  return tied ? &current : me.at.suspendedTied;
}

// Completes a task whose event another host fulfilled after its routine
// returned, if any: true when it did.
bool completeOneFulfilledElsewhere(OmpThread& me, TaskPool& pool) {
  if (pool.fulfilledElsewhereCount.load(std::memory_order_acquire) == 0) return false;
  std::shared_ptr<Task> task;
  {
    std::lock_guard guard(pool.lock);
    if (pool.fulfilledElsewhere.empty()) return false;
    task = std::move(pool.fulfilledElsewhere.front());
    pool.fulfilledElsewhere.pop_front();
    pool.fulfilledElsewhereCount.fetch_sub(1, std::memory_order_acq_rel);
  }
  bool shared = me.teamSize() > 1;
  if (shared) acquireForTasks(me);
  complete(me, task);
  if (shared) releaseForTasks(me);
  return true;
}

// Runs ready tasks of `pool` until `done` holds.
template <typename Done>
void runTasksUntil(OmpThread& me, TaskPool& pool, Wait wait, Done done) {
  const Task* constraint = constraintFor(me, wait);
  const Task* outer = std::exchange(me.at.suspendedTied, constraint);
  for (;;) {
    if (done()) break;
    uint32_t seen = pool.events.load(std::memory_order_acquire);
    // Every ready task is unfinished, and queuing one moves `events`: with
    // none unfinished, a barrier or a join waits without the pool's lock.
    bool mayBeReady = pool.unfinished.load(std::memory_order_acquire) != 0;
    if (std::shared_ptr<Task> task = mayBeReady ? takeReady(pool, constraint) : nullptr) {
      runTask(me, task);
      continue;
    }
    if (mayBeReady && completeOneFulfilledElsewhere(me, pool)) continue;
    if (done()) break;
    pool.events.waitWhileEquals(seen, me.spins());
  }
  me.at.suspendedTied = outer;
}

std::vector<DependRequest> readDependences(Granule& granule, uint32_t list, uint32_t count,
                                           std::vector<DependRequest> requests = {}) {
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t entry = list + i * kDependInfoBytes;
    uint32_t address = *granule.guestPtr<uint32_t>(entry);
    uint8_t kind = *granule.guestPtr<uint8_t>(entry + 8);
    if (kind & kDependAllMemory) granule.trap("depend(omp_all_memory) is not supported");
    // out, inout, mutexinoutset and inoutset are all ordered as inout.
    requests.push_back({address, kind != kDependIn});
  }
  return requests;
}

// Makes `task` wait for the earlier sibling tasks it depends on. Under the
// pool's lock.
void addDependences(Task& parent, const std::shared_ptr<Task>& task,
                    const std::vector<DependRequest>& requests) {
  auto after = [&](const std::shared_ptr<Task>& predecessor) {
    if (!predecessor || predecessor == task || predecessor->completed.load()) return;
    predecessor->successors.push_back(task);
    ++task->pendingPredecessors;
  };
  for (const DependRequest& request : requests) {
    Dependence& entry = parent.childDependences[request.address];
    after(entry.lastWriter);
    if (request.writes) {
      for (const std::shared_ptr<Task>& reader : entry.readersSinceWriter) after(reader);
      entry.readersSinceWriter.clear();
      entry.lastWriter = task;
    } else {
      auto& readers = entry.readersSinceWriter;
      if (readers.size() >= kReadersBeforePruning)
        readers.erase(std::remove_if(readers.begin(), readers.end(),
                                     [](const auto& reader) { return reader->completed.load(); }),
                      readers.end());
      readers.push_back(task);
    }
  }
}

// Hands a task (or, for an untied task, one more run of it) to the team:
// queued for any thread once its dependences are met, or run at once in a
// team of one, inside a final task, or when the queue is long.
void spawn(OmpThread& me, const std::shared_ptr<Task>& task,
           const std::vector<DependRequest>& requests = {}) {
  TaskPool& pool = *task->pool;
  int threads = me.teamSize();
  bool deferrable = threads > 1 && !task->included;
  // The task's data (and whatever it reads) must reach the replica that
  // runs it, which may be queued as soon as its predecessors complete.
  if (deferrable) releaseForTasks(me);
  task->runs.fetch_add(1, std::memory_order_acq_rel);
  bool runNow;
  {
    std::lock_guard guard(pool.lock);
    if (!requests.empty()) addDependences(*task->parent, task, requests);
    if (task->pendingPredecessors > 0) return;  // its last predecessor queues it
    runNow = !deferrable || pool.ready.size() >= kQueuedTasksPerThread * size_t(threads);
    if (!runNow) pool.ready.push_back(task);
  }
  if (runNow) runTask(me, task);
  else pool.signal();
}

// Waits, running tasks meanwhile, until the earlier sibling tasks that
// `requests` depend on are complete.
void waitForDependences(OmpThread& me, const std::vector<DependRequest>& requests) {
  const std::shared_ptr<Task>& parent = currentTask(me);
  TaskPool& pool = taskPoolOf(me);
  std::vector<std::shared_ptr<Task>> predecessors;
  {
    std::lock_guard guard(pool.lock);
    for (const DependRequest& request : requests) {
      auto it = parent->childDependences.find(request.address);
      if (it == parent->childDependences.end()) continue;
      if (it->second.lastWriter) predecessors.push_back(it->second.lastWriter);
      if (request.writes)
        for (const auto& reader : it->second.readersSinceWriter) predecessors.push_back(reader);
    }
  }
  if (predecessors.empty()) return;
  runTasksUntil(me, pool, Wait::InTask, [&] {
    return std::all_of(predecessors.begin(), predecessors.end(),
                       [](const auto& task) { return task->completed.load(); });
  });
  acquireForTasks(me);
}

void beginTaskgroup(OmpThread& me) {
  const std::shared_ptr<Task>& task = currentTask(me);
  auto group = std::make_shared<TaskGroup>();
  group->outer = task->openGroup;
  task->openGroup = std::move(group);
}

void endTaskgroup(OmpThread& me) {
  const std::shared_ptr<Task>& task = currentTask(me);
  std::shared_ptr<TaskGroup> group = task->openGroup;
  if (!group) me.granule.trap("__kmpc_end_taskgroup without a taskgroup");
  runTasksUntil(me, taskPoolOf(me), Wait::InTask,
                [&] { return group->pending.load(std::memory_order_acquire) == 0; });
  task->openGroup = group->outer;
  acquireForTasks(me);
  if (group->reduction) {
    combineTaskReduction(me, *group->reduction);
    TaskPool& pool = taskPoolOf(me);
    std::lock_guard guard(pool.lock);
    pool.reductions.erase(group->reduction->handle);
  }
}

uint64_t taskloopTrips(uint64_t lower, uint64_t upper, int64_t stride) {
  if (stride > 0) {
    if (int64_t(upper) < int64_t(lower)) return 0;
    return (upper - lower) / uint64_t(stride) + 1;
  }
  if (stride < 0) {
    if (int64_t(lower) < int64_t(upper)) return 0;
    return (lower - upper) / (0 - uint64_t(stride)) + 1;
  }
  return 0;
}

// Splits a taskloop's pattern task into tasks of consecutive iterations: as
// in libomp, `grainsize` G gives trips/G tasks, `num_tasks` N gives
// min(N, trips), and the first trips % tasks tasks get one more iteration.
// Each task is a copy of the pattern with its own bounds; clang's task_dup
// then sets the last-iteration flag and copies firstprivates.
void taskloop(OmpThread& me, uint32_t patternAddress, bool deferred, uint32_t lowerAddress,
              uint32_t upperAddress, int64_t stride, bool nogroup, uint32_t schedule,
              uint64_t scheduleValue, uint32_t taskDup) {
  Granule& granule = me.granule;
  std::shared_ptr<Task> pattern = liveTask(me, patternAddress);
  uint32_t lowerOffset = lowerAddress - patternAddress;
  uint32_t upperOffset = upperAddress - patternAddress;
  if (uint64_t(lowerOffset) + 8 > pattern->bytes || uint64_t(upperOffset) + 8 > pattern->bytes)
    granule.trap("taskloop bounds outside the task");
  uint64_t lower = *granule.guestPtr<uint64_t>(lowerAddress);
  uint64_t upper = *granule.guestPtr<uint64_t>(upperAddress);
  uint64_t trips = taskloopTrips(lower, upper, stride);
  uint64_t tasks;
  if (schedule == kTaskloopGrainsize)
    tasks = std::max<uint64_t>(trips / std::max<uint64_t>(scheduleValue, 1), 1);
  else if (schedule == kTaskloopNumTasks)
    tasks = std::max<uint64_t>(scheduleValue, 1);
  else
    tasks = kDefaultTaskloopTasksPerThread * uint64_t(me.teamSize());
  tasks = std::min(tasks, trips);

  if (!nogroup) beginTaskgroup(me);
  uint64_t first = 0;
  for (uint64_t i = 0; i < tasks; ++i) {
    uint64_t count = trips / tasks + (i < trips % tasks ? 1 : 0);
    uint64_t chunkLower = lower + first * uint64_t(stride);
    uint64_t chunkUpper = chunkLower + (count - 1) * uint64_t(stride);
    first += count;
    uint32_t copy = guestMalloc(granule, pattern->bytes);
    if (!copy) granule.trap("out of guest memory for a taskloop task");
    std::memcpy(granule.guestPtr<uint8_t>(copy, pattern->bytes),
                granule.guestPtr<uint8_t>(patternAddress, pattern->bytes), pattern->bytes);
    if (pattern->sharedsOffset < pattern->bytes)
      *granule.guestPtr<uint32_t>(copy + kSharedsField) = copy + pattern->sharedsOffset;
    *granule.guestPtr<uint64_t>(copy + lowerOffset) = chunkLower;
    *granule.guestPtr<uint64_t>(copy + upperOffset) = chunkUpper;
    std::shared_ptr<Task> task = registerTask(me, copy, pattern->bytes, pattern->sharedsOffset,
                                              pattern->flags, pattern->routine);
    if (taskDup) callTableFunction(granule, taskDup, {copy, patternAddress, i + 1 == tasks});
    if (deferred) {
      spawn(me, task);
    } else {
      task->runs.fetch_add(1, std::memory_order_relaxed);
      runTask(me, task);
    }
  }
  complete(me, pattern);
  if (!nogroup) endTaskgroup(me);
}

}  // namespace

void acquireForTasks(OmpThread& me) {
  if (!threadHostSyncOf(me.granule)) acquireMemory(me.granule);
}

void releaseForTasks(OmpThread& me) {
  if (!threadHostSyncOf(me.granule)) releaseMemory(me.granule);
}

TaskPool& taskPoolOf(OmpThread& me) {
  if (me.at.team) return me.at.team->tasks;
  if (!me.soloTasks) me.soloTasks = std::make_unique<TaskPool>();
  return *me.soloTasks;
}

bool fulfilEventFromAnotherHost(TaskPool& pool, uint32_t event) {
  std::shared_ptr<Task> task;
  {
    std::lock_guard guard(pool.lock);
    auto it = pool.live.find(event);
    if (it == pool.live.end()) return false;
    task = it->second;
  }
  if (!task->eventPending.exchange(false, std::memory_order_acq_rel)) return false;
  if (task->runs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard guard(pool.lock);
    pool.fulfilledElsewhere.push_back(std::move(task));
    pool.fulfilledElsewhereCount.fetch_add(1, std::memory_order_acq_rel);
  }
  pool.signal();
  return true;
}

const std::shared_ptr<Task>& currentTask(OmpThread& me) {
  if (!me.at.task) me.at.task = std::make_shared<Task>();
  return me.at.task;
}

void taskingBarrier(OmpThread& me) {
  if (me.teamSize() <= 1) {
    // Tasks run at once in a team of one, except those that waited for a
    // detached task's event.
    TaskPool& pool = taskPoolOf(me);
    runTasksUntil(me, pool, Wait::Barrier,
                  [&] { return pool.unfinished.load(std::memory_order_acquire) == 0; });
    return;
  }
  Granule& granule = me.granule;
  Team& team = *me.at.team;
  TaskPool& pool = team.tasks;
  releaseMemory(granule);
  uint32_t generation = team.barrier.generation();
  if (team.barrier.arrive()) {
    runTasksUntil(me, pool, Wait::Barrier,
                  [&] { return pool.unfinished.load(std::memory_order_acquire) == 0; });
    team.barrier.complete();
    pool.signal();
  } else {
    runTasksUntil(me, pool, Wait::Barrier, [&] { return team.barrier.generation() != generation; });
  }
  acquireMemory(granule);
}

void runTasksAsAtBarrier(OmpThread& me, const std::function<bool()>& done) {
  runTasksUntil(me, taskPoolOf(me), Wait::Barrier, done);
}

void finishImplicitTask(OmpThread& me) {
  TaskPool& pool = me.at.team->tasks;
  runTasksUntil(me, pool, Wait::Barrier,
                [&] { return pool.unfinished.load(std::memory_order_acquire) == 0; });
  if (me.at.task) {
    std::lock_guard guard(pool.lock);
    me.at.task->childDependences.clear();
  }
}

}  // namespace synergy::omp

using namespace synergy::omp;

extern "C" {

uint32_t Z_envZ___kmpc_omp_task_alloc(void* host, uint32_t, uint32_t, uint32_t flags,
                                      uint32_t taskBytes, uint32_t sharedsBytes,
                                      uint32_t routine) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  uint32_t sharedsOffset = (std::max(taskBytes, kTaskHeaderBytes) + 7) & ~7u;
  if (taskBytes > kMaxTaskBytes || sharedsBytes > kMaxTaskBytes)
    granule.trap("OpenMP task too large");
  uint32_t bytes = sharedsOffset + sharedsBytes;
  uint32_t block = guestMalloc(granule, bytes);
  if (!block) granule.trap("out of guest memory for an OpenMP task");
  std::memset(granule.guestPtr<uint8_t>(block, sharedsOffset), 0, sharedsOffset);
  *granule.guestPtr<uint32_t>(block + kSharedsField) = sharedsBytes ? block + sharedsOffset : 0;
  *granule.guestPtr<uint32_t>(block + kRoutineField) = routine;
  registerTask(me, block, bytes, sharedsOffset, int32_t(flags), routine);
  return block;
}

uint32_t Z_envZ___kmpc_omp_task(void* host, uint32_t, uint32_t, uint32_t address) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  spawn(me, liveTask(me, address));
  return 0;
}

uint32_t Z_envZ___kmpc_omp_task_with_deps(void* host, uint32_t, uint32_t, uint32_t address,
                                          uint32_t count, uint32_t list, uint32_t noaliasCount,
                                          uint32_t noaliasList) {
  Granule& granule = Granule::fromHost(host);
  OmpThread& me = ompThread(granule);
  std::shared_ptr<Task> task = liveTask(me, address);
  spawn(me, task,
        readDependences(granule, noaliasList, noaliasCount,
                        readDependences(granule, list, count)));
  return 0;
}

// An undeferred task (if(0)): clang runs its routine between these two calls.
void Z_envZ___kmpc_omp_task_begin_if0(void* host, uint32_t, uint32_t, uint32_t address) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  std::shared_ptr<Task> task = liveTask(me, address);
  task->runs.fetch_add(1, std::memory_order_acq_rel);
  task->resumeAfterInline = currentTask(me);
  me.at.task = std::move(task);
}

void Z_envZ___kmpc_omp_task_complete_if0(void* host, uint32_t, uint32_t, uint32_t address) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  std::shared_ptr<Task> task = liveTask(me, address);
  me.at.task = std::move(task->resumeAfterInline);
  finishRun(me, task);
}

uint32_t Z_envZ___kmpc_omp_taskwait(void* host, uint32_t, uint32_t) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  std::shared_ptr<Task> task = currentTask(me);
  runTasksUntil(me, taskPoolOf(me), Wait::InTask,
                [&] { return task->children.load(std::memory_order_acquire) == 0; });
  acquireForTasks(me);
  return 0;
}

// `taskwait depend(...)`, and what clang emits before an undeferred task
// with dependences.
void Z_envZ___kmpc_omp_taskwait_deps_51(void* host, uint32_t, uint32_t, uint32_t count,
                                        uint32_t list, uint32_t noaliasCount,
                                        uint32_t noaliasList, uint32_t) {
  Granule& granule = Granule::fromHost(host);
  waitForDependences(ompThread(granule),
                     readDependences(granule, noaliasList, noaliasCount,
                                     readDependences(granule, list, count)));
}

void Z_envZ___kmpc_omp_wait_deps(void* host, uint32_t, uint32_t, uint32_t count, uint32_t list,
                                 uint32_t noaliasCount, uint32_t noaliasList) {
  Granule& granule = Granule::fromHost(host);
  waitForDependences(ompThread(granule),
                     readDependences(granule, noaliasList, noaliasCount,
                                     readDependences(granule, list, count)));
}

uint32_t Z_envZ___kmpc_omp_taskyield(void* host, uint32_t, uint32_t, uint32_t) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  const Task* outer = me.at.suspendedTied;
  const Task* constraint = constraintFor(me, Wait::InTask);
  if (std::shared_ptr<Task> task = takeReady(taskPoolOf(me), constraint)) {
    me.at.suspendedTied = constraint;
    runTask(me, task);
    me.at.suspendedTied = outer;
  }
  return 0;
}

void Z_envZ___kmpc_taskgroup(void* host, uint32_t, uint32_t) {
  beginTaskgroup(ompThread(Granule::fromHost(host)));
}

void Z_envZ___kmpc_end_taskgroup(void* host, uint32_t, uint32_t) {
  endTaskgroup(ompThread(Granule::fromHost(host)));
}

void Z_envZ___kmpc_taskloop(void* host, uint32_t, uint32_t, uint32_t address, uint32_t ifValue,
                            uint32_t lowerAddress, uint32_t upperAddress, uint64_t stride,
                            uint32_t nogroup, uint32_t schedule, uint64_t scheduleValue,
                            uint32_t taskDup) {
  taskloop(ompThread(Granule::fromHost(host)), address, ifValue != 0, lowerAddress,
           upperAddress, int64_t(stride), nogroup != 0, schedule, scheduleValue, taskDup);
}

// `task detach(event)`: the task completes once its routine has returned and
// the event is fulfilled, in either order. The event counts as one more run.
uint32_t Z_envZ___kmpc_task_allow_completion_event(void* host, uint32_t, uint32_t,
                                                   uint32_t address) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  std::shared_ptr<Task> task = liveTask(me, address);
  task->runs.fetch_add(1, std::memory_order_acq_rel);
  task->eventPending.store(true, std::memory_order_release);
  return address;
}

void Z_envZ_omp_fulfill_event(void* host, uint32_t event) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  // A task runs on the host that created it, in that host's pool: another
  // host of a team that spans hosts finds no task of this event here. A
  // thread host sends the event to the main host with its writes so far,
  // which fulfils it there or ends the job when it has no such task.
  if (!hasLiveTask(me, event)) {
    if (ThreadHostSync* sync = threadHostSyncOf(me.granule)) {
      sync->fulfilEvent(me, event);
      return;
    }
    if (inTeamAcrossHosts(me))
      me.granule.trap("omp_fulfill_event: the detached task was created on a thread host of a "
                      "team whose threads span hosts; fulfilling it on another host is not "
                      "supported");
  }
  std::shared_ptr<Task> task = liveTask(me, event);
  task->eventPending.store(false, std::memory_order_release);
  // What the fulfilling thread wrote before is part of the task's result.
  releaseForTasks(me);
  finishRun(me, task);
}

uint32_t Z_envZ_omp_in_final(void* host) {
  OmpThread& me = ompThread(Granule::fromHost(host));
  return me.at.task && me.at.task->final;
}

}  // extern "C"
