/*===- floydwarshall.c - all-pairs shortest paths ---------------------------===*
 *
 * The Floyd-Warshall recurrence over an n x n integer distance matrix: for
 * each intermediate vertex k, every path i -> j may shorten through k. The
 * dynamic-programming shape: a min over a row streamed against a fixed row,
 * integer compares and selects rather than floating arithmetic.
 *
 * Usage: floydwarshall [n]   (default n = 1200)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

/* Relaxes one row through the row of the intermediate vertex. The rows are
 * distinct, as `restrict` promises. Restrict parameters keep that promise
 * when clang inlines the call; restrict locals inside one loop nest did not:
 * clang then vectorized behind an overlap test of the vertex's row against
 * the whole matrix, which always failed, so the native build ran scalar at
 * about 3.5x the time of the granule, whose AOT compile tests the two rows. */
static void relax_row(long n, int32_t to_k, const int32_t *restrict through,
                      int32_t *restrict row) {
  for (long j = 0; j < n; ++j) {
    const int32_t candidate = to_k + through[j];
    row[j] = candidate < row[j] ? candidate : row[j];
  }
}

/* Row k itself never shortens through k (distance[k][k] is 0 and no weight
 * is negative), so it is skipped and never passed as both rows. */
static void floyd_warshall(long n, int32_t *distance) {
  for (long k = 0; k < n; ++k) {
    const int32_t *through = distance + k * n;
    for (long i = 0; i < n; ++i)
      if (i != k)
        relax_row(n, distance[i * n + k], through, distance + i * n);
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1200);
  int32_t *distance = kernel_alloc(n * n * sizeof(int32_t));
  /* Sparse random edges of weight 1..99; missing edges are "far" but small
   * enough that adding two never overflows. */
  KernelRng rng = {125};
  for (long i = 0; i < n * n; ++i)
    distance[i] = kernel_rng_below(&rng, 8) == 0 ? 1 + (int32_t)kernel_rng_below(&rng, 99)
                                                 : 1 << 28;
  for (long i = 0; i < n; ++i)
    distance[i * n + i] = 0;

  KernelTimer timer = kernel_timer_start();
  floyd_warshall(n, distance);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, distance, n * n * sizeof(int32_t));
  printf("kernel floydwarshall n=%ld\n", n);
  kernel_report(&sum, &timer);
  return 0;
}
