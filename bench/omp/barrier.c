/*===- barrier.c - the latency of an OpenMP barrier ------------------------===*
 *
 * One parallel region crossing many explicit barriers, each thread bumping
 * its own counter slot between them; the time per barrier is the runtime's
 * barrier latency with the whole team arriving together. After the loop
 * every thread checks that every other thread crossed as many barriers.
 *
 * Usage: barrier [barriers]   (default 10000)
 *
 *===----------------------------------------------------------------------===*/
#include "omp_bench.h"

enum { MAX_THREADS = 256, SLOT = 16 };

static long long crossed[MAX_THREADS * SLOT];

int main(int argc, char **argv) {
  const long barriers = kernel_size_arg(argc, argv, 10000);
  double start = 0.0, seconds = 0.0;
  int team = 0, disagreements = 0;
#pragma omp parallel reduction(+ : disagreements)
  {
    const int me = omp_get_thread_num() % MAX_THREADS;
#pragma omp master
    team = omp_get_num_threads();
    for (int warm = 0; warm < 100; ++warm) {
#pragma omp barrier
    }
#pragma omp master
    start = omp_get_wtime();
    for (long b = 0; b < barriers; ++b) {
      crossed[me * SLOT] += 1;
#pragma omp barrier
    }
#pragma omp master
    seconds = omp_get_wtime() - start;
#pragma omp barrier
    for (int t = 0; t < team && t < MAX_THREADS; ++t)
      disagreements += crossed[t * SLOT] != barriers;
  }
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    kernel_checksum_u64(&sum, (uint64_t)crossed[t * SLOT]);
  printf("kernel barrier barriers=%ld threads=%d disagreements=%d\n", barriers, team, disagreements);
  omp_bench_report(&sum, seconds);
  printf("us_per_op %.3f\n", seconds * 1e6 / (double)barriers);
  return disagreements != 0;
}
