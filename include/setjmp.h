/* setjmp and longjmp for Synergy granules.
 *
 * wasm has no way to jump between frames, and wasi-libc ships no setjmp.h.
 * synergy-cc compiles every file with LLVM's invoke lowering
 * (-mllvm -enable-emscripten-sjlj): a call to setjmp becomes a record in the
 * jmp_buf, and calls made by a function that called setjmp go through
 * env.invoke_* imports, which the runtime serves by calling the guest
 * function under a host-side jump target. longjmp unwinds to the innermost
 * such call, and each function on the way checks whether the jmp_buf is one
 * of its own (guestlib/SetjmpLongjmp.c). A longjmp whose setjmp has
 * returned finds no live frame and traps.
 *
 * Signal masks do not exist in a granule, so sigsetjmp/siglongjmp and the
 * underscore forms are setjmp and longjmp.
 */
#ifndef SYNERGY_SETJMP_H
#define SYNERGY_SETJMP_H

#ifdef __cplusplus
extern "C" {
#endif

/* What setjmp records: the identity of the calling function's invocation
 * and the label of the setjmp call in it. The rest is room, so that the
 * size matches musl's for structures that embed a jmp_buf. */
typedef struct __jmp_buf_tag {
  void* __invocation;
  unsigned long __label;
  unsigned long __reserved[34];
} jmp_buf[1];
typedef jmp_buf sigjmp_buf;

int setjmp(jmp_buf __env) __attribute__((returns_twice));
_Noreturn void longjmp(jmp_buf __env, int __value);

#define _setjmp(env) setjmp(env)
#define _longjmp(env, value) longjmp(env, value)
#define sigsetjmp(env, savemask) setjmp(env)
#define siglongjmp(env, value) longjmp(env, value)

#ifdef __cplusplus
}
#endif

#endif
