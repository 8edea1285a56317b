/*===- adi.c - alternating-direction implicit sweeps -----------------------===*
 *
 * Each step solves one tridiagonal system per grid column, then one per
 * grid row (the Thomas algorithm: a forward elimination and a backward
 * substitution with constant coefficients). Column sweeps stride by a row;
 * both sweeps carry a dependency along the solved direction, so the
 * parallelism is across systems.
 *
 * Usage: adi [n]   (default n = 1000, 15 steps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { STEPS = 15 };

/* Solves (-c, 1 + 2c, -c) systems along `stride`; `count` systems `step`
 * apart, each of length n, with fixed end values. p and q are scratch. */
static void solve_lines(long n, long count, long stride, long step, double c,
                        double *restrict u, double *restrict p, double *restrict q) {
  const double lower = -c, diagonal = 1.0 + 2.0 * c, upper = -c;
  for (long s = 1; s < count - 1; ++s) {
    double *line = u + s * step;
    p[0] = 0.0;
    q[0] = line[0];
    for (long k = 1; k < n - 1; ++k) {
      const double denominator = diagonal + lower * p[k - 1];
      p[k] = -upper / denominator;
      q[k] = (line[k * stride] - lower * q[k - 1]) / denominator;
    }
    for (long k = n - 2; k >= 1; --k)
      line[k * stride] = p[k] * line[(k + 1) * stride] + q[k];
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1000);
  if (n < 3) {
    fprintf(stderr, "error: adi needs n >= 3\n");
    return 2;
  }
  double *u = kernel_alloc(n * n * sizeof(double));
  double *p = kernel_alloc(n * sizeof(double)), *q = kernel_alloc(n * sizeof(double));
  KernelRng rng = {124};
  kernel_fill_unit(&rng, u, n * n);

  KernelTimer timer = kernel_timer_start();
  for (int t = 0; t < STEPS; ++t) {
    solve_lines(n, n, n, 1, 0.25, u, p, q);
    solve_lines(n, n, 1, n, 0.25, u, p, q);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, u, n * n * sizeof(double));
  printf("kernel adi n=%ld steps=%d\n", n, STEPS);
  kernel_report(&sum, &timer);
  return 0;
}
