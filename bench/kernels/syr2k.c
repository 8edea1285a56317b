/*===- syr2k.c - symmetric rank-2k update of a lower triangle --------------===*
 *
 * C = alpha * (A * B' + B * A') + beta * C on the lower triangle. Like syrk
 * but with two strided column reads per inner step, so it is more bound by
 * loads than by arithmetic.
 *
 * Usage: syr2k [n]   (default n = 450)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void syr2k(long n, double alpha, double beta, const double *restrict a,
                  const double *restrict b, double *restrict c) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = c + i * n;
    for (long j = 0; j <= i; ++j)
      row[j] *= beta;
    for (long k = 0; k < n; ++k) {
      const double scaled_a = alpha * a[i * n + k];
      const double scaled_b = alpha * b[i * n + k];
      for (long j = 0; j <= i; ++j)
        row[j] += b[j * n + k] * scaled_a + a[j * n + k] * scaled_b;
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 450);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes), *c = kernel_alloc(bytes);
  KernelRng rng = {111};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, c, n * n);

  KernelTimer timer = kernel_timer_start();
  syr2k(n, 1.5, 1.25, a, b, c);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, c, bytes);
  printf("kernel syr2k n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
