/*===- gemm.c - general matrix multiply with scaling -----------------------===*
 *
 * C = beta * C + alpha * A * B over n x n matrices, in i-k-j order so the
 * inner loop streams a row of B into a row of C. The shape of most dense
 * linear algebra: a vectorizable multiply-add over unit-stride rows.
 *
 * Usage: gemm [n]   (default n = 700)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void gemm(long n, double alpha, double beta, const double *restrict a,
                 const double *restrict b, double *restrict c) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = c + i * n;
    for (long j = 0; j < n; ++j)
      row[j] *= beta;
    for (long k = 0; k < n; ++k) {
      const double scaled = alpha * a[i * n + k];
      const double *restrict brow = b + k * n;
      for (long j = 0; j < n; ++j)
        row[j] += scaled * brow[j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 700);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *b = kernel_alloc(n * n * sizeof(double));
  double *c = kernel_alloc(n * n * sizeof(double));
  KernelRng rng = {101};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, c, n * n);

  KernelTimer timer = kernel_timer_start();
  gemm(n, 1.5, 0.75, a, b, c);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, c, n * n * sizeof(double));
  printf("kernel gemm n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
