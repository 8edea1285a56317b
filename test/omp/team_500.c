// MODE: openmp
// THREADS: 2
//===- team_500.c - a team of 500 threads, with tiny work ------------------===//
//
// `num_threads(500)` must give a team of 500, also under --dsm, where each
// member runs on a replica of its own (issue 18). Each member writes its own
// slot, reads a neighbour's after a barrier (so the barrier must carry every
// member's write to every other member), joins a region reduction and a
// worksharing-loop reduction, adds to a counter under `critical` and to
// another under an OpenMP lock; the main thread then prints checksums.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { TEAM = 500, ITERATIONS = 100000 };

static int written[TEAM];
static int seen[TEAM];

int main(void) {
  int team = 0;
  long long total = 0, loopSum = 0, criticalSum = 0, lockedCount = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel num_threads(TEAM) reduction(+ : total)
  {
    int me = omp_get_thread_num();
    int size = omp_get_num_threads();
    written[me] = me * 7 + 3;
#pragma omp barrier
    seen[me] = written[(me + 1) % size];
    total += me;
#pragma omp for reduction(+ : loopSum)
    for (int i = 0; i < ITERATIONS; ++i) loopSum += i % 13;
#pragma omp critical
    criticalSum += me * 3 + 1;
    omp_set_lock(&lock);
    lockedCount += 1;
    omp_unset_lock(&lock);
#pragma omp single
    team = size;
  }
  omp_destroy_lock(&lock);
  long long wrote = 0, read = 0;
  int mismatches = 0;
  for (int t = 0; t < team; ++t) {
    wrote += written[t];
    read += seen[t];
    mismatches += seen[t] != written[(t + 1) % team];
  }
  printf("team %d total %lld wrote %lld read %lld mismatches %d\n", team, total, wrote, read,
         mismatches);
  printf("loop %lld critical %lld locked %lld\n", loopSum, criticalSum, lockedCount);
  return 0;
}
