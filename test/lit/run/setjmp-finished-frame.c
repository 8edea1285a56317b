// A longjmp to a jmp_buf whose setjmp's function has returned is refused: the
// granule traps with a clear message instead of jumping into a dead frame or
// crashing the host, and nothing after the longjmp runs. Four ways:
//  - plain: no setjmp is active when the longjmp happens;
//  - through: another function's setjmp is active, so the unwind stops at a
//    live frame that must not claim the jump and passes it on;
//  - with the jmp_buf recorded (its function made a call after setjmp) or
//    not (the lowering records nothing for a function without calls).
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: sh -c '%synergy-run %t.wasm plain silent; echo "exit=$?"' > %t.1 2>&1
// RUN: FileCheck %s < %t.1
// RUN: sh -c '%synergy-run %t.wasm through silent; echo "exit=$?"' > %t.2 2>&1
// RUN: FileCheck %s < %t.2
// RUN: sh -c '%synergy-run %t.wasm plain recorded; echo "exit=$?"' > %t.3 2>&1
// RUN: FileCheck %s < %t.3
// RUN: sh -c '%synergy-run %t.wasm through recorded; echo "exit=$?"' > %t.4 2>&1
// RUN: FileCheck %s < %t.4
// CHECK: armed
// CHECK-NOT: jumped
// CHECK-NOT: after
// CHECK: trap: longjmp to a jmp_buf whose setjmp is no longer active in
// CHECK-NOT: after
// CHECK: exit=134
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf stale;
static jmp_buf live;

__attribute__((noinline)) static int armSilently(void) { return setjmp(stale); }

__attribute__((noinline)) static int armRecorded(void) {
  int got = setjmp(stale);
  if (got == 0) puts("armed");
  return got;
}

// A frame of its own on the shadow stack (the buffer's address escapes).
__attribute__((noinline)) static int armDeeper(int recorded) {
  char frame[16];
  snprintf(frame, sizeof frame, "%d", recorded);
  return (recorded ? armRecorded() : armSilently()) + (frame[0] == '-');
}

__attribute__((noinline)) static void jumpToStale(void) { longjmp(stale, 5); }

// No setjmp in this function: the longjmp finds no invoke frame at all.
__attribute__((noinline)) static int plain(void) {
  jumpToStale();
  puts("after the longjmp");
  return 1;
}

// The unwind stops at this function's live setjmp, which must pass it on.
// The lowering identifies an invocation by the address of a slot at the top
// of its shadow-stack frame, so a new invocation whose frame starts where the
// finished one's did would be taken for it (undefined behaviour in C, as
// under Emscripten; it stays inside the guest). main therefore arms from one
// frame deeper (armDeeper) than it calls this function.
__attribute__((noinline)) static int through(void) {
  char note[64];
  int got = setjmp(live);
  if (got == 0) jumpToStale();
  snprintf(note, sizeof note, "after: the live setjmp returned %d", got);
  puts(note);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int recorded = strcmp(argv[2], "recorded") == 0;
  if (armDeeper(recorded) != 0) {
    puts("jumped into a finished frame");
    return 1;
  }
  if (!recorded) puts("armed");
  fflush(stdout);
  return strcmp(argv[1], "through") == 0 ? through() : plain();
}
