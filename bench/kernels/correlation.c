/*===- correlation.c - Pearson correlation matrix of a data set ------------===*
 *
 * Standardizes each of m variables over n observations (mean, then the
 * standard deviation through a square root, guarded against zero spread),
 * then forms the m x m matrix of column dot products with a unit diagonal.
 *
 * Usage: correlation [n]   (default n = 600 observations of 600 variables)
 *
 *===----------------------------------------------------------------------===*/
#include <math.h>

#include "kernel_support.h"

static void correlation(long n, long m, double *restrict data, double *restrict corr) {
  const double scale = sqrt((double)n);
  for (long j = 0; j < m; ++j) {
    double mean = 0.0;
    for (long i = 0; i < n; ++i)
      mean += data[i * m + j];
    mean /= (double)n;
    double spread = 0.0;
    for (long i = 0; i < n; ++i)
      spread += (data[i * m + j] - mean) * (data[i * m + j] - mean);
    double deviation = sqrt(spread / (double)n);
    if (deviation <= 0.1)
      deviation = 1.0;
    for (long i = 0; i < n; ++i)
      data[i * m + j] = (data[i * m + j] - mean) / (scale * deviation);
  }
  for (long a = 0; a < m; ++a) {
    corr[a * m + a] = 1.0;
    for (long b = a + 1; b < m; ++b) {
      double dot = 0.0;
      for (long i = 0; i < n; ++i)
        dot += data[i * m + a] * data[i * m + b];
      corr[a * m + b] = dot;
      corr[b * m + a] = dot;
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 600);
  const long m = n;
  double *data = kernel_alloc(n * m * sizeof(double));
  double *corr = kernel_alloc(m * m * sizeof(double));
  KernelRng rng = {128};
  kernel_fill_unit(&rng, data, n * m);

  KernelTimer timer = kernel_timer_start();
  correlation(n, m, data, corr);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, corr, m * m * sizeof(double));
  printf("kernel correlation n=%ld m=%ld\n", n, m);
  kernel_report(&sum, &timer);
  return 0;
}
