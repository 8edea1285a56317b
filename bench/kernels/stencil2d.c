/*===- stencil2d.c - 5-point Jacobi stencil on a 2-D grid ------------------===*
 *
 * Repeated Jacobi sweeps of a 5-point star stencil over an n x n grid with
 * fixed boundary values, ping-ponging between two buffers. The sweep is a
 * streaming, bandwidth-and-load-bound loop with neighbour reuse: it checks
 * that the granule keeps the memory base and the row pointers in registers
 * across the inner loop. The expression order is written out explicitly so
 * both targets evaluate the same operations and the grid matches bit for bit.
 *
 * Usage: stencil2d [n]   (default n = 2000, 300 sweeps)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { SWEEPS = 300 };

static void sweep(long n, const double *restrict in, double *restrict out) {
  const double center_weight = 0.5;
  const double neighbour_weight = 0.125;
  for (long i = 1; i < n - 1; ++i) {
    const double *restrict up = in + (i - 1) * n;
    const double *restrict row = in + i * n;
    const double *restrict down = in + (i + 1) * n;
    double *restrict dst = out + i * n;
    for (long j = 1; j < n - 1; ++j) {
      const double neighbours = (up[j] + down[j]) + (row[j - 1] + row[j + 1]);
      dst[j] = center_weight * row[j] + neighbour_weight * neighbours;
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 2000);
  if (n < 3) {
    fprintf(stderr, "error: stencil2d needs n >= 3\n");
    return 2;
  }
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *grid = kernel_alloc(bytes);
  double *next = kernel_alloc(bytes);

  KernelRng rng = {7};
  for (long i = 0; i < n * n; ++i)
    grid[i] = kernel_rng_unit(&rng);
  /* The boundary is never written by a sweep, so both buffers carry it. */
  memcpy(next, grid, bytes);

  KernelTimer timer = kernel_timer_start();
  for (int s = 0; s < SWEEPS; ++s) {
    sweep(n, grid, next);
    double *swap = grid;
    grid = next;
    next = swap;
    kernel_round_end(&timer, 1);
  }

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, grid, bytes);
  printf("kernel stencil2d n=%ld sweeps=%d\n", n, SWEEPS);
  kernel_report(&sum, &timer);
  free(grid);
  free(next);
  return 0;
}
