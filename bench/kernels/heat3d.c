/*===- heat3d.c - 7-point heat-equation stencil on a cube ------------------===*
 *
 * Explicit time steps of the 3-D heat equation: each interior point moves
 * by a weighted second difference along each axis, ping-ponging between two
 * n^3 grids. Neighbours lie at +-1, +-n and +-n^2 elements, the widest
 * constant offsets in the suite.
 *
 * Usage: heat3d [n]   (default n = 120, 60 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 60 };

static void step(long n, const double *restrict in, double *restrict out) {
  const long plane = n * n;
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      for (long k = 1; k < n - 1; ++k) {
        const long at = i * plane + j * n + k;
        const double center = in[at];
        out[at] = 0.125 * (in[at + plane] - 2.0 * center + in[at - plane]) +
                  0.125 * (in[at + n] - 2.0 * center + in[at - n]) +
                  0.125 * (in[at + 1] - 2.0 * center + in[at - 1]) + center;
      }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 120);
  if (n < 3) {
    fprintf(stderr, "error: heat3d needs n >= 3\n");
    return 2;
  }
  const size_t bytes = n * n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes);
  KernelRng rng = {121};
  kernel_fill_unit(&rng, a, n * n * n);
  memcpy(b, a, bytes);

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    step(n, a, b);
    step(n, b, a);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, bytes);
  printf("kernel heat3d n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
