// The guest's exit status, from return or exit(), is synergy-run's.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm; echo "exit=$?"' | FileCheck %s --check-prefix=ZERO
// RUN: sh -c '%synergy-run %t.wasm return 7; echo "exit=$?"' | FileCheck %s --check-prefix=RET
// RUN: sh -c '%synergy-run %t.wasm exit 42; echo "exit=$?"' | FileCheck %s --check-prefix=EXIT
// ZERO: exit=0
// RET: returning 7
// RET: exit=7
// EXIT: exiting 42
// EXIT-NOT: unreachable
// EXIT: exit=42
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "return") == 0) {
    printf("returning %s\n", argv[2]);
    return atoi(argv[2]);
  }
  if (argc == 3 && strcmp(argv[1], "exit") == 0) {
    printf("exiting %s\n", argv[2]);
    fflush(stdout);
    exit(atoi(argv[2]));
    printf("unreachable\n");
  }
  return 0;
}
