// A trap in an OpenMP worker thread or a pthread ends the whole process like
// a trap in the main thread: `trap: <reason> in <function>` naming the guest
// function that trapped, exit status 134, and no host crash. exit() in a
// thread ends the process with its status.
// RUN: %synergy-cc -O1 -fopenmp %s -o %t.wasm
// RUN: sh -c 'OMP_NUM_THREADS=4 %synergy-run %t.wasm trap-in-worker; echo "exit=$?"' > %t.worker 2>&1
// RUN: FileCheck %s --check-prefix=WORKER < %t.worker
// RUN: sh -c '%synergy-run %t.wasm trap-in-pthread; echo "exit=$?"' > %t.pthread 2>&1
// RUN: FileCheck %s --check-prefix=PTHREAD < %t.pthread
// RUN: sh -c 'OMP_NUM_THREADS=3 %synergy-run %t.wasm exit-in-worker; echo "exit=$?"' | FileCheck %s --check-prefix=EXIT
// WORKER: trap: integer divide by zero in divide_in_thread
// WORKER: exit=134
// PTHREAD: trap: out of bounds memory access in poke
// PTHREAD: exit=134
// EXIT: exit=7
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

volatile int zero = 0;

__attribute__((noinline)) int divide_in_thread(int n) { return n / zero; }

__attribute__((noinline)) void poke(void) { *(volatile int*)0xfffffff0u = 1; }

static void* pthread_body(void* argument) {
  poke();
  return argument;
}

int main(int argc, char** argv) {
  int sink = 0;
  if (!strcmp(argv[1], "trap-in-worker")) {
#pragma omp parallel reduction(+ : sink)
    if (omp_get_thread_num() == 2) sink += divide_in_thread(5);
  } else if (!strcmp(argv[1], "trap-in-pthread")) {
    pthread_t thread;
    pthread_create(&thread, 0, pthread_body, 0);
    pthread_join(thread, 0);
  } else {
#pragma omp parallel
    if (omp_get_thread_num() == 1) exit(7);
  }
  return sink;
}
