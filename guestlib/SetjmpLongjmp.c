//===- SetjmpLongjmp.c - guest half of setjmp/longjmp ----------------------===//
//
// This file implements the functions LLVM's emscripten-style setjmp/longjmp
// lowering calls in guest code (-mllvm -enable-emscripten-sjlj), so that only
// the part that must leave wasm is served by the runtime:
//
//  - __wasm_setjmp(env, label, invocation) stands for setjmp: it records in
//    the jmp_buf which invocation of which function called it (the address
//    of a stack slot of that invocation) and which setjmp call it was;
//  - __wasm_setjmp_test(env, invocation) asks, after a longjmp arrived at a
//    call site, whether env belongs to this invocation: the label, or 0;
//  - longjmp and emscripten_longjmp store the target and value in
//    __THREW__ and __threwValue, where the lowered call sites read them, and
//    ask the runtime to unwind to the innermost env.invoke_* call;
//  - getTempRet0/setTempRet0 carry setjmp's second return value.
//
// Thread granules each need their own copies of the two variables, so with
// wasm atomics (-pthread, -fopenmp) they are thread-local, as the lowering
// itself declares them then.
//
//===----------------------------------------------------------------------===//
#include <setjmp.h>
#include <stdint.h>

#if defined(__wasm_atomics__) && defined(__wasm_bulk_memory__)
#define GUEST_THREAD_LOCAL _Thread_local
#else
#define GUEST_THREAD_LOCAL
#endif

GUEST_THREAD_LOCAL uintptr_t __THREW__;
GUEST_THREAD_LOCAL int __threwValue;
static GUEST_THREAD_LOCAL uint32_t tempReturn;

// Served by the runtime (runtime/granule/SetjmpLongjmp.cpp): unwinds to the
// innermost invoke_* call on this thread, or traps when there is none.
__attribute__((import_module("env"), import_name("synergy_longjmp_unwind"), noreturn))
void synergy_longjmp_unwind(void);

void __wasm_setjmp(void* env, uint32_t label, void* invocation) {
  // The lowering numbers setjmp calls from 1 and always passes a stack slot;
  // anything else means a corrupted call and must not produce a usable env.
  if (label == 0 || invocation == 0) __builtin_trap();
  struct __jmp_buf_tag* record = env;
  record->__invocation = invocation;
  record->__label = label;
}

uint32_t __wasm_setjmp_test(void* env, void* invocation) {
  struct __jmp_buf_tag* record = env;
  // A jmp_buf that setjmp never filled in (the lowering records nothing for
  // a function that makes no call after its setjmp) belongs to no live
  // invocation: the longjmp goes on outwards and traps at the end with the
  // runtime's message.
  if (record->__label == 0) return 0;
  return record->__invocation == invocation ? (uint32_t)record->__label : 0;
}

_Noreturn void emscripten_longjmp(uintptr_t env, int value) {
  __THREW__ = env;
  // The call sites treat a zero value as "no longjmp"; C says longjmp(env, 0)
  // makes setjmp return 1.
  __threwValue = value != 0 ? value : 1;
  synergy_longjmp_unwind();
}

// Reached only where the lowering did not rewrite the call (an address
// taken, or a file compiled without synergy-cc).
_Noreturn void longjmp(jmp_buf env, int value) {
  emscripten_longjmp((uintptr_t)env, value);
}

// With C++ exceptions lowered too (always, see ClangCommands.cpp), a
// function that calls setjmp passes on an exception that reaches one of its
// calls, through these two. C++ links put the C++ runtime's definitions
// (guestlib/CxxExceptions.cpp) first; a program without C++ code can throw
// nothing, so here no exception is ever propagating.
__attribute__((weak)) void* __cxa_find_matching_catch_2(void) { return 0; }

__attribute__((weak)) _Noreturn void __resumeException(void* exception) {
  (void)exception;
  __builtin_trap();
}

uint32_t getTempRet0(void) { return tempReturn; }

void setTempRet0(uint32_t value) { tempReturn = value; }
