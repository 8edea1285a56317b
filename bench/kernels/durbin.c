/*===- durbin.c - Levinson-Durbin recursion for a Toeplitz system ----------===*
 *
 * Solves the Yule-Walker equations for an autocorrelation sequence r in
 * O(n^2): each step takes a reversed dot product with the solution so far,
 * then updates the solution with its own reverse through a temporary. The
 * reversed accesses (index k - i - 1) are what a vectorizer must reverse.
 *
 * Usage: durbin [n]   (default n = 6000, 6 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 6 };

static void durbin(long n, const double *restrict r, double *restrict y, double *restrict z) {
  y[0] = -r[0];
  double beta = 1.0;
  double alpha = -r[0];
  for (long k = 1; k < n; ++k) {
    beta = (1.0 - alpha * alpha) * beta;
    double dot = 0.0;
    for (long i = 0; i < k; ++i)
      dot += r[k - i - 1] * y[i];
    alpha = -(r[k] + dot) / beta;
    for (long i = 0; i < k; ++i)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (long i = 0; i < k; ++i)
      y[i] = z[i];
    y[k] = alpha;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 6000);
  double *r = kernel_alloc(n * sizeof(double)), *y = kernel_alloc(n * sizeof(double));
  double *z = kernel_alloc(n * sizeof(double));
  /* A decaying autocorrelation keeps |alpha| < 1 at every step. */
  KernelRng rng = {117};
  for (long i = 0; i < n; ++i)
    r[i] = 0.5 / (double)(i + 2) + 1e-3 * kernel_rng_unit(&rng);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int rep = 0; rep < REPETITIONS; ++rep) {
    durbin(n, r, y, z);
    kernel_checksum_bytes(&sum, y, n * sizeof(double));
    r[0] *= 0.99;
    kernel_round_end(&timer, 1);
  }
  printf("kernel durbin n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
