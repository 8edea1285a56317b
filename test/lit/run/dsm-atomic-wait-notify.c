// memory.atomic.wait and notify between pthreads: the notifier's store and
// notify must wake the waiter, also under --dsm, where the two threads run
// on replicas at different host addresses and the waiter's replica does not
// see the store until it synchronises. A waiter that is never woken times
// out (after 20 s) and the output says so. The main thread gives the waiter
// time to fall asleep first, so that the wake-up is what gets tested (the
// result does not depend on that time).
// RUN: %synergy-cc -O2 -pthread %s -o %t.wasm
// RUN: %synergy-run %t.wasm | FileCheck %s
// RUN: %synergy-run --dsm %t.wasm | FileCheck %s
// CHECK: timeouts 0 payload 1234
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static _Atomic int flag, ready, done;
static int payload;
static int timeouts;

static void* waiter(void* argument) {
  atomic_store(&ready, 1);
  while (!atomic_load(&flag))
    if (__builtin_wasm_memory_atomic_wait32((int*)&flag, 0, 20000000000LL) == 2) ++timeouts;
  int seen = payload;
  atomic_store(&done, 1);
  return (void*)(long)seen;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, 0, waiter, 0);
  while (!atomic_load(&ready)) {
  }
  usleep(200000);
  payload = 1234;
  atomic_store(&flag, 1);
  while (!atomic_load(&done)) __builtin_wasm_memory_atomic_notify((int*)&flag, 1);
  void* seen;
  pthread_join(thread, &seen);
  printf("timeouts %d payload %ld\n", timeouts, (long)seen);
  return 0;
}
