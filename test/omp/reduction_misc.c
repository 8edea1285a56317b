// MODE: openmp
//===- reduction_misc.c - array-section, user-defined and orphaned reductions ===//
//
// Reductions beyond one scalar per clause: an array section (a histogram
// built from per-thread private copies), a `declare reduction` arg-min over
// a struct with a deterministic tie-break, an orphaned `omp for` reduction
// into a shared variable, and a reduction on a `nowait` loop whose result
// is read only after an explicit barrier.
//
//===----------------------------------------------------------------------===//
#include <limits.h>
#include <omp.h>
#include <stdio.h>

enum { LENGTH = 3001, BINS = 17 };

typedef struct {
  int value;
  int index;
} ArgMin;

static ArgMin arg_min_combine(ArgMin a, ArgMin b) {
  if (b.value < a.value || (b.value == a.value && b.index < a.index))
    return b;
  return a;
}

#pragma omp declare reduction(argmin:ArgMin : omp_out = arg_min_combine(omp_out, omp_in)) \
    initializer(omp_priv = (ArgMin){INT_MAX, INT_MAX})

static int data[LENGTH];
static long long orphaned_total;
static long long nowait_total;

static void orphaned_sum(void) {
#pragma omp for reduction(+ : orphaned_total) schedule(dynamic, 13)
  for (int i = 0; i < LENGTH; ++i)
    orphaned_total += data[i];
}

int main(void) {
  unsigned x = 12345u;
  for (int i = 0; i < LENGTH; ++i) {
    x = x * 1664525u + 1013904223u;
    data[i] = (int)(x >> 16) % 1000 - 500;
  }

  int histogram[BINS] = {0};
#pragma omp parallel for reduction(+ : histogram[:BINS])
  for (int i = 0; i < LENGTH; ++i)
    histogram[(data[i] + 500) % BINS] += 1;
  printf("histogram");
  for (int b = 0; b < BINS; ++b)
    printf(" %d", histogram[b]);
  printf("\n");

  long long moments[3] = {1000, 0, 0};
#pragma omp parallel for reduction(+ : moments[1:2]) schedule(guided)
  for (int i = 0; i < LENGTH; ++i) {
    moments[1] += data[i];
    moments[2] += (long long)data[i] * data[i];
  }
  printf("moments %lld %lld %lld\n", moments[0], moments[1], moments[2]);

  ArgMin best = {INT_MAX, INT_MAX};
#pragma omp parallel for reduction(argmin : best)
  for (int i = 0; i < LENGTH; ++i)
    best = arg_min_combine(best, (ArgMin){data[i], i});
  printf("argmin value %d index %d\n", best.value, best.index);

  orphaned_total = 0;
#pragma omp parallel
  orphaned_sum();
  printf("orphaned total %lld\n", orphaned_total);

  long long expected = 0;
  for (int i = 0; i < LENGTH; ++i)
    expected += (long long)data[i] * (i % 5);
  nowait_total = 0;
  int agreeing = 0;
#pragma omp parallel reduction(+ : agreeing)
  {
#pragma omp for reduction(+ : nowait_total) nowait
    for (int i = 0; i < LENGTH; ++i)
      nowait_total += (long long)data[i] * (i % 5);
#pragma omp barrier
    agreeing += nowait_total == expected;
  }
  printf("nowait total %lld every thread saw it %s\n", nowait_total,
         agreeing == omp_get_max_threads() ? "yes" : "no");
  return 0;
}
