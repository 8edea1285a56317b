// Loops whose address counters the AOT compile versions
// (runtime/granule/AddressInductionVersioning.h): before the loop a check
// decides whether any address the loop computes from a counter leaves
// [0, 2^32) within the loop's trip count; if none does, a copy with 64-bit
// addresses runs, else the loop as wasm2c wrote it. Every walk below runs
// at the top of a 4 GiB memory, on both sides of that check: ending exactly
// at the last word below 2^32 (the 64-bit copy), one step further (the
// original loop, whose counter wraps to address 0), starting past the wrap,
// and downwards across address 0. A check that is off by one step, forgets
// an offset added to the counter or the step taken before a use, or a trip
// count that is too short makes a crossing walk run in the 64-bit copy: its
// addresses then lie 4 GiB further on, in the guard region (a trap) or other
// bytes, and the sums differ from the native model's.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: %host-clang -O2 -DNATIVE %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: grep -v '^memory' %t.out > %t.granule.walks
// RUN: diff %t.native.out %t.granule.walks
// CHECK: memory is 4 GiB
// CHECK: strided max
// CHECK: pair sum
// CHECK: scatter
// CHECK-NOT: trap
#include <stdint.h>
#include <stdio.h>

// Bytes on either side of the wrap point that the walks touch.
enum { kSpan = 512 };

#ifdef NATIVE
// The 2 * kSpan bytes from 2^32 - kSpan to kSpan, wrapped, in one array.
static int32_t model[2 * kSpan / 4];
static int32_t *cell(uint32_t address) { return &model[(uint32_t)(address + kSpan) / 4]; }
#else
static int32_t *cell(uint32_t address) { return (int32_t *)(uintptr_t)address; }
#endif

// nussinov's split loop: a row forwards by 4, a column by a run-time stride,
// a counter to the trip count.
// The running maxima are summed, so that every element counts.
__attribute__((noinline)) int64_t strided_max(uint32_t row, uint32_t column, uint32_t stride,
                                              int count) {
  int32_t best = INT32_MIN;
  int64_t maxima = 0;
  for (int k = 0; k < count; ++k, row += 4, column += stride) {
    const int32_t value = *cell(row) + *cell(column);
    best = value > best ? value : best;
    maxima += best;
  }
  return maxima;
}

// Two streams at constant offsets from one counter, which steps downwards.
__attribute__((noinline)) int64_t pair_sum(uint32_t address, uint32_t stride, int count) {
  int64_t sum = 0;
  for (int k = 0; k < count; ++k, address -= stride)
    sum += (int64_t)*cell(address) * 3 - *cell(address + 8);
  return sum;
}

// Stores through a counter read after its step.
__attribute__((noinline)) void scatter(uint32_t address, uint32_t stride, int count) {
  for (int k = 0; k < count; ++k) {
    address += stride;
    *cell(address - 4) = (int32_t)(0x9e3779b9u * (uint32_t)(k + 1));
  }
}

static void fill(void) {
  for (uint32_t offset = 0; offset < 2 * kSpan; offset += 4)
    *cell(0u - kSpan + offset) = (int32_t)((0u - kSpan + offset) * 2654435761u >> 7);
}

static int64_t memory_sum(void) {
  int64_t sum = 0;
  for (uint32_t offset = 0; offset < 2 * kSpan; offset += 4)
    sum += *cell(0u - kSpan + offset) * (int64_t)(offset + 1);
  return sum;
}

int main(void) {
#ifndef NATIVE
  const uint32_t pages = (uint32_t)__builtin_wasm_memory_size(0);
  if (__builtin_wasm_memory_grow(0, 65536 - pages) == (size_t)-1) {
    printf("cannot grow memory to 4 GiB\n");
    return 1;
  }
  printf("memory is 4 GiB\n");
#endif
  fill();
  // volatile: no constant for clang to reason from on either side.
  volatile uint32_t four = 4, twelve = 12;
  const uint32_t top = 0u - (uint32_t)kSpan;
  // Counts around the one that ends on the last word below 2^32.
  for (volatile int extra = -2; extra <= 2; ++extra) {
    // Row from the top window's start, column from its middle by 12.
    const int column_fits = (kSpan / 2 - 4) / 12 + 1;
    printf("strided max %d %lld\n", extra,
           (long long)strided_max(top, top + kSpan / 2, twelve, column_fits + extra));
    printf("strided max unit %d %lld\n", extra,
           (long long)strided_max(top + kSpan / 2, top, four, kSpan / 8 + extra));
    // Down from low memory across address 0, the +8 stream ahead.
    printf("pair sum %d %lld\n", extra,
           (long long)pair_sum(kSpan / 2 - 4, four, kSpan / 8 + extra));
    printf("pair sum wide %d %lld\n", extra,
           (long long)pair_sum(kSpan / 2 + 4, twelve, (kSpan / 2 + 4) / 12 + 1 + extra));
    // Up to the top: the store lands at the counter after its step, minus 4.
    scatter(top + kSpan / 2, four, kSpan / 8 + extra);
    printf("scatter %d %lld\n", extra, (long long)memory_sum());
    fill();
  }
  // Starting past the wrap: all addresses low, all in range.
  printf("strided max low %lld\n", (long long)strided_max(16, 64, four, kSpan / 16));
  return 0;
}
