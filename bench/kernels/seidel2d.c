/*===- seidel2d.c - 9-point Gauss-Seidel sweeps in place -------------------===*
 *
 * Each interior point becomes the mean of its 3 x 3 neighbourhood, updated
 * in place, so a point reads values already updated in this sweep (left and
 * upper neighbours). The loop-carried dependency rules out vectorization on
 * both targets: this stencil measures scalar address arithmetic.
 *
 * Usage: seidel2d [n]   (default n = 1000, 30 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 30 };

static void sweep(long n, double *restrict a) {
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      a[i * n + j] = (a[(i - 1) * n + j - 1] + a[(i - 1) * n + j] + a[(i - 1) * n + j + 1] +
                      a[i * n + j - 1] + a[i * n + j] + a[i * n + j + 1] +
                      a[(i + 1) * n + j - 1] + a[(i + 1) * n + j] + a[(i + 1) * n + j + 1]) /
                     9.0;
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1000);
  if (n < 3) {
    fprintf(stderr, "error: seidel2d needs n >= 3\n");
    return 2;
  }
  double *a = kernel_alloc(n * n * sizeof(double));
  KernelRng rng = {123};
  kernel_fill_unit(&rng, a, n * n);

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    sweep(n, a);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, n * n * sizeof(double));
  printf("kernel seidel2d n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
