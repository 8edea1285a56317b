/*===- stencil.c - ParRes stencil: radius-2 star stencil with OpenMP -------===*
 *
 * out += star-weighted sum of in over an n x n grid's interior, then in += 1,
 * each a static worksharing loop over rows. Neighbouring rows belong to
 * other threads, so under DSM each iteration reads pages another thread
 * wrote. Each output element sums its nine terms in a fixed order, so the
 * result is bit-identical on both targets whatever the team size.
 *
 * Usage: stencil [n [iterations]]   (default 1000, 20)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { RADIUS = 2 };

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1000);
  const int iterations = omp_bench_iterations(argc, argv, 20);
  if (n <= 2 * RADIUS) {
    fprintf(stderr, "error: grid must be larger than %d\n", 2 * RADIUS);
    return 2;
  }
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *in = kernel_alloc(bytes);
  double *out = kernel_alloc(bytes);

  // The ParRes star weights: +-1/(2*j*r) along each axis.
  double weight[2 * RADIUS + 1][2 * RADIUS + 1] = {{0.0}};
  for (int j = 1; j <= RADIUS; ++j) {
    const double w = 1.0 / (2.0 * j * RADIUS);
    weight[RADIUS][RADIUS + j] = w;
    weight[RADIUS + j][RADIUS] = w;
    weight[RADIUS][RADIUS - j] = -w;
    weight[RADIUS - j][RADIUS] = -w;
  }

  OmpBenchClock timer = {0};
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        in[i * n + j] = (double)(i + j);
        out[i * n + j] = 0.0;
      }
    for (int it = 0; it <= iterations; ++it) {
      if (it == 1)
        omp_bench_start_clock(&timer);
#pragma omp for schedule(static)
      for (long i = RADIUS; i < n - RADIUS; ++i)
        for (long j = RADIUS; j < n - RADIUS; ++j) {
          double value = out[i * n + j];
          for (int k = -RADIUS; k <= RADIUS; ++k)
            if (k != 0)
              value += weight[RADIUS][RADIUS + k] * in[i * n + j + k];
          for (int k = -RADIUS; k <= RADIUS; ++k)
            if (k != 0)
              value += weight[RADIUS + k][RADIUS] * in[(i + k) * n + j];
          out[i * n + j] = value;
        }
#pragma omp for schedule(static)
      for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j)
          in[i * n + j] += 1.0;
      if (it >= 1)
        omp_bench_end_round(&timer);
    }
  }
  omp_bench_stop_clock(&timer);

  printf("kernel stencil n=%ld radius=%d iterations=%d threads=%d\n", n, RADIUS, iterations,
         omp_bench_team_size());
  omp_bench_report_result(out, bytes, &timer);
  free(in);
  free(out);
  return 0;
}
