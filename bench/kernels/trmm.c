/*===- trmm.c - triangular matrix times a general matrix -------------------===*
 *
 * B = alpha * A' * B with A unit lower triangular: row i of B gains the rows
 * k > i of B weighted by A[k][i], then is scaled. The middle loop's trip
 * count shrinks with i and the update reads rows below the one it writes,
 * so the order of rows is fixed.
 *
 * Usage: trmm [n]   (default n = 700)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void trmm(long n, double alpha, const double *restrict a, double *restrict b) {
  for (long i = 0; i < n; ++i) {
    double *restrict row = b + i * n;
    for (long k = i + 1; k < n; ++k) {
      const double aki = a[k * n + i];
      const double *restrict source = b + k * n;
      for (long j = 0; j < n; ++j)
        row[j] += aki * source[j];
    }
    for (long j = 0; j < n; ++j)
      row[j] *= alpha;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 700);
  const size_t bytes = n * n * sizeof(double);
  double *a = kernel_alloc(bytes), *b = kernel_alloc(bytes);
  KernelRng rng = {112};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, b, n * n);

  KernelTimer timer = kernel_timer_start();
  trmm(n, 0.5, a, b);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, b, bytes);
  printf("kernel trmm n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
