// MODE: openmp
//===- malloc_parallel.c - the allocator under concurrent use -------------===//
//
// Every thread makes thousands of small allocations of varying size,
// fills each with a pattern naming its owner, grows some with realloc,
// frees every other one and allocates again, and then checks that no block
// was overwritten by another thread's. A second pass allocates in one loop
// and frees in another with a different schedule, so blocks are freed by
// threads that did not allocate them. calloc'd memory must read as zero.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PER_THREAD = 2000, SHARED_BLOCKS = 5003 };

static size_t block_size(int thread, int index) { return (size_t)((index * 37 + thread * 11) % 300 + 1); }

static unsigned char pattern(int thread, int index) { return (unsigned char)(thread * 31 + index * 7 + 1); }

static int check_block(const unsigned char *block, size_t size, unsigned char expected) {
  for (size_t k = 0; k < size; ++k)
    if (block[k] != expected)
      return 0;
  return 1;
}

static void *shared_blocks[SHARED_BLOCKS];

int main(void) {
  int corrupt = 0, failed = 0, not_zero = 0;
  long long bytes = 0;

#pragma omp parallel reduction(+ : corrupt, failed, not_zero, bytes)
  {
    const int me = omp_get_thread_num();
    unsigned char **blocks = malloc(PER_THREAD * sizeof *blocks);
    size_t *sizes = malloc(PER_THREAD * sizeof *sizes);
    failed += !blocks || !sizes;
    if (blocks && sizes) {
      for (int i = 0; i < PER_THREAD; ++i) {
        sizes[i] = block_size(me, i);
        blocks[i] = malloc(sizes[i]);
        if (!blocks[i]) {
          failed += 1;
          continue;
        }
        memset(blocks[i], pattern(me, i), sizes[i]);
        bytes += (long long)sizes[i];
      }
      for (int i = 0; i < PER_THREAD; i += 5) {
        if (!blocks[i])
          continue;
        size_t grown = sizes[i] * 3 + 17;
        unsigned char *moved = realloc(blocks[i], grown);
        if (!moved) {
          failed += 1;
          continue;
        }
        corrupt += !check_block(moved, sizes[i], pattern(me, i));
        memset(moved, pattern(me, i), grown);
        blocks[i] = moved;
        sizes[i] = grown;
      }
      for (int i = 1; i < PER_THREAD; i += 2) {
        free(blocks[i]);
        sizes[i] = block_size(me, i + 1000);
        blocks[i] = calloc(sizes[i], 1);
        if (!blocks[i]) {
          failed += 1;
          continue;
        }
        not_zero += !check_block(blocks[i], sizes[i], 0);
        memset(blocks[i], pattern(me, i), sizes[i]);
      }
      for (int i = 0; i < PER_THREAD; ++i) {
        if (blocks[i])
          corrupt += !check_block(blocks[i], sizes[i], pattern(me, i));
        free(blocks[i]);
      }
    }
    free(blocks);
    free(sizes);
  }
  printf("private blocks: bytes %lld corrupt %d failed %d calloc not zero %d\n", bytes, corrupt,
         failed, not_zero);

  int cross_corrupt = 0, cross_failed = 0;
#pragma omp parallel for schedule(static) reduction(+ : cross_failed)
  for (int i = 0; i < SHARED_BLOCKS; ++i) {
    size_t size = block_size(0, i) + 8;
    unsigned char *block = malloc(size);
    if (!block) {
      cross_failed += 1;
      shared_blocks[i] = NULL;
      continue;
    }
    memset(block, pattern(1, i), size);
    shared_blocks[i] = block;
  }
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : cross_corrupt)
  for (int i = SHARED_BLOCKS - 1; i >= 0; --i) {
    if (shared_blocks[i])
      cross_corrupt += !check_block(shared_blocks[i], block_size(0, i) + 8, pattern(1, i));
    free(shared_blocks[i]);
  }
  printf("cross-thread blocks %d corrupt %d failed %d\n", SHARED_BLOCKS, cross_corrupt,
         cross_failed);
  return 0;
}
