// errno is per thread: four threads each provoke a different errno (open of a
// missing file, strtoll overflow, close of a bad descriptor, a plain store),
// wait at a barrier until all four have, and only then read their own. With
// one shared errno every thread would read the last value written. The main
// thread's errno must also survive the threads. Built with -pthread and with
// -fopenmp, run in shared and --dsm modes, and compared with native clang
// (-pthread; the output does not depend on the threading interface).
// RUN: rm -rf %t && mkdir -p %t/data
// RUN: %host-clang -O2 -pthread %s -o %t/native
// RUN: %t/native %t/data > %t/expected
// RUN: FileCheck %s < %t/expected
// RUN: %synergy-cc -O2 -pthread %s -o %t/pthread.wasm
// RUN: %synergy-run --dir %t/data:/data %t/pthread.wasm /data > %t/pthread
// RUN: diff %t/expected %t/pthread
// RUN: %synergy-run --dsm --dir %t/data:/data %t/pthread.wasm /data > %t/pthread-dsm
// RUN: diff %t/expected %t/pthread-dsm
// Unoptimized, clang keeps errno's address in a local before each access:
// RUN: %synergy-cc -O0 -pthread %s -o %t/pthread-O0.wasm
// RUN: %synergy-run --dir %t/data:/data %t/pthread-O0.wasm /data > %t/pthread-O0
// RUN: diff %t/expected %t/pthread-O0
// RUN: %synergy-cc -O2 -fopenmp -DUSE_OPENMP %s -o %t/omp.wasm
// RUN: %synergy-run --dir %t/data:/data %t/omp.wasm /data > %t/omp
// RUN: diff %t/expected %t/omp
// RUN: %synergy-run --dsm --dir %t/data:/data %t/omp.wasm /data > %t/omp-dsm
// RUN: diff %t/expected %t/omp-dsm
// The export synergy-cc adds for the pass is gone, and errno is a global.
// RUN: %wasm-dis %t/pthread.wasm | FileCheck %s --check-prefix=MODULE
// MODULE-NOT: (export "errno"
// MODULE: (global $errno.thread (mut i32)
// MODULE-NOT: (export "errno"
// CHECK: thread 0: ENOENT (result -1)
// CHECK-NEXT: thread 1: ERANGE (result 9223372036854775807)
// CHECK-NEXT: thread 2: EBADF (result -1)
// CHECK-NEXT: thread 3: 4321 (result 0)
// CHECK-NEXT: main: EDOM
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef USE_OPENMP
#include <omp.h>
#else
#include <pthread.h>
#endif

enum { kThreads = 4 };

static const char* directory;
static long long results[kThreads];
static int errors[kThreads];
#ifndef USE_OPENMP
static pthread_barrier_t barrier;
#endif

static const char* errnoName(int value, char* buffer, size_t size) {
  switch (value) {
    case ENOENT: return "ENOENT";
    case ERANGE: return "ERANGE";
    case EBADF: return "EBADF";
    case EDOM: return "EDOM";
    default: snprintf(buffer, size, "%d", value); return buffer;
  }
}

static long long provoke(int id) {
  errno = 0;
  switch (id) {
    case 0: {
      char path[512];
      snprintf(path, sizeof path, "%s/missing-file", directory);
      return open(path, O_RDONLY);
    }
    case 1: return strtoll("99999999999999999999999", NULL, 10);
    case 2: return close(-1);
    default: errno = 4321; return 0;
  }
}

static void waitForAll(void) {
#ifdef USE_OPENMP
#pragma omp barrier
#else
  pthread_barrier_wait(&barrier);
#endif
}

static void work(int id) {
  results[id] = provoke(id);
  waitForAll();
  errors[id] = errno;
}

#ifndef USE_OPENMP
static void* threadMain(void* argument) {
  work((int)(long)argument);
  return NULL;
}
#endif

int main(int argc, char** argv) {
  if (argc != 2) return 1;
  directory = argv[1];
  errno = EDOM;
#ifdef USE_OPENMP
  // The initial thread is OpenMP thread 0; it only takes part in the
  // barrier, so that its errno stays the main thread's.
  int teamSize = 0;
#pragma omp parallel num_threads(kThreads + 1)
  {
    int id = omp_get_thread_num();
    if (id == 0) {
      teamSize = omp_get_num_threads();
      waitForAll();
    } else {
      work(id - 1);
    }
  }
  if (teamSize != kThreads + 1) return 1;
#else
  pthread_t threads[kThreads];
  pthread_barrier_init(&barrier, NULL, kThreads);
  for (long i = 0; i < kThreads; ++i)
    if (pthread_create(&threads[i], NULL, threadMain, (void*)i) != 0) return 1;
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
#endif
  int mainErrno = errno;
  char buffer[32];
  for (int i = 0; i < kThreads; ++i)
    printf("thread %d: %s (result %lld)\n", i, errnoName(errors[i], buffer, sizeof buffer),
           results[i]);
  printf("main: %s\n", errnoName(mainErrno, buffer, sizeof buffer));
  return 0;
}
