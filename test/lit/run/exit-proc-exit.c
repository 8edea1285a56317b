// proc_exit ends the guest with exactly its code, from any call depth, after
// stdio is flushed by exit() but with no flush for _Exit(); a guest that
// never exits explicitly returns main's value.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: not %synergy-run %t.wasm deep 7
// RUN: sh -c '%synergy-run %t.wasm deep 7; test $? -eq 7'
// RUN: sh -c '%synergy-run %t.wasm deep 7 > %t.deep.out; test $? -eq 7' && FileCheck %s --check-prefix=DEEP < %t.deep.out
// RUN: sh -c '%synergy-run %t.wasm quick 3 > %t.quick.out; test $? -eq 3' && FileCheck %s --check-prefix=QUICK --allow-empty < %t.quick.out
// RUN: sh -c '%synergy-run %t.wasm atexit 0 > %t.atexit.out; test $? -eq 0' && FileCheck %s --check-prefix=ATEXIT < %t.atexit.out
// RUN: sh -c '%synergy-run %t.wasm deep 255; test $? -eq 255'
// RUN: %synergy-run %t.wasm
// DEEP: depth 10 buffered
// DEEP-NOT: after exit
// QUICK-NOT: unflushed
// ATEXIT: main done
// ATEXIT-NEXT: atexit handler ran
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void descend(int depth, int code) {
  if (depth == 10) {
    printf("depth %d buffered\n", depth);
    exit(code);
  }
  descend(depth + 1, code);
  printf("after exit\n");
}

static void handler(void) { printf("atexit handler ran\n"); }

int main(int argc, char** argv) {
  if (argc < 3) return 0;
  int code = atoi(argv[2]);
  if (!strcmp(argv[1], "deep")) descend(0, code);
  if (!strcmp(argv[1], "quick")) {
    printf("unflushed");
    _Exit(code);
  }
  if (!strcmp(argv[1], "atexit")) {
    atexit(handler);
    printf("main done\n");
    exit(code);
  }
  return 1;
}
