/*===- nussinov.c - RNA secondary structure by dynamic programming ---------===*
 *
 * Nussinov's maximum base-pairing recurrence over a random sequence of four
 * bases: the table entry for span [i, j] is the best of dropping either
 * end, pairing the ends, or splitting at any k in between. The split loop
 * reads a row forwards and a column downwards, integer max only.
 *
 * Usage: nussinov [n]   (default n = 1100)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

static int pairs(uint8_t a, uint8_t b) { return a + b == 3; }

static void nussinov(long n, const uint8_t *restrict sequence, int32_t *restrict table) {
  for (long i = n - 1; i >= 0; --i) {
    for (long j = i + 1; j < n; ++j) {
      int32_t best = max32(table[i * n + j - 1], table[(i + 1) * n + j]);
      if (i + 1 < j)
        best = max32(best, table[(i + 1) * n + j - 1] + pairs(sequence[i], sequence[j]));
      else
        best = max32(best, pairs(sequence[i], sequence[j]));
      for (long k = i + 1; k < j; ++k)
        best = max32(best, table[i * n + k] + table[(k + 1) * n + j]);
      table[i * n + j] = best;
    }
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 1100);
  uint8_t *sequence = kernel_alloc(n);
  /* One spare row: the recurrence reads row i + 1 for i = n - 1. */
  int32_t *table = kernel_alloc((n + 1) * n * sizeof(int32_t));
  KernelRng rng = {126};
  for (long i = 0; i < n; ++i)
    sequence[i] = (uint8_t)kernel_rng_below(&rng, 4);
  memset(table, 0, (n + 1) * n * sizeof(int32_t));

  KernelTimer timer = kernel_timer_start();
  nussinov(n, sequence, table);
  kernel_round_end(&timer, 1);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, table, n * n * sizeof(int32_t));
  printf("kernel nussinov n=%ld best=%d\n", n, (int)table[n - 1]);
  kernel_report(&sum, &timer);
  return 0;
}
