/*===- cholesky.c - Cholesky factorization in place ------------------------===*
 *
 * A = L L' for a symmetric positive definite A, overwriting the lower
 * triangle with L (row-oriented: each element is a dot product of two
 * partial rows). Triangular loops, a square root per row and a division per
 * element, all in a fixed order on both targets.
 *
 * Usage: cholesky [n]   (default n = 900)
 *
 *===----------------------------------------------------------------------===*/
#include <math.h>

#include "kernel_support.h"

static void cholesky(long n, double *restrict a) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = a + i * n;
    for (long j = 0; j < i; ++j) {
      const double *restrict other = a + j * n;
      double value = row[j];
      for (long k = 0; k < j; ++k)
        value -= row[k] * other[k];
      row[j] = value / other[j];
    }
    double diagonal = row[i];
    for (long k = 0; k < i; ++k)
      diagonal -= row[k] * row[k];
    row[i] = sqrt(diagonal);
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 900);
  double *a = kernel_alloc(n * n * sizeof(double));
  KernelRng rng = {113};
  kernel_fill_dominant(&rng, a, n, 1);

  KernelTimer timer = kernel_timer_start();
  cholesky(n, a);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, n * n * sizeof(double));
  printf("kernel cholesky n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
