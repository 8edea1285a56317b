// MODE: openmp
//===- thread_local.c - _Thread_local and threadprivate storage -----------===//
//
// Each thread counts the iterations it runs of a schedule(static, 3) loop,
// whose owner per iteration the spec fixes, in a _Thread_local counter and
// in a threadprivate one; the per-thread totals are printed in thread
// order. If the runtime shares either storage between threads, the counts
// merge and the table is wrong. threadprivate values must also persist into
// the next region of the same size, copyin must broadcast the master's
// value, and the master's copy is the original variable.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { ITERATIONS = 1003, MAX_THREADS = 64 };

static _Thread_local int tls_count;
static int tp_count;
#pragma omp threadprivate(tp_count)
static int tp_seed = 5;
#pragma omp threadprivate(tp_seed)

static int tls_totals[MAX_THREADS], tp_totals[MAX_THREADS], expected[MAX_THREADS];
static int persisted[MAX_THREADS], copied[MAX_THREADS];

int main(void) {
  int team = 0;
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
#pragma omp master
    team = omp_get_num_threads();
    tls_count = 0;
    tp_count = 0;
#pragma omp for schedule(static, 3)
    for (int i = 0; i < ITERATIONS; ++i) {
      tls_count += 1;
      tp_count += 1;
    }
    if (me < MAX_THREADS) {
      tls_totals[me] = tls_count;
      tp_totals[me] = tp_count;
    }
  }
  for (int i = 0; i < ITERATIONS; ++i)
    expected[(i / 3) % team] += 1;
  printf("team %d\n", team);
  int wrong = 0;
  for (int t = 0; t < team && t < MAX_THREADS; ++t) {
    printf("thread %d _Thread_local %d threadprivate %d\n", t, tls_totals[t], tp_totals[t]);
    wrong += tls_totals[t] != expected[t] || tp_totals[t] != expected[t];
  }
  printf("master's threadprivate after the region %d\n", tp_count);

  // Same team size, dynamic adjustment off: threadprivate values persist.
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
    if (me < MAX_THREADS)
      persisted[me] = tp_count;
  }
  int persisted_ok = 1;
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    persisted_ok &= persisted[t] == expected[t];
  printf("threadprivate persisted %s\n", persisted_ok ? "yes" : "no");

  tp_seed = 77;
#pragma omp parallel copyin(tp_seed)
  {
    const int me = omp_get_thread_num();
    if (me < MAX_THREADS)
      copied[me] = tp_seed;
    tp_seed += me;
  }
  int copied_ok = 1;
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    copied_ok &= copied[t] == 77;
  printf("copyin broadcast %s, master's copy afterwards %d\n", copied_ok ? "yes" : "no", tp_seed);
  printf("wrong totals %d\n", wrong);
  return wrong != 0;
}
