/*===- mvt.c - a matrix-vector product and its transpose -------------------===*
 *
 * x1 += A * y1 and x2 += transpose(A) * y2 as two separate sweeps: one reads
 * A by rows (dot products), the other by rows too but scattering into x2
 * (axpys). Memory bound over a large matrix.
 *
 * Usage: mvt [n]   (default n = 4000, 8 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 8 };

static void mvt(long n, const double *restrict a, double *restrict x1, double *restrict x2,
                const double *restrict y1, const double *restrict y2) {
  for (long i = 0; i < n; ++i) {
    double dot = x1[i];
    for (long j = 0; j < n; ++j)
      dot += a[i * n + j] * y1[j];
    x1[i] = dot;
  }
  for (long i = 0; i < n; ++i) {
    const double scale = y2[i];
    for (long j = 0; j < n; ++j)
      x2[j] += a[i * n + j] * scale;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 4000);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *x1 = kernel_alloc(n * sizeof(double)), *x2 = kernel_alloc(n * sizeof(double));
  double *y1 = kernel_alloc(n * sizeof(double)), *y2 = kernel_alloc(n * sizeof(double));
  KernelRng rng = {106};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, x1, n);
  kernel_fill_unit(&rng, x2, n);
  kernel_fill_unit(&rng, y1, n);
  kernel_fill_unit(&rng, y2, n);

  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < REPETITIONS; ++r) {
    mvt(n, a, x1, x2, y1, y2);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, x1, n * sizeof(double));
  kernel_checksum_bytes(&sum, x2, n * sizeof(double));
  printf("kernel mvt n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
