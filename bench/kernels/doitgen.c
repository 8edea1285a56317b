/*===- doitgen.c - multiresolution tensor contraction ----------------------===*
 *
 * For every (r, q), the length-p vector A[r][q][:] is replaced by its
 * product with a p x p matrix C4, through a per-vector temporary. A batched
 * small matrix-vector product over a 3-D array.
 *
 * Usage: doitgen [n]   (default n = 140: r = q = p = n)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void doitgen(long n, double *restrict a, const double *restrict c4,
                    double *restrict sum) {
  for (long r = 0; r < n; ++r)
    for (long q = 0; q < n; ++q) {
      double *restrict vector = a + (r * n + q) * n;
      for (long p = 0; p < n; ++p)
        sum[p] = 0.0;
      for (long s = 0; s < n; ++s) {
        const double element = vector[s];
        for (long p = 0; p < n; ++p)
          sum[p] += element * c4[s * n + p];
      }
      for (long p = 0; p < n; ++p)
        vector[p] = sum[p];
    }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 140);
  double *a = kernel_alloc(n * n * n * sizeof(double));
  double *c4 = kernel_alloc(n * n * sizeof(double)), *sum = kernel_alloc(n * sizeof(double));
  KernelRng rng = {130};
  kernel_fill_unit(&rng, a, n * n * n);
  kernel_fill_unit(&rng, c4, n * n);

  KernelTimer timer = kernel_timer_start();
  doitgen(n, a, c4, sum);
  kernel_round_end(&timer, 1);

  KernelChecksum checksum;
  kernel_checksum_init(&checksum);
  kernel_checksum_bytes(&checksum, a, n * n * n * sizeof(double));
  printf("kernel doitgen n=%ld\n", n);
  kernel_report(&checksum, &timer);
  return 0;
}
