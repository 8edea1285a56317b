/*===- syrk.c - symmetric rank-k update of a lower triangle ----------------===*
 *
 * C = alpha * A * A' + beta * C on the lower triangle of C only: the inner
 * loop runs over j <= i, so its trip count changes with every row, the
 * triangular shape a vectorizer must handle with a remainder loop.
 *
 * Usage: syrk [n]   (default n = 600)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void syrk(long n, double alpha, double beta, const double *restrict a,
                 double *restrict c) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = c + i * n;
    for (long j = 0; j <= i; ++j)
      row[j] *= beta;
    for (long k = 0; k < n; ++k) {
      const double scaled = alpha * a[i * n + k];
      for (long j = 0; j <= i; ++j)
        row[j] += scaled * a[j * n + k];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 600);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *c = kernel_alloc(bytes);
  KernelRng rng = {110};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, c, n * n);

  KernelTimer timer = kernel_timer_start();
  syrk(n, 1.5, 1.25, a, c);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, c, bytes);
  printf("kernel syrk n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
