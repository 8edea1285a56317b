// MODE: openmp
//===- master_barrier.c - master, and barriers separating phases ----------===//
//
// A team alternates write and read phases on a shared array: every thread
// writes its own slot, waits at a barrier, then reads its neighbours'
// slots, which are only right if the barrier both waited and made the
// writes visible. `master` runs only on thread 0 and has no barrier, so an
// explicit one follows before the others read what it wrote.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { PHASES = 300, MAX_THREADS = 64 };

static int slots[MAX_THREADS];

int main(void) {
  int wrong_neighbours = 0, wrong_master = 0, master_runs = 0, master_thread_ok = 1;
  int phase_token = 0, threads = 0;

#pragma omp parallel reduction(+ : wrong_neighbours, wrong_master)
  {
    const int me = omp_get_thread_num();
    const int team = omp_get_num_threads();
#pragma omp master
    threads = team;
    for (int phase = 0; phase < PHASES; ++phase) {
      if (me < MAX_THREADS)
        slots[me] = phase * 1000 + me;
#pragma omp barrier
      const int left = (me + team - 1) % team, right = (me + 1) % team;
      if (left < MAX_THREADS && slots[left] != phase * 1000 + left)
        wrong_neighbours += 1;
      if (right < MAX_THREADS && slots[right] != phase * 1000 + right)
        wrong_neighbours += 1;
#pragma omp barrier
#pragma omp master
      {
        master_runs += 1;
        master_thread_ok &= omp_get_thread_num() == 0;
        phase_token = phase + 1;
      }
#pragma omp barrier
      if (phase_token != phase + 1)
        wrong_master += 1;
#pragma omp barrier
    }
  }
  printf("threads %d\n", threads);
  printf("wrong neighbour reads %d\n", wrong_neighbours);
  printf("master runs %d on thread 0 %s wrong master reads %d\n", master_runs,
         master_thread_ok ? "yes" : "no", wrong_master);
  return 0;
}
