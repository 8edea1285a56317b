// MODE: openmp
//===- schedule_static.c - static schedules over odd iteration spaces -----===//
//
// schedule(static) and schedule(static, c) on loops of every shape the
// compiler lowers differently: ascending, descending, strided, unsigned,
// 64-bit and beyond-32-bit bounds, empty and one-iteration loops. With a
// chunk size the spec fixes the round-robin owner of every iteration; without
// one it fixes only that each thread gets at most one contiguous chunk, and
// that two such loops of the same size give each thread the same iterations
// (which is what makes the `nowait` consumer below correct).
//
//===----------------------------------------------------------------------===//
#include "loop_check.h"

static int produced[MAX_ITERATIONS];

int main(void) {
  int failures = 0;
  static const int counts[] = {0, 1, 2, 7, 13, 997, 1001};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];

    loop_begin();
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i)
      record(i);
    failures += !report("static up", n, CONTIGUOUS, 0);

    loop_begin();
#pragma omp parallel for schedule(static)
    for (int i = n - 1; i >= 0; --i)
      record(n - 1 - i);
    failures += !report("static down", n, CONTIGUOUS, 0);

    loop_begin();
#pragma omp parallel for schedule(static, 1)
    for (int i = 0; i < n; ++i)
      record(i);
    failures += !report("static,1", n, ROUND_ROBIN, 1);
    if (n == 13)
      print_owners(n);

    loop_begin();
#pragma omp parallel for schedule(static, 3)
    for (int i = 5; i < 5 + 3 * n; i += 3)
      record((i - 5) / 3);
    failures += !report("static,3 stride 3", n, ROUND_ROBIN, 3);
    if (n == 13)
      print_owners(n);

    loop_begin();
#pragma omp parallel for schedule(static, 4)
    for (int i = 10; i > 10 - 7 * n; i -= 7)
      record((10 - i) / 7);
    failures += !report("static,4 stride -7", n, ROUND_ROBIN, 4);

    loop_begin();
#pragma omp parallel for schedule(static, 5)
    for (unsigned i = 4000000000u; i < 4000000000u + (unsigned)n; ++i)
      record(i - 4000000000u);
    failures += !report("static,5 unsigned", n, ROUND_ROBIN, 5);

    loop_begin();
#pragma omp parallel for schedule(static)
    for (long long i = 6000000000ll; i < 6000000000ll + n; ++i)
      record(i - 6000000000ll);
    failures += !report("static long long", n, CONTIGUOUS, 0);

    loop_begin();
#pragma omp parallel for schedule(static, 7)
    for (unsigned long long i = 0; i < 2ull * (unsigned long long)n; i += 2)
      record((long long)(i / 2));
    failures += !report("static,7 unsigned long long", n, ROUND_ROBIN, 7);
  }

  // Same static schedule, same trip count, same team: the same thread
  // produces and consumes each element, so nowait needs no barrier.
  int mismatches = 0;
#pragma omp parallel reduction(+ : mismatches)
  {
    const int me = omp_get_thread_num();
#pragma omp for schedule(static) nowait
    for (int i = 0; i < 1001; ++i)
      produced[i] = me * 100000 + i;
#pragma omp for schedule(static)
    for (int i = 0; i < 1001; ++i)
      mismatches += produced[i] != me * 100000 + i;
  }
  printf("nowait producer/consumer mismatches %d\n", mismatches);
  failures += mismatches != 0;
  printf("failures %d\n", failures);
  return failures != 0;
}
