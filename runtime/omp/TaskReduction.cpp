//===- TaskReduction.cpp - reductions over the tasks of a taskgroup --------===//
#include "omp/TaskReduction.h"

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

uint32_t initialise(OmpThread& me, uint32_t count, uint32_t inputs) {
  Granule& granule = me.granule;
  const std::shared_ptr<Task>& task = currentTask(me);
  std::shared_ptr<TaskGroup> group = task->openGroup;
  if (!group) granule.trap("task reduction outside a taskgroup");
  if (group->reduction) granule.trap("a second task reduction in one taskgroup");
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
  TaskPool& pool = taskPoolOf(me);
  std::lock_guard guard(pool.lock);
  reduction->handle = ++pool.lastReductionHandle;
  uint32_t handle = reduction->handle;
  group->reduction = std::move(reduction);
  pool.reductions[handle] = group;
  return handle;
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
        if (item.shared == variable) found = item.copies[thread];
        for (uint32_t copy : item.copies)
          if (variable >= copy && variable < copy + std::max<uint32_t>(item.size, 1))
            found = variable;
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

uint32_t Z_envZ___kmpc_task_reduction_get_th_data(void* host, uint32_t, uint32_t handle,
                                                  uint32_t variable) {
  return threadCopy(ompThread(Granule::fromHost(host)), handle, variable);
}

}  // extern "C"
