// End to end: a guest built with atomics goes through synergy-cc (whose
// pipeline lowers them) and runs on the runtime's host atomics
// (runtime/granule/AtomicHostFunctions.cpp), with wasm's results for every
// operation, including narrow wrap-around and the three wait outcomes. A
// misaligned atomic access traps, as in wasm.
//
// RUN: %synergy-cc -matomics -O2 %s -o %t.wasm
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=LOWERED
// RUN: %synergy-run %t.wasm | FileCheck %s
// RUN: %synergy-cc -matomics -O2 -DMISALIGNED %s -o %t.misaligned.wasm
// RUN: not %synergy-run %t.misaligned.wasm 2>&1 | FileCheck %s --check-prefix=TRAP

#include <stdatomic.h>
#include <stdio.h>

_Atomic int counter;
_Atomic long long total;
_Atomic unsigned char byte;
static int words[4];

int main(int argc, char** argv) {
#ifdef MISALIGNED
  int* misaligned = (int*)((char*)words + argc);
  __atomic_fetch_add(misaligned, 1, __ATOMIC_SEQ_CST);
  puts("not reached");
#endif
  for (int i = 0; i < 10; i++) atomic_fetch_add(&counter, i);
  atomic_fetch_sub(&total, 5);
  int expected = 45;
  int swapped = atomic_compare_exchange_strong(&counter, &expected, 100);
  atomic_fetch_or(&byte, 0x81);
  atomic_fetch_add(&byte, 0x80);
  int woken = __builtin_wasm_memory_atomic_notify((int*)&counter, 1);
  int notEqual = __builtin_wasm_memory_atomic_wait32((int*)&counter, 7, 0);
  int timedOut = __builtin_wasm_memory_atomic_wait32((int*)&counter, 100, 1000);
  printf("counter=%d total=%lld byte=%u swapped=%d\n", atomic_load(&counter),
         atomic_load(&total), atomic_load(&byte), swapped);
  printf("notify=%d wait-not-equal=%d wait-timed-out=%d\n", woken, notEqual, timedOut);
  return 0;
}

// LOWERED:     (import "synergy" "atomic_rmw_add_i32"
// LOWERED-NOT: {{(i32|i64|memory)\.atomic}}

// CHECK:      counter=100 total=-5 byte=1 swapped=1
// CHECK-NEXT: notify=0 wait-not-equal=1 wait-timed-out=2

// TRAP: trap: unaligned atomic
// TRAP-NOT: not reached
