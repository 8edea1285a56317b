/*===- mm2.c - two chained matrix products ---------------------------------===*
 *
 * D = beta * D + alpha * (A * B) * C: the first product goes to a temporary,
 * the second accumulates into D. Two dense multiplies back to back, the
 * temporary written by one and streamed by the other.
 *
 * Usage: mm2 [n]   (default n = 500)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

/* out = scale * out + factor * x * y, i-k-j order. */
static void multiply_add(long n, double factor, double scale, const double *restrict x,
                         const double *restrict y, double *restrict out) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = out + i * n;
    for (long j = 0; j < n; ++j)
      row[j] *= scale;
    for (long k = 0; k < n; ++k) {
      const double scaled = factor * x[i * n + k];
      for (long j = 0; j < n; ++j)
        row[j] += scaled * y[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 500);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes), *c = kernel_alloc(bytes);
  double *d = kernel_alloc(bytes), *tmp = kernel_alloc(bytes);
  KernelRng rng = {102};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, c, n * n);
  kernel_fill_unit(&rng, d, n * n);
  memset(tmp, 0, bytes);

  KernelTimer timer = kernel_timer_start();
  multiply_add(n, 1.25, 0.0, a, b, tmp);
  multiply_add(n, 1.0, 0.5, tmp, c, d);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, d, bytes);
  printf("kernel mm2 n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
