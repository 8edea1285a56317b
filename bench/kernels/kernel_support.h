/*===- kernel_support.h - shared plumbing for the bench kernels ------------===*
 *
 * Every kernel in bench/kernels is built twice, natively and as a granule,
 * and the two runs must print byte-identical results. This header gives the
 * kernels the pieces that make that possible without libc differences
 * leaking in: a fixed PRNG (splitmix64, so inputs never depend on rand()),
 * an exact checksum over raw bytes (FNV-1a, so floating results are compared
 * bit for bit instead of through printf rounding), and wall-clock plus
 * thread-CPU timers that the kernel wraps around its hot loop only, so
 * process startup and the granule's AOT step are excluded from the times.
 *
 * Output protocol, parsed by bench/run-kernels.py and the lit tests:
 *   kernel <name> <parameters>
 *   checksum 0x<16 hex digits>
 *   time_s <wall seconds>
 *   cpu_s <thread CPU seconds>
 *   round_time_s <wall seconds of the fastest round, scaled to the whole loop>
 *   round_cpu_s <thread CPU seconds of the fastest round, scaled likewise>
 * Everything but the four *_s timing lines must match between native and
 * granule.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SYNERGY_BENCH_KERNEL_SUPPORT_H
#define SYNERGY_BENCH_KERNEL_SUPPORT_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64: tiny, full-period, and identical on every target. */
typedef struct {
  uint64_t state;
} KernelRng;

static inline uint64_t kernel_rng_next(KernelRng *rng) {
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform double in [0, 1) built from the top 53 bits: exact, no libm. */
static inline double kernel_rng_unit(KernelRng *rng) {
  return (double)(kernel_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, bound); the modulo bias is irrelevant for inputs. */
static inline uint32_t kernel_rng_below(KernelRng *rng, uint32_t bound) {
  return (uint32_t)(kernel_rng_next(rng) % bound);
}

/* FNV-1a over bytes: exact, order-sensitive, endian-stable on both targets
 * (x86-64 and wasm32 are both little-endian). */
typedef struct {
  uint64_t hash;
} KernelChecksum;

static inline void kernel_checksum_init(KernelChecksum *sum) {
  sum->hash = 0xcbf29ce484222325ull;
}

static inline void kernel_checksum_bytes(KernelChecksum *sum, const void *data, size_t size) {
  const unsigned char *bytes = (const unsigned char *)data;
  uint64_t hash = sum->hash;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  sum->hash = hash;
}

static inline void kernel_checksum_u64(KernelChecksum *sum, uint64_t value) {
  kernel_checksum_bytes(sum, &value, sizeof value);
}

/* Both clocks are read around the kernel. Wall time is what a user sees; the
 * calling thread's CPU time is what the benchmark compares by default,
 * because it stays meaningful on a machine shared with other work (the
 * granule runs on one runtime thread, whose clock the WASI layer reads). */
typedef struct {
  double wall_s;
  double cpu_s;
} KernelTime;

static inline double kernel_clock_s(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline KernelTime kernel_time_now(void) {
  KernelTime now = {kernel_clock_s(CLOCK_MONOTONIC), kernel_clock_s(CLOCK_THREAD_CPUTIME_ID)};
  return now;
}

/* The timed loop is cut into rounds: a kernel calls kernel_round_end after
 * each piece of work and says how many work units it held (a sweep, an
 * iteration, a band of matrix rows), where every unit costs the same. Besides
 * the whole loop's time, the timer keeps the fastest per-unit time of any
 * round. On a machine shared with other tenants, a burst of cache or memory
 * bandwidth pressure from a neighbour slows some rounds by tens of percent;
 * the fastest round, scaled to all units, is the kernel's own speed with
 * those bursts filtered out, the same way a minimum over repeated runs is.
 * Kernels whose work cannot be cut into equal units end one round only, and
 * then both figures are the same. */
typedef struct {
  KernelTime start;
  KernelTime round_start;
  double best_wall_per_unit;
  double best_cpu_per_unit;
  long units;
} KernelTimer;

static inline KernelTimer kernel_timer_start(void) {
  KernelTimer timer;
  timer.start = kernel_time_now();
  timer.round_start = timer.start;
  timer.best_wall_per_unit = -1.0;
  timer.best_cpu_per_unit = -1.0;
  timer.units = 0;
  return timer;
}

static inline void kernel_keep_fastest(double *best, double per_unit) {
  if (*best < 0.0 || per_unit < *best)
    *best = per_unit;
}

static inline void kernel_round_end(KernelTimer *timer, long units) {
  const KernelTime now = kernel_time_now();
  kernel_keep_fastest(&timer->best_wall_per_unit, (now.wall_s - timer->round_start.wall_s) / units);
  kernel_keep_fastest(&timer->best_cpu_per_unit, (now.cpu_s - timer->round_start.cpu_s) / units);
  timer->units += units;
  timer->round_start = now;
}

/* argv[1], when given, overrides the problem size (used by --quick and lit). */
static inline long kernel_size_arg(int argc, char **argv, long default_size) {
  if (argc < 2)
    return default_size;
  char *end = NULL;
  long value = strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || value <= 0) {
    fprintf(stderr, "error: size argument must be a positive integer, got '%s'\n", argv[1]);
    exit(2);
  }
  return value;
}

/* Allocation failure is a setup error, never a result. The empty asm makes
 * the block escape, so clang cannot fuse malloc with a following zeroing
 * memset into calloc: glibc's calloc hands out untouched mmap pages, whose
 * page faults would then land inside the timed kernel on the native side
 * only. Every kernel writes its buffers before starting the clock. */
static inline void *kernel_alloc(size_t size) {
  void *p = malloc(size);
  if (!p) {
    fprintf(stderr, "error: out of memory allocating %zu bytes\n", size);
    exit(2);
  }
  __asm__ volatile("" : : "r"(p) : "memory");
  return p;
}

/* Fills `count` doubles with uniform values in [0, 1). */
static inline void kernel_fill_unit(KernelRng *rng, double *values, long count) {
  for (long i = 0; i < count; ++i)
    values[i] = kernel_rng_unit(rng);
}

/* An n x n matrix of values in [0, 1) whose diagonal holds n + 1: strictly
 * diagonally dominant, so LU and triangular solves need no pivoting and stay
 * far from zero divisors. `symmetric` mirrors the lower triangle, which with
 * the dominant diagonal makes the matrix positive definite (for Cholesky). */
static inline void kernel_fill_dominant(KernelRng *rng, double *a, long n, int symmetric) {
  kernel_fill_unit(rng, a, n * n);
  if (symmetric)
    for (long i = 0; i < n; ++i)
      for (long j = i + 1; j < n; ++j)
        a[i * n + j] = a[j * n + i];
  for (long i = 0; i < n; ++i)
    a[i * n + i] = (double)(n + 1);
}

static inline void kernel_report(const KernelChecksum *sum, const KernelTimer *timer) {
  printf("checksum 0x%016" PRIx64 "\n", sum->hash);
  printf("time_s %.4f\n", timer->round_start.wall_s - timer->start.wall_s);
  printf("cpu_s %.4f\n", timer->round_start.cpu_s - timer->start.cpu_s);
  printf("round_time_s %.4f\n", timer->best_wall_per_unit * timer->units);
  printf("round_cpu_s %.4f\n", timer->best_cpu_per_unit * timer->units);
}

#endif
