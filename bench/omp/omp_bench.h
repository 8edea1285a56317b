/*===- omp_bench.h - shared plumbing for the OpenMP bench kernels ----------===*
 *
 * Every kernel in bench/omp is built twice, natively with gcc (libgomp) and
 * as a granule with synergy-cc, and run at several thread counts. It reuses
 * the conventions of bench/kernels/kernel_support.h (its PRNG, FNV-1a
 * checksum, allocation and size argument) and adds the OpenMP timing: the
 * kernel loop is timed with omp_get_wtime, i.e. wall-clock, since with
 * several threads the calling thread's CPU time means nothing.
 *
 * Output protocol, parsed by bench/omp/run.py:
 *   kernel <name> <parameters> threads=<team size>
 *   checksum 0x<16 hex digits>
 *   time_s <wall seconds of the timed loop>
 *   round_time_s <wall seconds of its fastest iteration, times the iterations>
 *   us_per_op <microseconds per region or barrier>   (microbenchmarks only)
 * The kernel and checksum lines must match between native and granule at
 * the same thread count. Inputs are chosen so every floating result is
 * computed in the same order on both sides (each element by one thread, or
 * exact integer-valued sums), so the checksums are exact.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SYNERGY_BENCH_OMP_BENCH_H
#define SYNERGY_BENCH_OMP_BENCH_H

#include "../kernels/kernel_support.h"

#include <omp.h>

/* The size of the team a plain `omp parallel` gets. */
static inline int omp_bench_team_size(void) {
  int team = 0;
#pragma omp parallel
  {
#pragma omp master
    team = omp_get_num_threads();
  }
  return team;
}

/* The timed loop's clock. Besides the whole loop, it keeps the fastest
 * iteration: on a machine shared with other tenants, a burst of a
 * neighbour's memory traffic slows some iterations of a bandwidth-bound
 * kernel by tens of percent, and the fastest one, times the iteration count,
 * is the kernel's own speed with those bursts filtered out (as the serial
 * kernels in bench/kernels do). The master thread reads the clock, right
 * after the barrier that ends each iteration, so timing adds no barrier. */
typedef struct {
  double start;
  double end;
  double round_start;
  double fastest_round;
  int rounds;
} OmpBenchClock;

/* Called by the whole team at the top of iteration 1 of a timed loop:
 * iteration 0 is an untimed warm-up, as in the ParRes kernels, and the clock
 * starts once every thread has finished it. The orphaned barrier and master
 * bind to the caller's parallel region. */
static inline void omp_bench_start_clock(OmpBenchClock *timer) {
#pragma omp barrier
#pragma omp master
  {
    timer->start = omp_get_wtime();
    timer->round_start = timer->start;
    timer->fastest_round = -1.0;
    timer->rounds = 0;
  }
}

/* Called by the whole team right after the barrier that ends an iteration. */
static inline void omp_bench_end_round(OmpBenchClock *timer) {
#pragma omp master
  {
    const double now = omp_get_wtime();
    const double round = now - timer->round_start;
    if (timer->fastest_round < 0.0 || round < timer->fastest_round)
      timer->fastest_round = round;
    ++timer->rounds;
    timer->round_start = now;
  }
}

static inline void omp_bench_report(const KernelChecksum *sum, double seconds) {
  printf("checksum 0x%016" PRIx64 "\n", sum->hash);
  printf("time_s %.6f\n", seconds);
}

/* Called by the initial thread once the kernel's parallel region has joined. */
static inline void omp_bench_stop_clock(OmpBenchClock *timer) {
  timer->end = omp_get_wtime();
}

/* The checksum and both time lines of a kernel timed by an OmpBenchClock. */
static inline void omp_bench_report_loop(const KernelChecksum *sum, const OmpBenchClock *timer) {
  omp_bench_report(sum, timer->end - timer->start);
  printf("round_time_s %.6f\n", timer->fastest_round * timer->rounds);
}

/* The same, for a kernel whose result is one buffer. */
static inline void omp_bench_report_result(const void *result, size_t bytes,
                                           const OmpBenchClock *timer) {
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, result, bytes);
  omp_bench_report_loop(&sum, timer);
}

/* argv[2], when given, overrides the iteration count. */
static inline int omp_bench_iterations(int argc, char **argv, int default_iterations) {
  if (argc < 3)
    return default_iterations;
  char *end = NULL;
  long value = strtol(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || value <= 0 || value > 1000000000) {
    fprintf(stderr, "error: iteration argument must be a positive integer, got '%s'\n", argv[2]);
    exit(2);
  }
  return (int)value;
}

#endif
