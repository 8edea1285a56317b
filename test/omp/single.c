// MODE: openmp
//===- single.c - single with and without nowait, and copyprivate ---------===//
//
// Each `single` must run exactly once per encounter by the team, whichever
// thread gets it; its implicit barrier must hold the others back until the
// value it wrote is visible, `nowait` must not deadlock when the team then
// meets a barrier elsewhere, and copyprivate must broadcast the executing
// thread's private values (a scalar and an array) to every thread.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 200 };

int main(void) {
  int executions = 0, nowait_executions = 0, stale_reads = 0, copies_wrong = 0;
  int shared_value = -1;
  int threads = 0;

#pragma omp parallel reduction(+ : stale_reads, copies_wrong)
  {
#pragma omp single
    threads = omp_get_num_threads();
    for (int round = 0; round < ROUNDS; ++round) {
#pragma omp single
      {
        executions += 1;
        shared_value = round * 7;
      }
      // The single's barrier makes its write visible here.
      stale_reads += shared_value != round * 7;
#pragma omp barrier

#pragma omp single nowait
      nowait_executions += 1;

      int broadcast;
      int block[4];
#pragma omp single copyprivate(broadcast, block)
      {
        broadcast = round * 3 + 1;
        for (int k = 0; k < 4; ++k)
          block[k] = round + k;
      }
      copies_wrong += broadcast != round * 3 + 1;
      for (int k = 0; k < 4; ++k)
        copies_wrong += block[k] != round + k;
    }
  }
  printf("threads %d\n", threads);
  printf("single executions %d nowait executions %d\n", executions, nowait_executions);
  printf("stale reads %d wrong copies %d\n", stale_reads, copies_wrong);
  return 0;
}
