// MODE: openmp
//===- parallel_phases.c - one long-lived team through many worksharing loops ===//
//
// A 1-D diffusion and a red-black relaxation, both in integers, run as
// sequences of `omp for` loops inside a single parallel region, with
// `single` swapping the buffers between steps. Each step reads what the
// previous step's threads wrote, so a missing implicit barrier, or a DSM
// that does not publish writes at one, gives a different checksum.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

enum { CELLS = 4099, STEPS = 200 };

static int buffer_a[CELLS], buffer_b[CELLS], grid[CELLS];

static uint64_t fnv1a(const int *data, int count) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (int i = 0; i < count; ++i) {
    hash ^= (uint32_t)data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

int main(void) {
  for (int i = 0; i < CELLS; ++i) {
    buffer_a[i] = (i % 97 == 0) ? 1 << 20 : (i * 31) % 1000;
    grid[i] = (i * 7) % 5000;
  }
  int *current = buffer_a, *next = buffer_b;
#pragma omp parallel
  {
    for (int step = 0; step < STEPS; ++step) {
#pragma omp for schedule(static)
      for (int i = 0; i < CELLS; ++i) {
        int left = current[i == 0 ? CELLS - 1 : i - 1];
        int right = current[i == CELLS - 1 ? 0 : i + 1];
        next[i] = (left + 2 * current[i] + right) / 4;
      }
#pragma omp single
      {
        int *swap = current;
        current = next;
        next = swap;
      }
    }
    for (int sweep = 0; sweep < STEPS; ++sweep) {
      for (int colour = 0; colour < 2; ++colour) {
#pragma omp for schedule(dynamic, 64)
        for (int i = 1 + colour; i < CELLS - 1; i += 2)
          grid[i] = (grid[i - 1] + grid[i + 1] + 2 * grid[i] + sweep) / 4;
      }
    }
  }
  long long total = 0;
  for (int i = 0; i < CELLS; ++i)
    total += current[i];
  printf("diffusion total %lld checksum %016llx\n", total,
         (unsigned long long)fnv1a(current, CELLS));
  printf("relaxation checksum %016llx\n", (unsigned long long)fnv1a(grid, CELLS));
  return 0;
}
