/*===- atax.c - y = transpose(A) * (A * x) ---------------------------------===*
 *
 * A matrix-vector product followed by a transposed one over the same m x n
 * matrix: a dot product per row, then an axpy per row into y. Memory bound,
 * with a large matrix written once and read in each repetition.
 *
 * Usage: atax [n]   (default n = 4000, square, 8 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 8 };

static void atax(long n, const double *restrict a, const double *restrict x, double *restrict y) {
  for (long j = 0; j < n; ++j)
    y[j] = 0.0;
  for (long i = 0; i < n; ++i) {
    const double *restrict row = a + i * n;
    double dot = 0.0;
    for (long j = 0; j < n; ++j)
      dot += row[j] * x[j];
    for (long j = 0; j < n; ++j)
      y[j] += row[j] * dot;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 4000);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *x = kernel_alloc(n * sizeof(double));
  double *y = kernel_alloc(n * sizeof(double));
  KernelRng rng = {104};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, x, n);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < REPETITIONS; ++r) {
    atax(n, a, x, y);
    x[r % n] += y[(r * 7) % n] * 1e-9;
    kernel_round_end(&timer, 1);
  }
  kernel_checksum_bytes(&sum, y, n * sizeof(double));
  printf("kernel atax n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
