// proc_raise has no signal handler to run in a WASI guest, so it ends the
// guest as a trap naming the signal, and the host exits with the trap status.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm > %t.out 2>&1; echo "exit=$?" >> %t.out'
// RUN: FileCheck %s < %t.out
// CHECK: raising 6
// CHECK-NEXT: trap: proc_raise(6)
// CHECK-NEXT: exit=134
#include <stdio.h>

__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_raise")))
int wasiProcRaise(int signal);

int main(void) {
  printf("raising 6\n");
  fflush(stdout);
  wasiProcRaise(6);
  printf("still running\n");
  return 0;
}
