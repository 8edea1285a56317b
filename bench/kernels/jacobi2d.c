/*===- jacobi2d.c - 5-point Jacobi stencil, indexed form -------------------===*
 *
 * Repeated 5-point averaging over an n x n grid with both buffers indexed as
 * i * n + j and neighbours at i +- 1 and j +- 1. Unlike stencil2d.c, there
 * are no row pointers: every address is base + constant offset, the form
 * that loses vectorization when constant adds wrap in 32 bits.
 *
 * Usage: jacobi2d [n]   (default n = 1200, 150 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 150 };

static void smooth(long n, const double *restrict in, double *restrict out) {
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      out[i * n + j] = 0.2 * (in[i * n + j] + in[i * n + j - 1] + in[i * n + j + 1] +
                              in[(i + 1) * n + j] + in[(i - 1) * n + j]);
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1200);
  if (n < 3) {
    fprintf(stderr, "error: jacobi2d needs n >= 3\n");
    return 2;
  }
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes);
  KernelRng rng = {120};
  kernel_fill_unit(&rng, a, n * n);
  memcpy(b, a, bytes);

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    smooth(n, a, b);
    smooth(n, b, a);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, bytes);
  printf("kernel jacobi2d n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
