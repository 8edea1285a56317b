/*===- dgemm.c - ParRes dgemm: tiled C += A*B with OpenMP ------------------===*
 *
 * The kernel of the Faabric paper's OpenMP evaluation. As in ParRes,
 * A[i][j] = B[i][j] = j, so every product and partial sum is an integer
 * below 2^53 and C is exact (C[i][j] = (iterations+1) * j * n(n-1)/2,
 * which the kernel also checks). Tiles of rows of C are split statically
 * between threads; A and B are only read.
 *
 * Usage: dgemm [n [iterations]]   (default 400, 4)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { TILE = 32 };

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 400);
  const int iterations = omp_bench_iterations(argc, argv, 4);
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *a = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);
  double *c = kernel_alloc(bytes);

  OmpBenchClock timer = {0};
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        a[i * n + j] = (double)j;
        b[i * n + j] = (double)j;
        c[i * n + j] = 0.0;
      }
    for (int it = 0; it <= iterations; ++it) {
      if (it == 1)
        omp_bench_start_clock(&timer);
#pragma omp for schedule(static)
      for (long ii = 0; ii < n; ii += TILE)
        for (long kk = 0; kk < n; kk += TILE)
          for (long i = ii; i < ii + TILE && i < n; ++i)
            for (long k = kk; k < kk + TILE && k < n; ++k) {
              const double a_ik = a[i * n + k];
              for (long j = 0; j < n; ++j)
                c[i * n + j] += a_ik * b[k * n + j];
            }
      if (it >= 1)
        omp_bench_end_round(&timer);
    }
  }
  omp_bench_stop_clock(&timer);

  const double column_sum = (double)n * (double)(n - 1) / 2.0;
  long wrong = 0;
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      wrong += c[i * n + j] != (double)(iterations + 1) * (double)j * column_sum;
  printf("kernel dgemm n=%ld tile=%d iterations=%d threads=%d wrong=%ld\n", n, TILE, iterations,
         omp_bench_team_size(), wrong);
  omp_bench_report_result(c, bytes, &timer);
  free(a);
  free(b);
  free(c);
  return wrong != 0;
}
