/*===- symm.c - symmetric matrix times a general matrix --------------------===*
 *
 * C = alpha * A * B + beta * C where only the lower triangle of the
 * symmetric A is read: element (i, k) comes from A[i][k] when k <= i and
 * from A[k][i] otherwise. The inner loop stays unit stride over rows of B;
 * the triangle test sits in the middle loop.
 *
 * Usage: symm [n]   (default n = 550)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void symm(long n, double alpha, double beta, const double *restrict a,
                 const double *restrict b, double *restrict c) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = c + i * n;
    for (long j = 0; j < n; ++j)
      row[j] *= beta;
    for (long k = 0; k < n; ++k) {
      const double aik = k <= i ? a[i * n + k] : a[k * n + i];
      const double scaled = alpha * aik;
      for (long j = 0; j < n; ++j)
        row[j] += scaled * b[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 550);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes), *c = kernel_alloc(bytes);
  KernelRng rng = {109};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, c, n * n);

  KernelTimer timer = kernel_timer_start();
  symm(n, 1.5, 1.25, a, b, c);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, c, bytes);
  printf("kernel symm n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
