/*===- gemver.c - rank-2 update followed by two matrix-vector products -----===*
 *
 * A += u1 v1' + u2 v2'; x += beta * A' y + z; w += alpha * A x. A rank-2
 * update writes the whole matrix, then it is read by columns-as-axpys and by
 * rows-as-dots. Memory bound, and the one BLAS-2 kernel that writes A.
 *
 * Usage: gemver [n]   (default n = 3000, 4 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 4 };

static void gemver(long n, double alpha, double beta, double *restrict a,
                   const double *restrict u1, const double *restrict v1,
                   const double *restrict u2, const double *restrict v2, double *restrict w,
                   double *restrict x, const double *restrict y, const double *restrict z) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      a[i * n + j] = a[i * n + j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (long i = 0; i < n; ++i) {
    const double scaled = beta * y[i];
    for (long j = 0; j < n; ++j)
      x[j] += scaled * a[i * n + j];
  }
  for (long j = 0; j < n; ++j)
    x[j] += z[j];
  for (long i = 0; i < n; ++i) {
    double dot = 0.0;
    for (long j = 0; j < n; ++j)
      dot += a[i * n + j] * x[j];
    w[i] += alpha * dot;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 3000);
  const size_t vector = n * sizeof(double);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *u1 = kernel_alloc(vector), *v1 = kernel_alloc(vector), *u2 = kernel_alloc(vector);
  double *v2 = kernel_alloc(vector), *w = kernel_alloc(vector), *x = kernel_alloc(vector);
  double *y = kernel_alloc(vector), *z = kernel_alloc(vector);
  KernelRng rng = {107};
  kernel_fill_unit(&rng, a, n * n);
  double *vectors[] = {u1, v1, u2, v2, w, x, y, z};
  for (int k = 0; k < 8; ++k)
    kernel_fill_unit(&rng, vectors[k], n);
  /* Keep the repeated updates from growing without bound. */
  for (long i = 0; i < n; ++i) {
    u1[i] *= 1e-3;
    u2[i] *= 1e-3;
    y[i] *= 1.0 / (double)n;
  }

  KernelTimer timer = kernel_timer_start();
  for (int r = 0; r < REPETITIONS; ++r) {
    gemver(n, 0.5, 0.25, a, u1, v1, u2, v2, w, x, y, z);
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, w, vector);
  kernel_checksum_bytes(&sum, x, vector);
  kernel_checksum_bytes(&sum, a, n * n * sizeof(double));
  printf("kernel gemver n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
