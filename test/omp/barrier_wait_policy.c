// MODE: openmp
// THREADS: 2,8
// WAIT_POLICIES: passive,active
//===- barrier_wait_policy.c - many barriers under both wait policies -----===//
//
// Every kind of wait an OpenMP thread makes, many times over, with tiny work
// between them, run once with OMP_WAIT_POLICY=passive (waiters sleep at
// once) and once with active (they spin): explicit barriers in one region,
// many small parallel-for regions (a worker's wait for its next region and
// the master's for the end of it), a nowait reduction (the others wait for
// thread 0's release), an ordered loop (each iteration waits for its turn)
// and tasks a barrier waits for. A lost wake-up hangs the run; a barrier
// that opens early, or a write it does not publish, changes the sums.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { PHASES = 300, REGIONS = 100, CELLS = 64, MAX_THREADS = 64 };

static long slots[MAX_THREADS];
static long cells[CELLS];

int main(void) {
  long wrong_neighbours = 0;
  int team = 0;
#pragma omp parallel reduction(+ : wrong_neighbours)
  {
    const int me = omp_get_thread_num(), size = omp_get_num_threads();
#pragma omp master
    team = size;
    for (int phase = 0; phase < PHASES; ++phase) {
      slots[me] = (long)phase * 100 + me;
#pragma omp barrier
      const int next = (me + 1) % size;
      wrong_neighbours += slots[next] != (long)phase * 100 + next;
#pragma omp barrier
    }
  }

  long region_sum = 0;
  for (int region = 0; region < REGIONS; ++region) {
#pragma omp parallel for schedule(static) reduction(+ : region_sum)
    for (int i = 0; i < CELLS; ++i) {
      cells[i] += i ^ region;
      region_sum += cells[i] % 7;
    }
  }

  long nowait_sum = 0;
  char order[CELLS + 1] = {0};
  int order_length = 0;
  long task_sum = 0;
#pragma omp parallel
  {
    for (int round = 0; round < 50; ++round) {
#pragma omp for schedule(static) reduction(+ : nowait_sum) nowait
      for (int i = 0; i < CELLS; ++i) nowait_sum += (long)i * round;
#pragma omp barrier
    }
#pragma omp for ordered schedule(dynamic, 1)
    for (int i = 0; i < CELLS; ++i) {
#pragma omp ordered
      order[order_length++] = (char)('a' + i % 26);
    }
#pragma omp single
    for (int t = 0; t < 100; ++t) {
#pragma omp task shared(task_sum)
      {
#pragma omp atomic
        task_sum += t * t;
      }
    }
#pragma omp barrier
  }

  printf("team %d: %d barrier phases, %ld wrong neighbours\n", team, PHASES, wrong_neighbours);
  printf("%d regions: sum %ld\n", REGIONS, region_sum);
  printf("nowait reductions: %ld, tasks: %ld\n", nowait_sum, task_sum);
  printf("ordered: %s\n", order);
  return 0;
}
