// The default guest stack is 8 MiB, as on Linux: recursion that keeps 6 MiB
// of locals on the shadow stack runs; the same program linked with
// -Wl,-z,stack-size=1048576 overflows it and traps (the stack sits first in
// memory, so running off its end faults instead of overwriting data).
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm 96 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: depth 96 with 64 KiB frames: checksum 4656
// RUN: %synergy-cc -O2 %s -Wl,-z,stack-size=1048576 -o %t.small.wasm
// RUN: %synergy-run %t.small.wasm 8 | FileCheck %s --check-prefix=SMALL-FITS
// SMALL-FITS: depth 8 with 64 KiB frames: checksum 36
// RUN: sh -c '%synergy-run %t.small.wasm 96; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s --check-prefix=SMALL < %t.out
// SMALL-NOT: checksum
// SMALL: trap: out of bounds memory access in descend
// SMALL: exit=134
#include <stdio.h>
#include <stdlib.h>

// Each frame's buffer is volatile and indexed at run time, so it must live
// in linear memory (the shadow stack), not in wasm locals.
static long descend(int depth, int index) {
  volatile char frame[64 * 1024];
  frame[index] = (char)depth;
  if (depth == 0) return 0;
  return descend(depth - 1, (index + 4099) % (int)sizeof frame) + frame[index];
}

int main(int argc, char** argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 0;
  printf("depth %d with 64 KiB frames: checksum %ld\n", depth, descend(depth, 0));
  return 0;
}
