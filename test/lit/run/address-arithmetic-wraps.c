// Wasm address arithmetic is 32-bit and wraps: `p - 8` is an i32.add of
// 0xfffffff8, and a pointer near the top of the address space plus a small
// offset lands in low memory. A granule must read exactly those bytes. Any
// rewrite of the generated C or compile flag that did the add in 64 bits
// (widening `(u64)(u32)(a + b)` to `(u64)a + b`) would address 4 GiB further
// on: the load would trap in the guard region, or the loops below would read
// other bytes, and this test fails.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// The loops give what the native build gives:
// RUN: %host-clang -O2 -DNATIVE %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: grep '^loop' %t.out > %t.granule.loops
// RUN: diff %t.native.out %t.granule.loops
// CHECK: top plus 0x20 reads 0x5eed1234
// CHECK: top plus 0x20 writes 0x0badcafe
// CHECK: minus 8 reads 0x00000003
// CHECK: loop
// CHECK-NOT: trap
#include <stdint.h>
#include <stdio.h>

enum { N = 4096 };
static int32_t values[N + 2];
static int32_t differences[N];

// Unsigned int arithmetic, so clang must emit the wrapping i32.add (an
// address from pointer arithmetic could become a load offset instead). Every
// argument below comes through a volatile, so no call is specialised on a
// constant that would fold the add away.
__attribute__((noinline)) int32_t load_at(uint32_t base, uint32_t delta) {
  return *(volatile int32_t *)(uintptr_t)(base + delta);
}

__attribute__((noinline)) void store_at(uint32_t base, uint32_t delta, int32_t value) {
  *(volatile int32_t *)(uintptr_t)(base + delta) = value;
}

// Loops over neighbours and downwards strides, the address shapes a
// vectorizer and a strength reduction work on; their results must equal
// the native build's.
__attribute__((noinline)) void centered_difference(const int32_t *a, int32_t *out, int n) {
  for (int i = 1; i <= n; ++i)
    out[i - 1] = a[i + 1] - a[i - 1];
}

__attribute__((noinline)) int64_t sum_downwards(const int32_t *last, int count) {
  int64_t sum = 0;
  for (int i = 0; i < count; ++i)
    sum += last[-3 * i];
  return sum;
}

int main(void) {
#ifndef NATIVE
  // Low memory below the data segment is linear memory like any other.
  volatile uint32_t top = 0xfffffff0u, up = 0x20u, down = 0xfffffff8u;
  *(volatile int32_t *)(uintptr_t)0x10u = 0x5eed1234;
  printf("top plus 0x20 reads 0x%08x\n", (unsigned)load_at(top, up));
  store_at(top, up, 0x0badcafe);
  printf("top plus 0x20 writes 0x%08x\n", (unsigned)*(volatile int32_t *)(uintptr_t)0x10u);
  int32_t small[6] = {0, 1, 2, 3, 4, 5};
  int32_t *volatile past_end = &small[5];
  printf("minus 8 reads 0x%08x\n", (unsigned)load_at((uint32_t)(uintptr_t)past_end, down));
#endif
  int32_t *volatile in = values, *volatile out = differences;
  volatile int n = N;
  for (int i = 0; i < N + 2; ++i)
    values[i] = (int32_t)((uint32_t)i * 2654435761u >> 7);
  centered_difference(in, out, n);
  int64_t total = 0;
  for (int i = 0; i < N; ++i)
    total += (int64_t)differences[i] * (i % 7 + 1);
  printf("loop centered difference %lld\n", (long long)total);
  printf("loop downwards %lld\n", (long long)sum_downwards(in + N + 1, (n + 2) / 3));
  return 0;
}
