// The runtime calls guest functions it is handed as table indices (thread
// start routines, once routines, key destructors, microtasks, combiners).
// Each call checks the entry's wasm type first, as call_indirect does: a
// function of the wrong type traps with the slot and the expected type,
// exit status 134, and never runs. Well-typed ones still run.
// RUN: %synergy-cc -O2 -fopenmp -pthread %s -o %t.wasm
// RUN: %synergy-run %t.wasm good | FileCheck %s --check-prefix=GOOD
// RUN: sh -c '%synergy-run %t.wasm start; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=START
// RUN: sh -c '%synergy-run %t.wasm once; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: sh -c '%synergy-run %t.wasm fork; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FORK
// GOOD: joined 42 team 3
// START: trap: function table slot {{[0-9]+}} does not hold a function of 1 i32 parameters returning i32
// START-NOT: ran
// START: exit=134
// ONCE: trap: function table slot {{[0-9]+}} does not hold a function of 0 i32 parameters without a result
// ONCE-NOT: ran
// ONCE: exit=134
// FORK: trap: function table slot {{[0-9]+}} does not hold a function of 2 i32 parameters without a result
// FORK-NOT: ran
// FORK: exit=134
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void __kmpc_fork_call(void* location, int sharedCount, void (*microtask)(int*, int*, ...), ...);

static void* wellTyped(void* argument) { return argument; }

// Three parameters: called as a start routine or a once routine, it would
// read arguments that were never passed.
static int wronglyTyped(int a, int b, int c) {
  printf("ran %d\n", a + b + c);
  fflush(stdout);
  return 0;
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "good";
  if (!strcmp(which, "good")) {
    pthread_t thread;
    void* result = NULL;
    pthread_create(&thread, NULL, wellTyped, (void*)42);
    pthread_join(thread, &result);
    int team = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    team = omp_get_num_threads();
    printf("joined %d team %d\n", (int)(long)result, team);
  } else if (!strcmp(which, "start")) {
    pthread_t thread;
    pthread_create(&thread, NULL, (void* (*)(void*))(void (*)(void))wronglyTyped, NULL);
    pthread_join(thread, NULL);
  } else if (!strcmp(which, "fork")) {
    // What clang emits for `#pragma omp parallel`, with a microtask of the
    // wrong type: an outlined region takes (int*, int*, shared...).
    __kmpc_fork_call(NULL, 0, (void (*)(int*, int*, ...))(void (*)(void))wronglyTyped);
  } else {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, (void (*)(void))wronglyTyped);
  }
  return 0;
}
