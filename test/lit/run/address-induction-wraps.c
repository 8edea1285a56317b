// A loop's address induction variable may cross the top of the 32-bit
// address space and go on in low memory: wasm's i32.add wraps, so with a
// 4 GiB memory the walk from 0xffffffe0 upwards reads the top bytes and then
// address 0, 4, 8 ... A faster AOT compile would like to keep such an address
// in a 64-bit register stepped without wrapping (clang cannot do that for the
// wrapping 32-bit counter wasm2c writes, which costs the scalar nussinov and
// floyd-warshall loops their extra instructions). Doing it without a proof
// that the counter never wraps would address 4 GiB further on after the
// crossing: the load traps in the guard region, or reads other bytes, and
// this test fails. address-arithmetic-wraps.c covers single wrapping adds;
// this test covers counters stepped in a loop, upwards and downwards, with
// unit and runtime strides, loads and stores.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// The sums equal the native build's, which walks a model of the same bytes:
// RUN: %host-clang -O2 -DNATIVE %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: grep '^walk' %t.out > %t.granule.walks
// RUN: diff %t.native.out %t.granule.walks
// CHECK: memory is 4 GiB
// CHECK: walk up
// CHECK: walk down
// CHECK: walk store
// CHECK-NOT: trap
#include <stdint.h>
#include <stdio.h>

// Bytes on either side of the wrap point that the walks touch.
enum { kSpan = 256 };

#ifdef NATIVE
// The 2 * kSpan bytes from 2^32 - kSpan to kSpan, wrapped, in one array.
static int32_t model[2 * kSpan / 4];
static int32_t *cell(uint32_t address) { return &model[(uint32_t)(address + kSpan) / 4]; }
#else
// The guest's own linear memory at that address.
static int32_t *cell(uint32_t address) { return (int32_t *)(uintptr_t)address; }
#endif

// Each walk steps a uint32_t address, so the guest's counter is an i32 that
// wraps; volatile keeps clang from folding the walk into a closed form.
__attribute__((noinline)) int64_t walk_up(uint32_t address, uint32_t stride, int count) {
  int64_t sum = 0;
  for (int i = 0; i < count; ++i, address += stride)
    sum += *(volatile int32_t *)cell(address) * (int64_t)(i + 1);
  return sum;
}

__attribute__((noinline)) int64_t walk_down(uint32_t address, uint32_t stride, int count) {
  int64_t sum = 0;
  for (int i = 0; i < count; ++i, address -= stride)
    sum += *(volatile int32_t *)cell(address) ^ i;
  return sum;
}

__attribute__((noinline)) void walk_store(uint32_t address, uint32_t stride, int count) {
  for (int i = 0; i < count; ++i, address += stride)
    *cell(address) = (int32_t)(0x9e3779b9u * (uint32_t)i);
}

int main(void) {
#ifndef NATIVE
  // The top of the address space must be memory: grow to 65536 pages.
  const uint32_t pages = (uint32_t)__builtin_wasm_memory_size(0);
  if (__builtin_wasm_memory_grow(0, 65536 - pages) == (size_t)-1) {
    printf("cannot grow memory to 4 GiB\n");
    return 1;
  }
  printf("memory is 4 GiB\n");
#endif
  const uint32_t top = 0u - (uint32_t)kSpan;
  for (uint32_t offset = 0; offset < 2 * kSpan; offset += 4)
    *cell(top + offset) = (int32_t)((top + offset) * 2654435761u >> 5);

  // Runtime strides, so no step is a constant clang could reason from.
  volatile uint32_t unit = 4, wide = 12;
  volatile int count = kSpan / 4 + kSpan / 8;
  printf("walk up unit %lld\n", (long long)walk_up(top + 64, unit, count));
  printf("walk up wide %lld\n", (long long)walk_up(top + 4, wide, count / 3));
  printf("walk down unit %lld\n", (long long)walk_down(kSpan - 4, unit, count));
  printf("walk down wide %lld\n", (long long)walk_down(kSpan - 8, wide, count / 3));
  walk_store(top + 128, unit, count);
  int64_t stored = 0;
  for (uint32_t offset = 0; offset < 2 * kSpan; offset += 4)
    stored += *cell(top + offset) * (int64_t)(offset + 1);
  printf("walk store %lld\n", (long long)stored);
  return 0;
}
