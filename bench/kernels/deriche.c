/*===- deriche.c - recursive (IIR) edge-detection filter on an image -------===*
 *
 * A second-order recursive filter run causally and anti-causally along each
 * row, summed, then the same along each column of the result. Every output
 * depends on the two before it, so the filter is a chain of multiply-adds
 * per line; the column passes stride by a row. The coefficients are fixed
 * constants (no exp from two different libms).
 *
 * Usage: deriche [n]   (default n = 1500, square image, 4 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 4 };

static const double kA1 = 0.2, kA2 = -0.1, kA3 = 0.15, kA4 = -0.05;
static const double kB1 = 0.6, kB2 = -0.2, kC1 = 1.0;

/* Filters `count` lines of length `length`: element k of line s is at
 * s * line_step + k * element_step in both `in` and `out`. */
static void filter_lines(long count, long length, long line_step, long element_step,
                         const double *restrict in, double *restrict out,
                         double *restrict forward, double *restrict backward) {
  for (long s = 0; s < count; ++s) {
    const double *line = in + s * line_step;
    double y1 = 0.0, y2 = 0.0, x1 = 0.0;
    for (long k = 0; k < length; ++k) {
      const double x = line[k * element_step];
      const double y = kA1 * x + kA2 * x1 + kB1 * y1 + kB2 * y2;
      forward[k] = y;
      x1 = x;
      y2 = y1;
      y1 = y;
    }
    double z1 = 0.0, z2 = 0.0, xa = 0.0, xb = 0.0;
    for (long k = length - 1; k >= 0; --k) {
      const double z = kA3 * xa + kA4 * xb + kB1 * z1 + kB2 * z2;
      backward[k] = z;
      xb = xa;
      xa = line[k * element_step];
      z2 = z1;
      z1 = z;
    }
    double *target = out + s * line_step;
    for (long k = 0; k < length; ++k)
      target[k * element_step] = kC1 * (forward[k] + backward[k]);
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1500);
  const size_t bytes = n * n * sizeof(double);
  double *image = kernel_alloc(bytes), *rows = kernel_alloc(bytes), *out = kernel_alloc(bytes);
  double *forward = kernel_alloc(n * sizeof(double)), *backward = kernel_alloc(n * sizeof(double));
  KernelRng rng = {129};
  kernel_fill_unit(&rng, image, n * n);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < REPETITIONS; ++r) {
    filter_lines(n, n, n, 1, image, rows, forward, backward);
    filter_lines(n, n, 1, n, rows, out, forward, backward);
    image[r % (n * n)] += 0.5;
    kernel_round_end(&timer, 1);
  }
  kernel_checksum_bytes(&sum, out, bytes);
  printf("kernel deriche n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
