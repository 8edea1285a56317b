/*===- ludcmp.c - solve A x = b by LU factorization and substitution -------===*
 *
 * A crout-style factorization (each element of L and U is a dot product of
 * a partial row and a partial column), then forward substitution with the
 * unit lower factor and back substitution with the upper one. The column
 * reads are strided, unlike lu.c's row updates.
 *
 * Usage: ludcmp [n]   (default n = 700)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void factor(long n, double *restrict a) {
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < i; ++j) {
      double value = a[i * n + j];
      for (long k = 0; k < j; ++k)
        value -= a[i * n + k] * a[k * n + j];
      a[i * n + j] = value / a[j * n + j];
    }
    for (long j = i; j < n; ++j) {
      double value = a[i * n + j];
      for (long k = 0; k < i; ++k)
        value -= a[i * n + k] * a[k * n + j];
      a[i * n + j] = value;
    }
  }
}

static void substitute(long n, const double *restrict a, const double *restrict b,
                       double *restrict y, double *restrict x) {
  for (long i = 0; i < n; ++i) {
    double value = b[i];
    for (long j = 0; j < i; ++j)
      value -= a[i * n + j] * y[j];
    y[i] = value;
  }
  for (long i = n - 1; i >= 0; --i) {
    double value = y[i];
    for (long j = i + 1; j < n; ++j)
      value -= a[i * n + j] * x[j];
    x[i] = value / a[i * n + i];
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 700);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *b = kernel_alloc(n * sizeof(double)), *y = kernel_alloc(n * sizeof(double));
  double *x = kernel_alloc(n * sizeof(double));
  KernelRng rng = {115};
  kernel_fill_dominant(&rng, a, n, 0);
  kernel_fill_unit(&rng, b, n);

  KernelTimer timer = kernel_timer_start();
  factor(n, a);
  substitute(n, a, b, y, x);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, x, n * sizeof(double));
  kernel_checksum_bytes(&sum, a, n * n * sizeof(double));
  printf("kernel ludcmp n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
