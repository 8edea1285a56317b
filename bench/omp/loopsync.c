/*===- loopsync.c - a barrier-bound worksharing loop -----------------------===*
 *
 * Many short `omp for` loops in one region, each over a handful of elements
 * per thread and each ending in its implicit barrier, with a `single`
 * between them that flips which buffer is read: the shape of an iterative
 * solver on a small grid, where the runtime's loop start, barrier and single
 * cost more than the arithmetic. The time per step is what one
 * loop-plus-barrier costs.
 *
 * Usage: loopsync [steps]   (default 20000)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { CELLS = 256 };

static double grid[2][CELLS];

int main(int argc, char **argv) {
  const long steps = kernel_size_arg(argc, argv, 20000);
  for (int i = 0; i < CELLS; ++i) grid[0][i] = (double)(i % 7);
  int source = 0;
  double start = 0.0, seconds = 0.0;
  int team = 0;
#pragma omp parallel
  {
#pragma omp master
    {
      team = omp_get_num_threads();
      start = omp_get_wtime();
    }
    for (long s = 0; s < steps; ++s) {
      const double *from = grid[source];
      double *to = grid[1 - source];
#pragma omp for schedule(static)
      for (int i = 0; i < CELLS; ++i)
        to[i] = (from[(i + CELLS - 1) % CELLS] + from[i] + from[(i + 1) % CELLS]) / 4.0 + 0.25;
#pragma omp single
      source = 1 - source;
    }
#pragma omp master
    seconds = omp_get_wtime() - start;
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, grid[source], sizeof grid[source]);
  printf("kernel loopsync steps=%ld cells=%d threads=%d\n", steps, CELLS, team);
  omp_bench_report(&sum, seconds);
  printf("us_per_op %.3f\n", seconds * 1e6 / (double)steps);
  return 0;
}
