// A granule runs under Valgrind, and callgrind charges its instructions to
// the guest's own functions. clang 19 writes DWARF 5 by default, and
// Valgrind 3.19 gave up on any process that loaded such an AOT object
// ("I can't recover. Giving up."), so no granule could be profiled or
// checked with it; the AOT compile now asks for DWARF 4 line tables
// (runtime/granule/AotCompiler.cpp). Where perf has no hardware counters,
// as in a Firecracker guest, callgrind is how a granule's instructions are
// counted against its native build's.
//
// REQUIRES: valgrind
// The first run fills a fresh cache outside Valgrind, so the AOT compile is
// not profiled; the second loads the cached object under callgrind.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: rm -rf %t.cache
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm > %t.out
// RUN: env SYNERGY_CACHE_DIR=%t.cache valgrind -q --tool=callgrind --callgrind-out-file=%t.callgrind %synergy-run %t.wasm > %t.valgrind.out
// The results are the native build's, with and without Valgrind:
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: diff %t.native.out %t.valgrind.out
// Read through the object's line tables, the hot loop has a source file
// (clang may inline mix_words into _start):
// RUN: callgrind_annotate %t.callgrind | FileCheck %s
// CHECK: {{guest\.c:Z_guestZ_(mix_words|_start) }}
#include <stdint.h>
#include <stdio.h>

enum { N = 4096, ROUNDS = 100 };
static uint32_t words[N];

__attribute__((noinline, export_name("mix_words"))) uint32_t mix_words(uint32_t seed) {
  uint32_t hash = seed;
  for (int round = 0; round < ROUNDS; ++round)
    for (int i = 0; i < N; ++i) {
      hash = (hash ^ words[i]) * 16777619u;
      words[i] = hash >> 3;
    }
  return hash;
}

int main(void) {
  for (int i = 0; i < N; ++i)
    words[i] = (uint32_t)i * 2654435761u;
  printf("hash %08x\n", mix_words(2166136261u));
  return 0;
}
