/*===- gramschmidt.c - QR factorization by modified Gram-Schmidt -----------===*
 *
 * A (m x n) = Q R: each column is normalized (a square root), then projected
 * out of every later column. All column operations stride by a row, so this
 * is the column-access kernel of the suite.
 *
 * Usage: gramschmidt [n]   (default n = 500, square)
 *
 *===----------------------------------------------------------------------===*/
#include <math.h>

#include "kernel_support.h"

static void gramschmidt(long n, double *restrict a, double *restrict q, double *restrict r) {
  for (long k = 0; k < n; ++k) {
    double norm = 0.0;
    for (long i = 0; i < n; ++i)
      norm += a[i * n + k] * a[i * n + k];
    r[k * n + k] = sqrt(norm);
    for (long i = 0; i < n; ++i)
      q[i * n + k] = a[i * n + k] / r[k * n + k];
    for (long j = k + 1; j < n; ++j) {
      double dot = 0.0;
      for (long i = 0; i < n; ++i)
        dot += q[i * n + k] * a[i * n + j];
      r[k * n + j] = dot;
      for (long i = 0; i < n; ++i)
        a[i * n + j] -= q[i * n + k] * dot;
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 500);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *q = kernel_alloc(bytes), *r = kernel_alloc(bytes);
  KernelRng rng = {118};
  kernel_fill_dominant(&rng, a, n, 0);
  memset(q, 0, bytes);
  memset(r, 0, bytes);

  KernelTimer timer = kernel_timer_start();
  gramschmidt(n, a, q, r);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, q, bytes);
  kernel_checksum_bytes(&sum, r, bytes);
  printf("kernel gramschmidt n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
