// `unreachable` (here from __builtin_trap) ends the granule, not the host.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: trap: unreachable executed in give_up
// CHECK: exit=134
__attribute__((noinline)) void give_up(void) { __builtin_trap(); }

int main(void) {
  give_up();
  return 0;
}
