/*===- gesummv.c - sum of two matrix-vector products -----------------------===*
 *
 * y = alpha * A x + beta * B x: two dot products per row over two large
 * matrices read side by side. The most bandwidth-hungry BLAS-2 shape here
 * (two matrices, one vector).
 *
 * Usage: gesummv [n]   (default n = 3500, 8 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 8 };

static void gesummv(long n, double alpha, double beta, const double *restrict a,
                    const double *restrict b, const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; ++i) {
    double dot_a = 0.0, dot_b = 0.0;
    for (long j = 0; j < n; ++j) {
      dot_a += a[i * n + j] * x[j];
      dot_b += b[i * n + j] * x[j];
    }
    y[i] = alpha * dot_a + beta * dot_b;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 3500);
  double *a = kernel_alloc(n * n * sizeof(double)), *b = kernel_alloc(n * n * sizeof(double));
  double *x = kernel_alloc(n * sizeof(double)), *y = kernel_alloc(n * sizeof(double));
  KernelRng rng = {108};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, x, n);

  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < REPETITIONS; ++r) {
    gesummv(n, 1.5, 0.5, a, b, x, y);
    x[r % n] = y[(r * 3) % n] * 1e-3;
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, y, n * sizeof(double));
  printf("kernel gesummv n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
