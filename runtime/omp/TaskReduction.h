//===- TaskReduction.h - reductions over the tasks of a taskgroup ----------===//
//
// `taskgroup task_reduction(...)` with `in_reduction` tasks, and `taskloop
// reduction(...)` (which clang lowers to the same thing): __kmpc_taskred_init
// describes the reduced variables (kmp_taskred_input_t), every team thread
// gets a private copy of each, initialised by clang's initialiser, a task
// asks for its thread's copy with __kmpc_task_reduction_get_th_data, and the
// end of the taskgroup folds the copies into the variables with clang's
// combiner. Under --dsm the copies are written on the replicas of the
// threads that ran the tasks; the end of the taskgroup acquires before it
// folds them.
//
// `reduction(task, ...)` on a parallel or worksharing construct
// (__kmpc_taskred_modifier_init/__kmpc_task_reduction_modifier_fini) is one
// such reduction spanning the team: every member joins with its own private
// copy of the variables (which tasks may name as the reduced variable), the
// tasks they create belong to it, and at its end, once every member has
// arrived and every task is complete, each member folds the copy its tasks
// wrote into its own private variable, which clang's ordinary reduction then
// combines.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace synergy::omp {

class OmpThread;
struct TaskGroup;

struct TaskReductionItem {
  uint32_t shared = 0;  // the reduced variable
  uint32_t size = 0;
  uint32_t finalizer = 0;  // function table index, 0 for none
  uint32_t combiner = 0;
  std::vector<uint32_t> copies;  // guest blocks, one per team thread
  // For a team's reduction: each member's private variable (0 until it joins).
  std::vector<uint32_t> privates;
};

struct TaskReduction {
  uint32_t handle = 0;  // what __kmpc_taskred_init returned
  std::vector<TaskReductionItem> items;
  // For a team's reduction (empty otherwise): the taskgroup each member had
  // open before joining, and how many members joined, reached the end and
  // left it.
  std::vector<std::shared_ptr<TaskGroup>> outerOfMember;
  int joined = 0;
  std::atomic<int> arrived{0};
  std::atomic<int> left{0};
};

// Folds every private copy into its variable and frees the copies.
void combineTaskReduction(OmpThread& me, TaskReduction& reduction);

}  // namespace synergy::omp
