/*===- mm3.c - three matrix products, two independent and one joining -----===*
 *
 * E = A * B, F = C * D, G = E * F. Each product is a fresh dot-product form
 * (j-inner over a row of the right operand), so the kernel moves three
 * temporaries through the cache one after another.
 *
 * Usage: mm3 [n]   (default n = 450)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void multiply(long n, const double *restrict x, const double *restrict y,
                     double *restrict out) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = out + i * n;
    for (long j = 0; j < n; ++j)
      row[j] = 0.0;
    for (long k = 0; k < n; ++k) {
      const double xik = x[i * n + k];
      for (long j = 0; j < n; ++j)
        row[j] += xik * y[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 450);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes), *c = kernel_alloc(bytes);
  double *d = kernel_alloc(bytes), *e = kernel_alloc(bytes), *f = kernel_alloc(bytes);
  double *g = kernel_alloc(bytes);
  KernelRng rng = {103};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);
  kernel_fill_unit(&rng, c, n * n);
  kernel_fill_unit(&rng, d, n * n);

  KernelTimer timer = kernel_timer_start();
  multiply(n, a, b, e);
  multiply(n, c, d, f);
  multiply(n, e, f, g);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, g, bytes);
  printf("kernel mm3 n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
