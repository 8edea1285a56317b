// Guest copies and fills of run-time size compile to wasm's memory.copy and
// memory.fill (synergy-cc passes -mbulk-memory), which wasm2c runs as one
// bounds check around the host's memmove/memset, instead of calls into
// wasi-libc's memcpy loop compiled to wasm.
//
// The copy loop, the overlapping memmove and the memset below are bulk
// instructions in the object, and no call to libc's memcpy/memmove/memset
// is left:
// RUN: %synergy-cc -O2 -c %s -o %t.o
// RUN: llvm-objdump -d %t.o > %t.dis
// RUN: FileCheck %s --check-prefix=WASM --input-file %t.dis
// WASM-DAG: memory.copy
// WASM-DAG: memory.fill
// RUN: not grep -E 'call .*<(memcpy|memmove|memset)>' %t.dis
//
// They give what the native build gives, at every length and overlap:
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: %synergy-run %t.wasm > %t.granule.out
// RUN: diff %t.native.out %t.granule.out
// RUN: FileCheck %s --check-prefix=OUT --input-file %t.granule.out
// OUT: copied 0x{{[0-9a-f]+}}
// OUT-NEXT: moved 0x{{[0-9a-f]+}}
// OUT-NEXT: filled 0x{{[0-9a-f]+}}
//
// A copy whose source runs past the end of linear memory traps like any
// other out-of-bounds access (status 134), and the guest goes no further:
// RUN: not %synergy-run %t.wasm overflow > %t.trap.out 2> %t.trap.err
// RUN: FileCheck %s --check-prefix=TRAP --input-file %t.trap.err
// TRAP: trap: out of bounds memory access in
// RUN: FileCheck %s --check-prefix=TRAP-OUT --input-file %t.trap.out
// TRAP-OUT: copying past the end
// TRAP-OUT-NOT: copied
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBytes = 1 << 16 };

static uint64_t fnv1a(const unsigned char* bytes, size_t size) {
  uint64_t hash = 0xcbf29ce484222325u;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3u;
  return hash;
}

// A loop clang recognises as memcpy; the length comes from argc so that it
// cannot be expanded inline.
static void __attribute__((noinline)) copy_doubles(double* restrict to, const double* restrict from,
                                                   long count) {
  for (long i = 0; i < count; ++i) to[i] = from[i];
}

int main(int argc, char** argv) {
  unsigned char* buffer = malloc(kBytes);
  double* from = malloc(kBytes);
  double* to = malloc(kBytes);
  if (!buffer || !from || !to) return 1;
  for (long i = 0; i < kBytes; ++i) buffer[i] = (unsigned char)(i * 131 + 7);
  for (long i = 0; i < kBytes / 8; ++i) from[i] = (double)i * 0.5;

#ifdef __wasm__
  if (argc > 1) {
    // 64 KiB from 16 bytes before the end of linear memory.
    uintptr_t near_end = (uintptr_t)__builtin_wasm_memory_size(0) * 65536u - 16u;
    printf("copying past the end\n");
    fflush(stdout);
    memcpy(to, (const void*)near_end, (size_t)kBytes - (size_t)argc);
    printf("copied %d\n", ((unsigned char*)to)[0]);
    return 0;
  }
#endif

  long count = kBytes / 8 - argc;
  copy_doubles(to, from, count);
  printf("copied 0x%016llx\n", (unsigned long long)fnv1a((unsigned char*)to, count * 8));
  // Overlapping moves, both directions, odd lengths and offsets.
  for (int shift = 1; shift < 40; shift += 3) {
    memmove(buffer + shift, buffer, kBytes / 2 + shift * argc);
    memmove(buffer + 7, buffer + 7 + shift, kBytes / 3 - shift * argc);
  }
  printf("moved 0x%016llx\n", (unsigned long long)fnv1a(buffer, kBytes));
  for (int start = 0; start < 64; start += 5)
    memset(buffer + start * 97, start + argc, (size_t)(start * 113 + argc));
  printf("filled 0x%016llx\n", (unsigned long long)fnv1a(buffer, kBytes));
  return 0;
}
