/*===- sort.c - quicksort of pseudo-random 32-bit keys ---------------------===*
 *
 * An in-place quicksort (median-of-three pivot, Hoare partition, insertion
 * sort for short ranges, recursion on the smaller side only) over an array
 * of pseudo-random keys. It is branchy, integer, data-dependent code with
 * unpredictable branches and little arithmetic: it measures control flow and
 * load/store address generation, not floating point. The sort is our own
 * rather than libc qsort so both targets run the same code, not two
 * different C libraries.
 *
 * Usage: sort [count]   (default 8000000 keys)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { INSERTION_CUTOFF = 16 };

static void insertion_sort(uint32_t *keys, long count) {
  for (long i = 1; i < count; ++i) {
    const uint32_t key = keys[i];
    long j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      --j;
    }
    keys[j + 1] = key;
  }
}

static inline void swap_keys(uint32_t *a, uint32_t *b) {
  const uint32_t t = *a;
  *a = *b;
  *b = t;
}

/* Orders keys[lo], keys[mid], keys[hi] and returns the median, which then
 * doubles as a sentinel on each side of the partition. */
static uint32_t median_of_three(uint32_t *keys, long lo, long hi) {
  const long mid = lo + (hi - lo) / 2;
  if (keys[mid] < keys[lo])
    swap_keys(&keys[mid], &keys[lo]);
  if (keys[hi] < keys[lo])
    swap_keys(&keys[hi], &keys[lo]);
  if (keys[hi] < keys[mid])
    swap_keys(&keys[hi], &keys[mid]);
  return keys[mid];
}

static void quicksort(uint32_t *keys, long lo, long hi) {
  while (hi - lo + 1 > INSERTION_CUTOFF) {
    const uint32_t pivot = median_of_three(keys, lo, hi);
    long i = lo - 1;
    long j = hi + 1;
    for (;;) {
      do
        ++i;
      while (keys[i] < pivot);
      do
        --j;
      while (keys[j] > pivot);
      if (i >= j)
        break;
      swap_keys(&keys[i], &keys[j]);
    }
    /* Recurse into the smaller half so the stack stays O(log n). */
    if (j - lo < hi - j) {
      quicksort(keys, lo, j);
      lo = j + 1;
    } else {
      quicksort(keys, j + 1, hi);
      hi = j;
    }
  }
  insertion_sort(keys + lo, hi - lo + 1);
}

int main(int argc, char **argv) {
  const long count = kernel_size_arg(argc, argv, 8000000);
  uint32_t *keys = kernel_alloc((size_t)count * sizeof(uint32_t));
  KernelRng rng = {8675309};
  for (long i = 0; i < count; ++i)
    keys[i] = (uint32_t)(kernel_rng_next(&rng) >> 32);

  KernelTimer timer = kernel_timer_start();
  quicksort(keys, 0, count - 1);
  kernel_round_end(&timer, 1);

  long inversions = 0;
  for (long i = 1; i < count; ++i)
    inversions += keys[i - 1] > keys[i];
  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, keys, (size_t)count * sizeof(uint32_t));
  printf("kernel sort count=%ld inversions=%ld\n", count, inversions);
  kernel_report(&sum, &timer);
  free(keys);
  return inversions == 0 ? 0 : 1;
}
