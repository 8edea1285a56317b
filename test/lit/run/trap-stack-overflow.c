// Unbounded recursion exhausts the granule thread's native stack; the fault
// on its guard page becomes a trap on the thread's alternate signal stack.
// Built with -O2 so locals live in registers, not on the 64 KiB shadow stack
// in linear memory (exhausting that one is an out-of-bounds trap instead).
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: trap: call stack exhausted in recurse
// CHECK: exit=134
volatile int sink;

int recurse(int n) {
  sink = n;
  return recurse(n + 1) + recurse(n + 2);
}

int main(void) { return recurse(0); }
