/*===- nstream.c - ParRes nstream: A += B + s*C with OpenMP ----------------===*
 *
 * Three long vectors, a static schedule over the elements and one implicit
 * barrier per iteration: memory bandwidth plus the cost of a worksharing
 * loop's start and end. Each element is updated by one thread with the same
 * operations in the same order on both targets, so A matches bit for bit.
 *
 * Usage: nstream [length [iterations]]   (default 2000000, 40)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

int main(int argc, char **argv) {
  const long length = kernel_size_arg(argc, argv, 2000000);
  const int iterations = omp_bench_iterations(argc, argv, 40);
  const size_t bytes = (size_t)length * sizeof(double);
  double *a = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);
  double *c = kernel_alloc(bytes);

  KernelRng rng = {2024};
  for (long i = 0; i < length; ++i) {
    b[i] = kernel_rng_unit(&rng);
    c[i] = kernel_rng_unit(&rng);
  }
  const double scalar = 3.0;
  OmpBenchClock timer = {0};
#pragma omp parallel
  {
    // First touch by the thread that will use each element.
#pragma omp for schedule(static)
    for (long i = 0; i < length; ++i)
      a[i] = 0.0;
    for (int it = 0; it <= iterations; ++it) {
      if (it == 1)
        omp_bench_start_clock(&timer);
#pragma omp for schedule(static)
      for (long i = 0; i < length; ++i)
        a[i] += b[i] + scalar * c[i];
      if (it >= 1)
        omp_bench_end_round(&timer);
    }
  }
  omp_bench_stop_clock(&timer);

  printf("kernel nstream length=%ld iterations=%d threads=%d\n", length, iterations,
         omp_bench_team_size());
  omp_bench_report_result(a, bytes, &timer);
  free(a);
  free(b);
  free(c);
  return 0;
}
