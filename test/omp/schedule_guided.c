// MODE: openmp
//===- schedule_guided.c - guided schedules over odd iteration spaces -----===//
//
// schedule(guided) and schedule(guided, c): chunks shrink as the loop
// drains, so their boundaries depend on timing. Printed: each iteration
// once, each thread's chunks in increasing order, and a sum over the
// loop variable's values. The loop bodies do uneven work so that threads
// really do come back for chunks at different times.
//
//===----------------------------------------------------------------------===//
#include "loop_check.h"

static unsigned spin(int amount) {
  unsigned x = (unsigned)amount;
  for (int k = 0; k < amount; ++k)
    x = x * 1103515245u + 12345u;
  return x;
}

int main(void) {
  int failures = 0;
  static const int counts[] = {0, 1, 2, 7, 13, 997, 1001, 4095};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    long long sum = 0;
    unsigned noise = 0;

    loop_begin();
#pragma omp parallel for schedule(guided) reduction(^ : noise)
    for (int i = 0; i < n; ++i) {
      record(i);
      noise ^= spin(i % 64);
    }
    failures += !report("guided", n, ANY, 0);
    printf("  noise %u\n", noise);

    loop_begin();
#pragma omp parallel for schedule(guided, 7) reduction(+ : sum)
    for (int i = n - 1; i >= 0; --i) {
      record(n - 1 - i);
      sum += i;
    }
    failures += !report("guided,7 down", n, ANY, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
    sum = 0;
#pragma omp parallel for schedule(guided, 3) reduction(+ : sum)
    for (long long i = 7000000000ll; i < 7000000000ll + 9ll * n; i += 9) {
      record((i - 7000000000ll) / 9);
      sum += i - 7000000000ll;
    }
    failures += !report("guided,3 long long stride 9", n, ANY, 0);
    printf("  sum %lld\n", sum);

    loop_begin();
#pragma omp parallel for schedule(guided, 2)
    for (unsigned i = 0; i < (unsigned)n; ++i)
      record(i);
    failures += !report("guided,2 unsigned", n, ANY, 0);
  }
  printf("failures %d\n", failures);
  return failures != 0;
}
