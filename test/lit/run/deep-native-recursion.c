// Each guest call is a native call, so the guest's recursion depth is
// bounded by the native stack synergy-run gives it (64 MiB, far above the
// 8 MiB main thread a plain process starts on). Recursion 1.5 million deep
// keeps at least 8 bytes per frame live on that stack and must finish, with
// the same result as the loop that computes it without recursion; deeper
// still, it traps cleanly (trap-stack-overflow.c).
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm 1500000 | FileCheck %s
// CHECK: recursive [[RESULT:[0-9]+]]
// CHECK-NEXT: iterative [[RESULT]]
#include <stdio.h>
#include <stdlib.h>

// Not a tail call: the mixing after the call keeps each frame alive.
static unsigned long long chain(unsigned n, unsigned long long acc) {
  if (n == 0) return acc;
  unsigned long long r = chain(n - 1, acc * 6364136223846793005ull + n);
  return r ^ (r >> 7) ^ n;
}

static unsigned long long chainByLoop(unsigned n, unsigned long long acc) {
  for (unsigned i = n; i > 0; --i) acc = acc * 6364136223846793005ull + i;
  for (unsigned i = 1; i <= n; ++i) acc = acc ^ (acc >> 7) ^ i;
  return acc;
}

int main(int argc, char **argv) {
  unsigned depth = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
  printf("recursive %llu\n", chain(depth, 1));
  printf("iterative %llu\n", chainByLoop(depth, 1));
  return 0;
}
