// Guest stdout and stderr go straight to the host's fds 1 and 2, so with both
// sent to one file the lines keep the order the guest wrote them in, and a
// trap message from the runtime comes after everything the guest flushed.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm > %t.out 2>&1; echo "exit=$?" >> %t.out'
// RUN: FileCheck %s < %t.out
// CHECK: out 1
// CHECK-NEXT: err 1
// CHECK-NEXT: out 2
// CHECK-NEXT: err 2
// CHECK-NEXT: {{^ +$}}
// CHECK-NEXT: big write of 100000 bytes: 100000
// CHECK-NEXT: last line
// CHECK-NEXT: trap: unreachable
// CHECK-NEXT: exit=134
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char big[100000];

int main(void) {
  printf("out 1\n");
  fflush(stdout);
  fprintf(stderr, "err 1\n");
  printf("out 2\n");
  fflush(stdout);
  fprintf(stderr, "err 2\n");
  memset(big, ' ', sizeof big);
  big[sizeof big - 1] = '\n';
  size_t done = 0;
  while (done < sizeof big) {
    ssize_t n = write(1, big + done, sizeof big - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  fprintf(stderr, "big write of %zu bytes: %zu\n", sizeof big, done);
  printf("last line\n");
  fflush(stdout);
  __builtin_trap();
}
