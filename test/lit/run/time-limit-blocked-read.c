// A guest blocked in a host call (fd_read on a pipe whose writer never closes
// it) cannot be unwound there; --time-limit still ends it, after a grace
// period, with the trap report and status 134, and the read never returns.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: rm -f %t.fifo && mkfifo %t.fifo
// Opened read-write, the fifo has a writer (the guest itself) for good.
// RUN: sh -c 'timeout 120 %synergy-run --time-limit 0.3 %t.wasm 0<>%t.fifo; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s --implicit-check-not=read < %t.out
// CHECK: waiting
// CHECK-NEXT: trap: time limit exceeded in <host function> (every guest thread was blocked in a host call)
// CHECK-NEXT: exit=134
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char buffer[16];
  printf("waiting\n");
  fflush(stdout);
  ssize_t got = read(0, buffer, sizeof buffer);
  printf("read %zd bytes\n", got);
  return 0;
}
