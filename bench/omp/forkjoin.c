/*===- forkjoin.c - the cost of entering and leaving a parallel region -----===*
 *
 * Many back-to-back parallel regions whose bodies do almost nothing (each
 * thread bumps its own counter slot, so the region cannot be optimised
 * away): the time per region is the runtime's fork plus join. Under DSM
 * that includes whatever is synchronised at region start and end.
 *
 * Usage: forkjoin [regions]   (default 2000)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { MAX_THREADS = 256, SLOT = 16 };

/* One cache line per thread, so the counters do not false-share. */
static long long counts[MAX_THREADS * SLOT];

int main(int argc, char **argv) {
  const long regions = kernel_size_arg(argc, argv, 2000);
  for (int warm = 0; warm < 10; ++warm) {
#pragma omp parallel
    counts[(omp_get_thread_num() % MAX_THREADS) * SLOT] += 0;
  }
  const double start = omp_get_wtime();
  for (long r = 0; r < regions; ++r) {
#pragma omp parallel
    counts[(omp_get_thread_num() % MAX_THREADS) * SLOT] += 1;
  }
  const double seconds = omp_get_wtime() - start;

  const int team = omp_bench_team_size();
  long long total = 0;
  for (int t = 0; t < MAX_THREADS; ++t)
    total += counts[t * SLOT];
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_u64(&sum, (uint64_t)total);
  printf("kernel forkjoin regions=%ld threads=%d entries=%lld\n", regions, team, total);
  omp_bench_report(&sum, seconds);
  printf("us_per_op %.3f\n", seconds * 1e6 / (double)regions);
  return total != (long long)regions * team;
}
