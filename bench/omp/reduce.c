/*===- reduce.c - ParRes reduce: per-thread vectors combined by a tree -----===*
 *
 * Every thread owns a vector in one shared block; each iteration it updates
 * its own vector, then the team adds them pairwise up a binary tree with a
 * barrier per level, so each level reads vectors other threads just wrote;
 * finally a scalar `reduction(+)` totals the combined vector. Values are
 * integers, so the result is exact; it depends on the team size (one
 * vector per thread), and is compared at equal team sizes.
 *
 * Usage: reduce [length [iterations]]   (default 500000, 20)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

int main(int argc, char **argv) {
  const long length = kernel_size_arg(argc, argv, 500000);
  const int iterations = omp_bench_iterations(argc, argv, 20);
  const int team = omp_bench_team_size();
  double *vectors = kernel_alloc((size_t)team * (size_t)length * sizeof(double));

  double total = 0.0;
  OmpBenchClock timer = {0};
#pragma omp parallel
  {
    const int me = omp_get_thread_num();
    double *mine = vectors + (size_t)me * (size_t)length;
    for (long i = 0; i < length; ++i)
      mine[i] = (double)(me + 1);
    for (int it = 0; it <= iterations; ++it) {
      if (it == 1)
        omp_bench_start_clock(&timer);
      for (long i = 0; i < length; ++i)
        mine[i] += (double)(i % 7);
#pragma omp barrier
      for (int stride = 1; stride < team; stride *= 2) {
        if (me % (2 * stride) == 0 && me + stride < team) {
          const double *other = vectors + (size_t)(me + stride) * (size_t)length;
          for (long i = 0; i < length; ++i)
            mine[i] += other[i] * 0.5;
        }
#pragma omp barrier
      }
      if (it >= 1)
        omp_bench_end_round(&timer);
    }
#pragma omp for reduction(+ : total)
    for (long i = 0; i < length; ++i)
      total += vectors[i];
  }
  omp_bench_stop_clock(&timer);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, vectors, (size_t)length * sizeof(double));
  kernel_checksum_bytes(&sum, &total, sizeof total);
  printf("kernel reduce length=%ld iterations=%d threads=%d\n", length, iterations, team);
  omp_bench_report_loop(&sum, &timer);
  free(vectors);
  return 0;
}
