// MODE: openmp
// THREADS: 2
// MODES: shared
//===- team_500.c - a team of 500 threads, with tiny work ------------------===//
//
// `num_threads(500)` must give a team of 500. Each member writes its own
// slot, reads a neighbour's after a barrier (so the barrier must carry every
// member's write to every other member), and joins a reduction; the main
// thread then prints checksums. Shared memory only: --dsm still refuses a
// team that needs more than 256 dirty-tracked replicas (see issue 18).
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { TEAM = 500 };

static int written[TEAM];
static int seen[TEAM];

int main(void) {
  int team = 0;
  long long total = 0;
#pragma omp parallel num_threads(TEAM) reduction(+ : total)
  {
    int me = omp_get_thread_num();
    int size = omp_get_num_threads();
    written[me] = me * 7 + 3;
#pragma omp barrier
    seen[me] = written[(me + 1) % size];
    total += me;
#pragma omp single
    team = size;
  }
  long long wrote = 0, read = 0;
  int mismatches = 0;
  for (int t = 0; t < team; ++t) {
    wrote += written[t];
    read += seen[t];
    mismatches += seen[t] != written[(t + 1) % team];
  }
  printf("team %d total %lld wrote %lld read %lld mismatches %d\n", team, total, wrote, read,
         mismatches);
  return 0;
}
