// C half of cxx-exception-through-c.cpp: a function that calls setjmp and
// then a callback, built as C (by synergy-cc, or natively by clang).
#include <setjmp.h>
#include <stdio.h>

static jmp_buf recovery;

int call_guarded(void (*callback)(int), int value) {
  if (setjmp(recovery)) {
    puts("C: longjmp arrived");
    return 1;
  }
  callback(value);
  puts("C: callback returned");
  return 0;
}

void jump_back(void) { longjmp(recovery, 1); }
