// Cost of setjmp/longjmp support on calls (issue 18). LLVM's lowering turns
// every call made by a function that calls setjmp into an env.invoke_* import
// that the runtime runs under a host jump target; calls anywhere else are
// untouched. Both loops below make the same 20M small calls plus fib(32):
// `p` from a function without setjmp, `s` from one with setjmp. The
// difference divided by the call count is the cost of one invoke.
//
//   build/bin/synergy-cc -O2 bench/setjmp/invoke_cost.c -o invoke_cost.wasm
//   clang-19 -O2 bench/setjmp/invoke_cost.c -o invoke_cost.native
//   time build/bin/synergy-run invoke_cost.wasm p 20000000
//   time build/bin/synergy-run invoke_cost.wasm s 20000000
//   time ./invoke_cost.native s 20000000
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static unsigned step(unsigned x) { return x * 1664525u + 1013904223u; }

static jmp_buf target;

__attribute__((noinline)) static unsigned withoutSetjmp(int calls) {
  unsigned x = 1;
  for (int i = 0; i < calls; ++i) x = step(x);
  return x + fib(32);
}

__attribute__((noinline)) static unsigned withSetjmp(int calls) {
  if (setjmp(target)) return 0;
  unsigned x = 1;
  for (int i = 0; i < calls; ++i) x = step(x);
  return x + fib(32);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: invoke_cost p|s CALLS\n");
    return 2;
  }
  int calls = atoi(argv[2]);
  printf("%u\n", argv[1][0] == 's' ? withSetjmp(calls) : withoutSetjmp(calls));
  return 0;
}
