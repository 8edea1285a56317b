// A guest load far outside linear memory hits the guard pages: the granule
// traps with a named function, and the host exits cleanly with status 134.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: trap: out of bounds memory access in read_far_away
// CHECK: exit=134
#include <stdio.h>

__attribute__((noinline)) int read_far_away(unsigned address) {
  return *(volatile int*)address;
}

int main(void) {
  printf("before\n");
  return read_far_away(0xfffffff0u);
}
