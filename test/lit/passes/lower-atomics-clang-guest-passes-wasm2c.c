// A guest built the way a threaded program is (clang -matomics, shared
// memory) keeps no atomic instruction after lowering, has a non-shared memory
// and no longer declares threads, and wasm2c accepts it.
//
// RUN: clang-19 --target=wasm32-wasi --sysroot=/usr -matomics -mbulk-memory -O2 -nostdlib \
// RUN:   -Wl,--no-entry -Wl,--export=work -Wl,--shared-memory -Wl,--max-memory=1048576 \
// RUN:   %s -o %t.wasm
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=BEFORE
// RUN: %synergy-opt --pass=lower-atomics %t.wasm -o %t.out.wasm
// RUN: %wasm-dis %t.out.wasm | FileCheck %s
// RUN: wasm2c %t.out.wasm -o %t.c

#include <stdatomic.h>

_Atomic int counter;
_Atomic long long total;
struct Flags {
  int pad;
  _Atomic int word;
  _Atomic char byte;
  _Atomic short half;
} flags;

int work(int n) {
  for (int i = 0; i < n; ++i) atomic_fetch_add(&counter, i);
  atomic_fetch_sub(&total, 3);
  atomic_fetch_or(&flags.word, 4);
  atomic_fetch_xor(&flags.byte, 1);
  atomic_exchange(&flags.half, 7);
  int expected = 0;
  atomic_compare_exchange_strong(&flags.word, &expected, 9);
  atomic_store(&counter, 1);
  atomic_thread_fence(memory_order_seq_cst);
  __builtin_wasm_memory_atomic_notify((int*)&flags.word, 1);
  __builtin_wasm_memory_atomic_wait32((int*)&flags.word, 5, 0);
  return atomic_load(&counter) + (int)atomic_load(&total) + atomic_load(&flags.byte);
}

// BEFORE: (memory $0 (shared
// BEFORE: i32.atomic.rmw.add
// BEFORE: memory.atomic.wait32

// CHECK-DAG: (import "synergy" "atomic_rmw_add_i32"
// CHECK-DAG: (import "synergy" "atomic_rmw8_xor_u_i32"
// CHECK-DAG: (import "synergy" "atomic_rmw16_xchg_u_i32"
// CHECK-DAG: (import "synergy" "atomic_wait32"
// CHECK:     (memory $0 {{[0-9]+ [0-9]+}})
// CHECK-NOT: shared
// CHECK-NOT: {{(i32|i64|memory)\.atomic|atomic\.fence}}
// CHECK:     ;; features section: mutable-globals
// CHECK-NOT: threads
