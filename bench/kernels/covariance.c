/*===- covariance.c - sample covariance matrix of a data set ---------------===*
 *
 * For n observations of m variables: subtract each variable's mean, then
 * form the symmetric m x m matrix of column dot products divided by n - 1.
 * Column means and column-pair dot products stride across rows.
 *
 * Usage: covariance [n]   (default n = 600 observations of 600 variables)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void covariance(long n, long m, double *restrict data, double *restrict cov) {
  for (long j = 0; j < m; ++j) {
    double mean = 0.0;
    for (long i = 0; i < n; ++i)
      mean += data[i * m + j];
    mean /= (double)n;
    for (long i = 0; i < n; ++i)
      data[i * m + j] -= mean;
  }
  for (long a = 0; a < m; ++a)
    for (long b = a; b < m; ++b) {
      double dot = 0.0;
      for (long i = 0; i < n; ++i)
        dot += data[i * m + a] * data[i * m + b];
      cov[a * m + b] = dot / (double)(n - 1);
      cov[b * m + a] = cov[a * m + b];
    }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 600);
  if (n < 2) {
    fprintf(stderr, "error: covariance needs n >= 2\n");
    return 2;
  }
  const long m = n;
  double *data = kernel_alloc(n * m * sizeof(double)), *cov = kernel_alloc(m * m * sizeof(double));
  KernelRng rng = {127};
  kernel_fill_unit(&rng, data, n * m);

  KernelTimer timer = kernel_timer_start();
  covariance(n, m, data, cov);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, cov, m * m * sizeof(double));
  printf("kernel covariance n=%ld m=%ld\n", n, m);
  kernel_report(&sum, &timer);
  return 0;
}
