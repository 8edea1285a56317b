/* <__errno.h> for Synergy granules: errno as a plain int in every build.
 *
 * wasi-libc's own <__errno.h> declares errno _Thread_local. The wasi-libc we
 * link is built without atomics, so its errno is an ordinary global, and a
 * -pthread/-fopenmp object that addresses errno as TLS fails to link against
 * it. Declared plain here, user code, guest libraries and libc all store to
 * one address, and for threaded programs the thread-local-errno pass
 * (passes/ThreadLocalErrno.cpp) moves that word into a global of each thread
 * granule, so every thread still sees its own errno. Single-threaded builds
 * compile as before: without atomics clang made the TLS declaration plain.
 * <errno.h> includes this header for the declaration; the values come from
 * wasi-libc's <__errno_values.h>.
 */
#ifndef __wasilibc___errno_h
#define __wasilibc___errno_h

#ifdef __cplusplus
extern "C" {
#endif

extern int errno;

#define errno errno

#ifdef __cplusplus
}
#endif

#endif
