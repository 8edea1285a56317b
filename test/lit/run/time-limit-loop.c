// --time-limit ends a guest spinning in a loop without calls, compiled at
// -O2, with the ordinary trap report naming the function and status 134;
// nothing the guest would print after the loop appears. A guest that ends
// within its limit is not disturbed.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: sh -c 'timeout 120 %synergy-run --time-limit 0.3 %t.wasm empty-loop; echo "exit=$?"' > %t.empty 2>&1
// RUN: FileCheck %s --check-prefix=EMPTY --implicit-check-not=after < %t.empty
// EMPTY: before
// EMPTY-NEXT: trap: time limit exceeded in main
// EMPTY-NEXT: exit=134
// RUN: sh -c 'timeout 120 %synergy-run --time-limit 0.3 %t.wasm counting-loop; echo "exit=$?"' > %t.counting 2>&1
// RUN: FileCheck %s --check-prefix=COUNTING --implicit-check-not=after < %t.counting
// COUNTING: before
// COUNTING-NEXT: trap: time limit exceeded in count_forever
// COUNTING-NEXT: exit=134
// RUN: sh -c 'timeout 120 %synergy-run --time-limit 600 %t.wasm quick; echo "exit=$?"' > %t.quick 2>&1
// RUN: FileCheck %s --check-prefix=QUICK --implicit-check-not=trap < %t.quick
// QUICK: before
// QUICK-NEXT: after 55
// QUICK-NEXT: exit=3
#include <stdio.h>
#include <string.h>

unsigned counter;

__attribute__((noinline)) void count_forever(void) {
  for (;;) counter++;
}

int main(int argc, char** argv) {
  printf("before\n");
  fflush(stdout);
  if (!strcmp(argv[1], "empty-loop")) {
    while (1) {
    }
  } else if (!strcmp(argv[1], "counting-loop")) {
    count_forever();
  }
  for (int i = 1; i <= 10; ++i) counter += i;
  printf("after %u\n", counter);
  return 3;
}
