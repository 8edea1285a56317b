/*===- lu.c - LU factorization without pivoting, in place ------------------===*
 *
 * Doolittle elimination on a diagonally dominant matrix: for each pivot k,
 * the rows below are scaled and updated by a rank-1 step over the trailing
 * submatrix. The update is a unit-stride axpy whose length shrinks with k.
 *
 * Usage: lu [n]   (default n = 900)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void lu(long n, double *restrict a) {
  for (long k = 0; k < n; ++k) {
    const double *restrict pivot_row = a + k * n;
    for (long i = k + 1; i < n; ++i) {
      double *restrict row = a + i * n;
      const double factor = row[k] / pivot_row[k];
      row[k] = factor;
      for (long j = k + 1; j < n; ++j)
        row[j] -= factor * pivot_row[j];
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 900);
  double *a = kernel_alloc(n * n * sizeof(double));
  KernelRng rng = {114};
  kernel_fill_dominant(&rng, a, n, 0);

  KernelTimer timer = kernel_timer_start();
  lu(n, a);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, n * n * sizeof(double));
  printf("kernel lu n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
