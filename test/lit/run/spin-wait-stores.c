// A thread spins on a volatile flag while it stores in every iteration, and
// another thread sets the flag once it has seen the spinner's stores. The
// granule's AOT compile (clang -O2 over wasm2c's C) sees the flag and the
// counter as constant offsets from one memory base, or one pointer plus two
// offsets, or a constant array plus a masked index, or, once it inlines a
// function, two pointer parameters its only caller passes as constants; so
// it proves the store cannot write the flag and hoists the flag's load:
// before the atomic-spin-wait-loads pass took loops that store, the first
// six shapes spun forever (a counter kept by -O0 code in memory the same).
// The other four call something (an import, the module's own function that
// stores, an atomic read-modify-write) or store through a pointer that may
// be the flag's; the pass leaves them alone, and they end without it: clang cannot
// move the load across those calls or that store (for the module's own
// function: the callee reloads the memory base after its store, which clang
// cannot tell apart from the caller's). Compared with native clang, built
// at -O2 and -O0; the module's checks pin which loops the pass changed (at
// -O0 spin_fields and spin_parameters read their pointers from the stack in
// every iteration, so the flag's address is no longer invariant, and the
// counter's store may write that stack slot: clang keeps the loads, and so
// does the pass).
// --time-limit makes a spinning granule trap instead of hanging the suite;
// no test checks how long anything took.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %host-clang -O2 -pthread %s -o %t/native
// RUN: timeout 300 %t/native > %t/expected
// RUN: FileCheck %s --check-prefix=OUTPUT < %t/expected
// RUN: %synergy-cc -O2 -pthread %s -o %t/o2.wasm
// RUN: timeout 300 %synergy-run --time-limit 60 %t/o2.wasm > %t/o2 2>&1
// RUN: diff %t/expected %t/o2
// RUN: %synergy-cc -O0 -pthread %s -o %t/o0.wasm
// RUN: timeout 300 %synergy-run --time-limit 60 %t/o0.wasm > %t/o0 2>&1
// RUN: diff %t/expected %t/o0
// RUN: %wasm-dis %t/o2.wasm | FileCheck %s --check-prefixes=MODULE,O2
// RUN: %wasm-dis %t/o0.wasm | FileCheck %s --check-prefixes=MODULE,O0
// OUTPUT: constant: the spinner stored and saw the flag
// OUTPUT-NEXT: wide: the spinner stored and saw the flag
// OUTPUT-NEXT: fields: the spinner stored and saw the flag
// OUTPUT-NEXT: masked: the spinner stored and saw the flag
// OUTPUT-NEXT: byte: the spinner stored and saw the flag
// OUTPUT-NEXT: parameters: the spinner stored and saw the flag
// OUTPUT-NEXT: yields: the spinner stored and saw the flag
// OUTPUT-NEXT: helper: the spinner stored and saw the flag
// OUTPUT-NEXT: atomic: the spinner stored and saw the flag
// OUTPUT-NEXT: aliasing: the spinner stored and saw the flag
// MODULE-LABEL: (func $spin_constant
// MODULE:       call $synergy.atomic_load_i32
// MODULE-LABEL: (func $spin_wide
// MODULE:       call $synergy.atomic_load_i32
// MODULE-LABEL: (func $spin_fields
// O2:           call $synergy.atomic_load_i32
// O0-NOT:       atomic_load
// MODULE-LABEL: (func $spin_masked
// MODULE:       call $synergy.atomic_load_i32
// MODULE-LABEL: (func $spin_byte
// MODULE:       call $synergy.atomic_load8_u_i32
// MODULE-LABEL: (func $spin_parameters
// O2:           call $synergy.atomic_load_i32
// O0-NOT:       atomic_load
// MODULE-LABEL: (func $spin_yields
// MODULE-NOT:   atomic_load
// MODULE-LABEL: (func $spin_helper
// MODULE-NOT:   atomic_load
// MODULE-LABEL: (func $spin_atomic
// MODULE-NOT:   atomic_load
// MODULE-LABEL: (func $spin_aliasing
// MODULE-NOT:   atomic_load
// MODULE-LABEL: (func $main
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

struct Waiter {
  volatile int flag;
  volatile int spins;
};

static volatile int flag;
static volatile char byteFlag;
static volatile int spins;
static volatile long long wideSpins;
static volatile int slots[8];
static atomic_int atomicSpins;
static struct Waiter waiters[2];
// Read at run time, so the AOT compile cannot tell it from the flag's
// address even where it inlines spin_aliasing into main.
static volatile int* volatile counter = &spins;

// Each spin_ function waits in a loop of its own shape; none is static, so
// clang keeps their parameters and the module's checks find them by name.
__attribute__((noinline)) void spin_constant(void) {
  while (!flag) spins++;
}
__attribute__((noinline)) void spin_wide(void) {
  while (!flag) wideSpins++;
}
__attribute__((noinline)) void spin_fields(struct Waiter* waiter) {
  while (!waiter->flag) waiter->spins++;
}
__attribute__((noinline)) void spin_masked(int slot) {
  while (!flag) slots[slot & 7]++;
}
__attribute__((noinline)) void spin_byte(void) {
  while (!byteFlag) spins++;
}
__attribute__((noinline)) void spin_parameters(volatile int* waitOn, volatile int* count) {
  while (!*waitOn) ++*count;
}
__attribute__((noinline)) void spin_yields(void) {
  while (!flag) {
    spins++;
    sched_yield();
  }
}
__attribute__((noinline)) void count_spin(void) { spins++; }
__attribute__((noinline)) void spin_helper(void) {
  while (!flag) count_spin();
}
__attribute__((noinline)) void spin_atomic(void) {
  while (!flag) atomic_fetch_add(&atomicSpins, 1);
}
__attribute__((noinline)) void spin_aliasing(volatile int* waitOn, volatile int* count) {
  while (!*waitOn) ++*count;
}

enum Shape {
  kConstant, kWide, kFields, kMasked, kByte, kParameters, kYields, kHelper, kAtomic, kAliasing
};
static const char* const kShapeNames[] = {"constant", "wide",   "fields", "masked",
                                          "byte",     "parameters", "yields", "helper",
                                          "atomic",   "aliasing"};
static enum Shape shape;
static int slot;

// What the spinner has stored so far.
static long long progress(void) {
  switch (shape) {
    case kWide: return wideSpins;
    case kFields: return waiters[slot & 1].spins;
    case kMasked: return slots[slot & 7];
    case kAtomic: return atomic_load(&atomicSpins);
    default: return spins;
  }
}

// Sets the flag once the spinner has stored, so it is inside its loop.
static void* setter(void* unused) {
  (void)unused;
  while (progress() == 0) sched_yield();
  flag = 1;
  byteFlag = 1;
  waiters[slot & 1].flag = 1;
  return NULL;
}

int main(int argc, char** argv) {
  (void)argv;
  slot = argc + 2;
  for (shape = kConstant; shape <= kAliasing; ++shape) {
    flag = 0;
    byteFlag = 0;
    waiters[slot & 1].flag = 0;
    spins = 0;
    pthread_t thread;
    pthread_create(&thread, NULL, setter, NULL);
    switch (shape) {
      case kConstant: spin_constant(); break;
      case kWide: spin_wide(); break;
      case kFields: spin_fields(&waiters[slot & 1]); break;
      case kMasked: spin_masked(slot); break;
      case kByte: spin_byte(); break;
      case kParameters: spin_parameters(&flag, &spins); break;
      case kYields: spin_yields(); break;
      case kHelper: spin_helper(); break;
      case kAtomic: spin_atomic(); break;
      case kAliasing: spin_aliasing(&flag, counter); break;
    }
    pthread_join(thread, NULL);
    printf("%s: the spinner %s and saw the flag\n", kShapeNames[shape],
           progress() > 0 ? "stored" : "did not store");
  }
  return 0;
}
