// MODE: openmp
//===- schedule_dynamic.c - dynamic schedules over odd iteration spaces ---===//
//
// schedule(dynamic) and schedule(dynamic, c) on ascending, descending,
// strided, unsigned and 64-bit loops. Which thread takes a chunk is luck, so
// only the spec's guarantees are printed: each iteration once, each thread's
// chunks in increasing order, and each chunk of c iterations run whole by
// one thread. A sum over the iterations checks the loop variable's values.
//
//===----------------------------------------------------------------------===//
#include "loop_check.h"

int main(void) {
  int failures = 0;
  static const int counts[] = {0, 1, 2, 7, 13, 997, 1001};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    long long sum = 0;

    loop_begin();
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < n; ++i)
      record(i);
    failures += !report("dynamic", n, ANY, 0);

    loop_begin();
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = n - 1; i >= 0; --i)
      record(n - 1 - i);
    failures += !report("dynamic,4 down", n, WHOLE_CHUNKS, 4);

    loop_begin();
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : sum)
    for (int i = -20; i < -20 + 5 * n; i += 5) {
      record((i + 20) / 5);
      sum += i;
    }
    failures += !report("dynamic,3 stride 5", n, WHOLE_CHUNKS, 3);
    printf("  sum %lld\n", sum);

    loop_begin();
#pragma omp parallel for schedule(dynamic, 2)
    for (unsigned i = 4000000000u; i < 4000000000u + (unsigned)n; ++i)
      record(i - 4000000000u);
    failures += !report("dynamic,2 unsigned", n, WHOLE_CHUNKS, 2);

    loop_begin();
    sum = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum)
    for (long long i = 6000000000ll + 3ll * n; i > 6000000000ll; i -= 3) {
      record((6000000000ll + 3ll * n - i) / 3);
      sum += i;
    }
    failures += !report("dynamic,16 long long down", n, WHOLE_CHUNKS, 16);
    printf("  sum %lld\n", sum);

    loop_begin();
#pragma omp parallel for schedule(dynamic, 5)
    for (unsigned long long i = 0; i < (unsigned long long)n; ++i)
      record((long long)i);
    failures += !report("dynamic,5 unsigned long long", n, WHOLE_CHUNKS, 5);
  }
  printf("failures %d\n", failures);
  return failures != 0;
}
