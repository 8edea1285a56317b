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
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

namespace synergy::omp {

class OmpThread;

struct TaskReductionItem {
  uint32_t shared = 0;  // the reduced variable
  uint32_t size = 0;
  uint32_t finalizer = 0;  // function table index, 0 for none
  uint32_t combiner = 0;
  std::vector<uint32_t> copies;  // guest blocks, one per team thread
};

struct TaskReduction {
  uint32_t handle = 0;  // what __kmpc_taskred_init returned
  std::vector<TaskReductionItem> items;
};

// Folds every private copy into its variable and frees the copies.
void combineTaskReduction(OmpThread& me, TaskReduction& reduction);

}  // namespace synergy::omp
