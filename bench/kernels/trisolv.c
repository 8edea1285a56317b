/*===- trisolv.c - forward substitution with a lower triangular matrix -----===*
 *
 * Solves L x = b for many right-hand sides, one after another: each row is
 * a dot product of a growing prefix of L's row with the solved part of x,
 * then a division. Reads the lower triangle of a large matrix once per
 * right-hand side, so it is bound by memory as much as by the dependency.
 *
 * Usage: trisolv [n]   (default n = 4000, 12 right-hand sides)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { RIGHT_HAND_SIDES = 12 };

static void trisolv(long n, const double *restrict l, const double *restrict b,
                    double *restrict x) {
  for (long i = 0; i < n; ++i) {
    double value = b[i];
    const double *restrict row = l + i * n;
    for (long j = 0; j < i; ++j)
      value -= row[j] * x[j];
    x[i] = value / row[i];
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 4000);
  double *l = kernel_alloc(n * n * sizeof(double));
  double *b = kernel_alloc(n * sizeof(double)), *x = kernel_alloc(n * sizeof(double));
  KernelRng rng = {116};
  kernel_fill_dominant(&rng, l, n, 0);
  kernel_fill_unit(&rng, b, n);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < RIGHT_HAND_SIDES; ++r) {
    trisolv(n, l, b, x);
    kernel_checksum_bytes(&sum, x, n * sizeof(double));
    b[r % n] += 1.0;
    kernel_round_end(&timer, 1);
  }
  printf("kernel trisolv n=%ld rhs=%d\n", n, RIGHT_HAND_SIDES);
  kernel_report(&sum, &timer);
  return 0;
}
