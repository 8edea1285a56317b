//===- TaskReduction.cpp - reductions over the tasks of a taskgroup --------===//
#include "omp/TaskReduction.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "omp/Team.h"

using synergy::granule::Granule;

namespace synergy::omp {
namespace {

// kmp_taskred_input_t on wasm32: shared, original, size, init, fini,
// combiner, flags.
constexpr uint32_t kInputBytes = 28;
constexpr uint32_t kSharedField = 0;
constexpr uint32_t kOriginalField = 4;
constexpr uint32_t kSizeField = 8;
constexpr uint32_t kInitField = 12;
constexpr uint32_t kFinalizerField = 16;
constexpr uint32_t kCombinerField = 20;

uint32_t readWord(Granule& granule, uint32_t address) {
  return *granule.guestPtr<uint32_t>(address);
}

// A reduction over `count` kmp_taskred_input_t at `inputs`, with a private
// copy of each variable per team thread, initialised by clang's initialiser.
std::unique_ptr<TaskReduction> createReduction(OmpThread& me, uint32_t count, uint32_t inputs) {
  Granule& granule = me.granule;
  auto reduction = std::make_unique<TaskReduction>();
  size_t threads = size_t(me.teamSize());
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t input = inputs + i * kInputBytes;
    TaskReductionItem item;
    item.shared = readWord(granule, input + kSharedField);
    uint32_t original = readWord(granule, input + kOriginalField);
    item.size = readWord(granule, input + kSizeField);
    uint32_t init = readWord(granule, input + kInitField);
    item.finalizer = readWord(granule, input + kFinalizerField);
    item.combiner = readWord(granule, input + kCombinerField);
    if (!item.combiner) granule.trap("task reduction without a combiner");
    for (size_t t = 0; t < threads; ++t) {
      uint32_t copy = guestMalloc(granule, std::max<uint32_t>(item.size, 1));
      if (!copy) granule.trap("out of guest memory for a task reduction");
      if (init)
        callTableFunction(granule, init, {copy, original ? original : item.shared});
      else
        std::memset(granule.guestPtr<uint8_t>(copy, item.size), 0, item.size);
      item.copies.push_back(copy);
    }
    reduction->items.push_back(std::move(item));
  }
  return reduction;
}

// Gives `group` the reduction and a handle its tasks can name it by.
uint32_t publish(TaskPool& pool, const std::shared_ptr<TaskGroup>& group,
                 std::unique_ptr<TaskReduction> reduction) {
  std::lock_guard guard(pool.lock);
  reduction->handle = ++pool.lastReductionHandle;
  uint32_t handle = reduction->handle;
  group->reduction = std::move(reduction);
  pool.reductions[handle] = group;
  return handle;
}

uint32_t initialise(OmpThread& me, uint32_t count, uint32_t inputs) {
  std::shared_ptr<TaskGroup> group = currentTask(me)->openGroup;
  if (!group) me.granule.trap("task reduction outside a taskgroup");
  if (group->reduction) me.granule.trap("a second task reduction in one taskgroup");
  return publish(taskPoolOf(me), group, createReduction(me, count, inputs));
}

// The members of the thread's team that take part in a team reduction
// here: in a team that spans hosts each process runs its own (a task runs
// on the host that created it, so a member's copy only gathers its own
// host's tasks), and the members' private variables then meet in the
// ordinary reduction across hosts.
int membersHere(OmpThread& me) { return me.at.team ? me.at.team->localMembers : 1; }

// A member joins the team's reduction(task, ...) construct, starting it if
// it is the first: its private variables are named in `inputs`, and the
// tasks it creates from now on belong to the construct's taskgroup.
uint32_t joinTeamReduction(OmpThread& me, uint32_t count, uint32_t inputs) {
  Granule& granule = me.granule;
  TaskPool& pool = taskPoolOf(me);
  const std::shared_ptr<Task>& task = currentTask(me);
  size_t threads = size_t(me.teamSize());
  size_t members = size_t(membersHere(me));
  size_t member = size_t(me.at.threadNum);
  std::lock_guard guard(pool.teamReductionLock);
  std::shared_ptr<TaskGroup>& group = pool.teamReduction;
  if (!group || size_t(group->reduction->joined) == members) {
    group = std::make_shared<TaskGroup>();
    group->outer = task->openGroup;
    std::unique_ptr<TaskReduction> reduction = createReduction(me, count, inputs);
    reduction->outerOfMember.resize(threads);
    for (TaskReductionItem& item : reduction->items) item.privates.assign(threads, 0);
    publish(pool, group, std::move(reduction));
    // The copies' initial values reach the replicas of the threads whose
    // tasks update them.
    releaseForTasks(me);
  }
  TaskReduction& reduction = *group->reduction;
  if (reduction.items.size() != count) granule.trap("team task reduction of another shape");
  {
    // Other members' tasks look the private variables up under the pool's lock.
    std::lock_guard poolGuard(pool.lock);
    for (uint32_t i = 0; i < count; ++i)
      reduction.items[i].privates[member] =
          readWord(granule, inputs + i * kInputBytes + kSharedField);
  }
  reduction.outerOfMember[member] = task->openGroup;
  ++reduction.joined;
  task->openGroup = group;
  return reduction.handle;
}

// The end of the team's reduction(task, ...) construct for one member: once
// every member is here and every task of the construct complete, the member
// folds the copy its thread's tasks updated into its private variable.
void leaveTeamReduction(OmpThread& me) {
  Granule& granule = me.granule;
  const std::shared_ptr<Task>& task = currentTask(me);
  std::shared_ptr<TaskGroup> group = task->openGroup;
  if (!group || !group->reduction || group->reduction->outerOfMember.empty())
    granule.trap("__kmpc_task_reduction_modifier_fini without a task reduction");
  TaskReduction& reduction = *group->reduction;
  int members = membersHere(me);
  TaskPool& pool = taskPoolOf(me);
  reduction.arrived.fetch_add(1, std::memory_order_acq_rel);
  pool.signal();
  runTasksAsAtBarrier(me, [&] {
    return reduction.arrived.load(std::memory_order_acquire) == members &&
           group->pending.load(std::memory_order_acquire) == 0;
  });
  acquireForTasks(me);
  size_t member = size_t(me.at.threadNum);
  for (TaskReductionItem& item : reduction.items) {
    uint32_t copy = item.copies[member];
    callTableFunction(granule, item.combiner, {item.privates[member], copy});
    if (item.finalizer) callTableFunction(granule, item.finalizer, {copy});
    guestFree(granule, copy);
  }
  task->openGroup = reduction.outerOfMember[member];
  if (reduction.left.fetch_add(1, std::memory_order_acq_rel) + 1 == members) {
    std::lock_guard guard(pool.lock);
    pool.reductions.erase(reduction.handle);
  }
}

// The calling thread's copy of `variable` (a reduced variable, or already a
// copy) in the reduction `handle`, or in the innermost enclosing one.
uint32_t threadCopy(OmpThread& me, uint32_t handle, uint32_t variable) {
  TaskPool& pool = taskPoolOf(me);
  size_t thread = size_t(me.at.threadNum);
  uint32_t found = 0;
  {
    std::lock_guard guard(pool.lock);
    std::shared_ptr<TaskGroup> group;
    if (handle) {
      auto it = pool.reductions.find(handle);
      if (it != pool.reductions.end()) group = it->second;
    } else {
      group = currentTask(me)->openGroup;
    }
    for (; group && !found; group = handle ? nullptr : group->outer) {
      if (!group->reduction) continue;
      for (const TaskReductionItem& item : group->reduction->items) {
        if (thread >= item.copies.size()) break;
        if (item.shared == variable ||
            std::find(item.privates.begin(), item.privates.end(), variable) !=
                item.privates.end())
          found = item.copies[thread];
        // A task nested in a task of the reduction names the copy of the
        // thread that ran its parent; it updates its own thread's.
        for (uint32_t copy : item.copies)
          if (variable >= copy && variable < copy + std::max<uint32_t>(item.size, 1))
            found = item.copies[thread] + (variable - copy);
        if (found) break;
      }
    }
  }
  if (!found) me.granule.trap("in_reduction variable without an enclosing task reduction");
  return found;
}

}  // namespace

void combineTaskReduction(OmpThread& me, TaskReduction& reduction) {
  Granule& granule = me.granule;
  for (TaskReductionItem& item : reduction.items) {
    for (uint32_t copy : item.copies) {
      callTableFunction(granule, item.combiner, {item.shared, copy});
      if (item.finalizer) callTableFunction(granule, item.finalizer, {copy});
      guestFree(granule, copy);
    }
    item.copies.clear();
  }
}

}  // namespace synergy::omp

using namespace synergy::omp;

extern "C" {

uint32_t Z_envZ___kmpc_taskred_init(void* host, uint32_t, uint32_t count, uint32_t inputs) {
  return initialise(ompThread(Granule::fromHost(host)), count, inputs);
}

uint32_t Z_envZ___kmpc_taskred_modifier_init(void* host, uint32_t, uint32_t, uint32_t,
                                             uint32_t count, uint32_t inputs) {
  return joinTeamReduction(ompThread(Granule::fromHost(host)), count, inputs);
}

void Z_envZ___kmpc_task_reduction_modifier_fini(void* host, uint32_t, uint32_t, uint32_t) {
  leaveTeamReduction(ompThread(Granule::fromHost(host)));
}

uint32_t Z_envZ___kmpc_task_reduction_get_th_data(void* host, uint32_t, uint32_t handle,
                                                  uint32_t variable) {
  return threadCopy(ompThread(Granule::fromHost(host)), handle, variable);
}

}  // extern "C"
