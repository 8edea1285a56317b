/*===- transpose.c - ParRes transpose: B += A^T, A += 1 with OpenMP --------===*
 *
 * A tiled transpose: each thread reads tiles of rows of A that other
 * threads write in the A += 1 step, and writes columns of B, the access
 * pattern that makes the most pages change hands under DSM. All values are
 * small integers, so B is exact.
 *
 * Usage: transpose [n [iterations]]   (default 1200, 40)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { TILE = 32 };

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1200);
  const int iterations = omp_bench_iterations(argc, argv, 40);
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *a = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);

  OmpBenchClock timer = {0};
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        a[i * n + j] = (double)(i * n + j);
        b[i * n + j] = 0.0;
      }
    for (int it = 0; it <= iterations; ++it) {
      if (it == 1)
        omp_bench_start_clock(&timer);
#pragma omp for schedule(static)
      for (long it_tile = 0; it_tile < n; it_tile += TILE)
        for (long jt = 0; jt < n; jt += TILE)
          for (long i = it_tile; i < it_tile + TILE && i < n; ++i)
            for (long j = jt; j < jt + TILE && j < n; ++j)
              b[i * n + j] += a[j * n + i];
#pragma omp for schedule(static)
      for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j)
          a[i * n + j] += 1.0;
      if (it >= 1)
        omp_bench_end_round(&timer);
    }
  }
  omp_bench_stop_clock(&timer);

  printf("kernel transpose n=%ld tile=%d iterations=%d threads=%d\n", n, TILE, iterations,
         omp_bench_team_size());
  omp_bench_report_result(b, bytes, &timer);
  free(a);
  free(b);
  return 0;
}
