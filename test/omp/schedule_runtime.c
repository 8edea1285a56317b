// MODE: openmp
//===- schedule_runtime.c - schedule(runtime) and schedule(auto) ----------===//
//
// With OMP_SCHEDULE unset the runtime schedule is the implementation's
// default, and schedule(auto) is the implementation's choice, so neither's
// layout is printed: only that each iteration ran once, each thread's
// iterations came in increasing order, and the reductions' values. Also
// covers an orphaned `omp for schedule(runtime)` inside a parallel region.
//
//===----------------------------------------------------------------------===//
#include "loop_check.h"

// Shared, as a worksharing reduction's list item must be.
static long long orphaned_sum;

static void orphaned_loop(int n) {
#pragma omp for schedule(runtime) reduction(+ : orphaned_sum)
  for (int i = 0; i < n; ++i) {
    record(i);
    orphaned_sum += (long long)i * i;
  }
}

int main(void) {
  int failures = 0;
  static const int counts[] = {0, 1, 7, 13, 999, 2049};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    long long sum = 0;

    loop_begin();
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (int i = 0; i < n; ++i) {
      record(i);
      sum += 3 * i + 1;
    }
    failures += !report("runtime", n, ANY, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
    sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (long long i = 8000000000ll; i > 8000000000ll - 11ll * n; i -= 11) {
      record((8000000000ll - i) / 11);
      sum += 8000000000ll - i;
    }
    failures += !report("runtime long long down", n, ANY, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
    sum = 0;
#pragma omp parallel for schedule(auto) reduction(+ : sum)
    for (unsigned i = 1; i <= (unsigned)n; ++i) {
      record(i - 1);
      sum += i;
    }
    failures += !report("auto unsigned", n, ANY, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
    orphaned_sum = 0;
#pragma omp parallel
    orphaned_loop(n);
    failures += !report("orphaned runtime", n, ANY, 0);
    printf("  sum %lld\n", orphaned_sum);
  }
  printf("failures %d\n", failures);
  return failures != 0;
}
