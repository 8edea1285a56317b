/*===- floydwarshall.c - all-pairs shortest paths ---------------------------===*
 *
 * The Floyd-Warshall recurrence over an n x n integer distance matrix: for
 * each intermediate vertex k, every path i -> j may shorten through k. The
 * dynamic-programming shape: a min over a row streamed against a fixed row,
 * integer compares and selects rather than floating arithmetic.
 *
 * Usage: floydwarshall [n]   (default n = 800)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static void floyd_warshall(long n, int32_t *restrict distance) {
  for (long k = 0; k < n; ++k) {
    const int32_t *restrict through = distance + k * n;
    for (long i = 0; i < n; ++i) {
      int32_t *restrict row = distance + i * n;
      const int32_t to_k = row[k];
      for (long j = 0; j < n; ++j) {
        const int32_t candidate = to_k + through[j];
        row[j] = candidate < row[j] ? candidate : row[j];
      }
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 800);
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
