// With --dsm every pthread runs on a replica of its own: a plain write by
// one thread reaches another only through a happens-before edge (here a
// mutex, then the join), never just because time passed. The threads signal
// each other through files, with raw WASI calls that take no lock and so
// carry no memory synchronisation. In shared mode the main thread sees the
// write at once. SYNERGY_DSM_STATS=1 proves the replicas and diffs existed.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %synergy-cc -O2 -pthread %s -o %t.wasm
// RUN: %synergy-run --dir %t.dir:/data %t.wasm | FileCheck %s --check-prefix=SHARED
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: env SYNERGY_DSM_STATS=1 %synergy-run --dsm --dir %t.dir:/data %t.wasm > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=DSM < %t.out
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// SHARED: written by the thread: 42 7
// SHARED: after the mutex: 42 7 99
// SHARED: after the join: 42 7 99
// DSM: written by the thread: 0 0
// DSM: after the mutex: 42 7 0
// DSM: after the join: 42 7 99
// STATS: synergy-run: dsm: {{[1-9][0-9]*}} replicas, {{[1-9][0-9]*}} pushes ({{[1-9][0-9]*}} bytes), {{[1-9][0-9]*}} pulls
#include <pthread.h>
#include <stdio.h>
#include <wasi/api.h>

enum { kPreopen = 3 };

static volatile int plain, underLock, afterUnlock;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void signalFile(const char* name) {
  __wasi_fd_t fd;
  if (__wasi_path_open(kPreopen, 0, name, __WASI_OFLAGS_CREAT,
                       __WASI_RIGHTS_FD_READ | __WASI_RIGHTS_FD_WRITE, 0, 0, &fd) == 0)
    (void)__wasi_fd_close(fd);
}

static void awaitFile(const char* name) {
  __wasi_filestat_t stat;
  while (__wasi_path_filestat_get(kPreopen, 0, name, &stat) != 0) (void)__wasi_sched_yield();
}

static void* writer(void* argument) {
  plain = 42;
  pthread_mutex_lock(&mutex);
  underLock = 7;
  pthread_mutex_unlock(&mutex);
  afterUnlock = 99;
  signalFile("written");
  awaitFile("read");
  return argument;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, 0, writer, 0);
  awaitFile("written");
  int seenPlain = plain, seenUnderLock = underLock;
  printf("written by the thread: %d %d\n", seenPlain, seenUnderLock);
  // The thread's unlock released everything before it, not what came after.
  pthread_mutex_lock(&mutex);
  seenPlain = plain;
  seenUnderLock = underLock;
  int seenAfterUnlock = afterUnlock;
  pthread_mutex_unlock(&mutex);
  printf("after the mutex: %d %d %d\n", seenPlain, seenUnderLock, seenAfterUnlock);
  signalFile("read");
  pthread_join(thread, 0);
  printf("after the join: %d %d %d\n", plain, underLock, afterUnlock);
  return 0;
}
