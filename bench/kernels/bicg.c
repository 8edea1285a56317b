/*===- bicg.c - the two products of a BiCG step ----------------------------===*
 *
 * s = transpose(A) * r and q = A * p in one sweep over the rows of A: each
 * row feeds an axpy into s and a dot product into q. The sub-kernel of the
 * biconjugate gradient method; memory bound over a large matrix.
 *
 * Usage: bicg [n]   (default n = 4000, square, 8 repetitions)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { REPETITIONS = 8 };

static void bicg(long n, const double *restrict a, const double *restrict r,
                 const double *restrict p, double *restrict s, double *restrict q) {
  for (long j = 0; j < n; ++j)
    s[j] = 0.0;
  for (long i = 0; i < n; ++i) {
    const double *restrict row = a + i * n;
    const double ri = r[i];
    double dot = 0.0;
    for (long j = 0; j < n; ++j) {
      s[j] += ri * row[j];
      dot += row[j] * p[j];
    }
    q[i] = dot;
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 4000);
  double *a = kernel_alloc(n * n * sizeof(double));
  double *r = kernel_alloc(n * sizeof(double)), *p = kernel_alloc(n * sizeof(double));
  double *s = kernel_alloc(n * sizeof(double)), *q = kernel_alloc(n * sizeof(double));
  KernelRng rng = {105};
  kernel_fill_unit(&rng, a, n * n);
  kernel_fill_unit(&rng, r, n);
  kernel_fill_unit(&rng, p, n);

  KernelTimer timer = kernel_timer_start();
  for (int rep = 0; rep < REPETITIONS; ++rep) {
    bicg(n, a, r, p, s, q);
    r[rep % n] += q[(rep * 5) % n] * 1e-9;
    kernel_round_end(&timer, 1);
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, s, n * sizeof(double));
  kernel_checksum_bytes(&sum, q, n * sizeof(double));
  printf("kernel bicg n=%ld repetitions=%d\n", n, REPETITIONS);
  kernel_report(&sum, &timer);
  return 0;
}
