// Under --dsm the first pthread_create turns the main thread's memory into a
// replica in place, which it cannot do while a parallel region's threads run
// on replicas of that memory: a program whose first pthread_create comes
// from inside a parallel region stops with a clear trap there. Outside
// --dsm, and once a pthread exists, it runs as usual.
// RUN: %synergy-cc -O1 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=2 %synergy-run %t.wasm | FileCheck %s --check-prefix=SHARED
// RUN: env OMP_NUM_THREADS=2 %synergy-run --dsm %t.wasm first-outside | FileCheck %s --check-prefix=SHARED
// RUN: sh -c 'OMP_NUM_THREADS=2 %synergy-run --dsm %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s --check-prefix=DSM < %t.out
// SHARED: sum 3
// DSM: trap: --dsm: the first pthread_create must come from the main thread, outside parallel regions
// DSM: exit=134
#include <omp.h>
#include <pthread.h>
#include <stdio.h>

static int values[2];

static void* store(void* argument) {
  values[(long)argument] = (int)(long)argument + 1;
  return 0;
}

int main(int argc, char** argv) {
  (void)argv;
  if (argc > 1) {
    pthread_t first;
    pthread_create(&first, 0, store, (void*)0L);
    pthread_join(first, 0);
  }
#pragma omp parallel num_threads(2)
  {
    pthread_t thread;
    long index = omp_get_thread_num();
    pthread_create(&thread, 0, store, (void*)index);
    pthread_join(thread, 0);
  }
  printf("sum %d\n", values[0] + values[1]);
  return 0;
}
