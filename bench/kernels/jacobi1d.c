/*===- jacobi1d.c - 3-point Jacobi stencil on a line -----------------------===*
 *
 * Repeated averaging of each point with its two neighbours, ping-ponging
 * between two arrays. The simplest stencil: neighbour loads at constant
 * offsets -1, 0, +1 from one index, which the granule must vectorize like
 * native code does.
 *
 * Usage: jacobi1d [n]   (default n = 2000000, 200 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 200 };

static void smooth(long n, const double *restrict in, double *restrict out) {
  for (long i = 1; i < n - 1; ++i)
    out[i] = 0.33333 * (in[i - 1] + in[i] + in[i + 1]);
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 2000000);
  if (n < 3) {
    fprintf(stderr, "error: jacobi1d needs n >= 3\n");
    return 2;
  }
  double *a = kernel_alloc(n * sizeof(double)), *b = kernel_alloc(n * sizeof(double));
  KernelRng rng = {119};
  kernel_fill_unit(&rng, a, n);
  memcpy(b, a, n * sizeof(double));

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    smooth(n, a, b);
    smooth(n, b, a);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, n * sizeof(double));
  printf("kernel jacobi1d n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
