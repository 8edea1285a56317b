/*===- fdtd2d.c - 2-D finite-difference time-domain field update -----------===*
 *
 * The Yee scheme for a TE wave: each step sets a source row, updates the
 * electric fields ex and ey from differences of hz, then hz from the curl of
 * ex and ey. Three coupled grids, each swept with neighbour offsets of one
 * row or one column.
 *
 * Usage: fdtd2d [n]   (default n = 1200, 100 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 100 };

static void step(long n, double source, double *restrict ex, double *restrict ey,
                 double *restrict hz) {
  for (long j = 0; j < n; ++j)
    ey[j] = source;
  for (long i = 1; i < n; ++i)
    for (long j = 0; j < n; ++j)
      ey[i * n + j] -= 0.5 * (hz[i * n + j] - hz[(i - 1) * n + j]);
  for (long i = 0; i < n; ++i)
    for (long j = 1; j < n; ++j)
      ex[i * n + j] -= 0.5 * (hz[i * n + j] - hz[i * n + j - 1]);
  for (long i = 0; i < n - 1; ++i)
    for (long j = 0; j < n - 1; ++j)
      hz[i * n + j] -= 0.7 * (ex[i * n + j + 1] - ex[i * n + j] + ey[(i + 1) * n + j] -
                              ey[i * n + j]);
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1200);
  const size_t bytes = n * n * sizeof(double);
  double *ex = kernel_alloc(bytes), *ey = kernel_alloc(bytes), *hz = kernel_alloc(bytes);
  KernelRng rng = {122};
  kernel_fill_unit(&rng, ex, n * n);
  kernel_fill_unit(&rng, ey, n * n);
  kernel_fill_unit(&rng, hz, n * n);

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    step(n, (double)t, ex, ey, hz);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, ex, bytes);
  kernel_checksum_bytes(&sum, ey, bytes);
  kernel_checksum_bytes(&sum, hz, bytes);
  printf("kernel fdtd2d n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
