// cc's -s is accepted and leaves the name section in place: the passes need
// the guest's malloc, free and __wasm_init_tls by name (a stripped -fopenmp
// build failed with "a threaded module must define 'malloc'"), and a trap
// still names the function it happened in.
// RUN: %synergy-cc -s -O2 -fopenmp %s -o %t.wasm
// RUN: env OMP_NUM_THREADS=4 %synergy-run %t.wasm | FileCheck %s --check-prefix=OUT
// RUN: sh -c '%synergy-run %t.wasm trap; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TRAP
// RUN: %wasm-dis %t.wasm | FileCheck %s --check-prefix=MODULE
// RUN: %synergy-cc -v -s -fopenmp %s -o %t.wasm 2>&1 | FileCheck %s --check-prefix=LINK
// OUT: threads 4 blocks 4000 sum 15996000
// TRAP: trap: integer divide by zero in divideBy
// TRAP: exit=134
// MODULE: (export "__synergy_malloc"
// LINK: wasm-ld
// LINK-NOT: {{ }}-s{{ }}
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int divideBy(volatile int divisor) { return 1000 / divisor; }

int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "trap")) return divideBy(0);
  int threads = 0, blocks = 0;
  long long sum = 0;
#pragma omp parallel reduction(+ : blocks, sum)
  {
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp for
    for (int i = 0; i < 4000; ++i) {
      int* block = malloc(sizeof(int));
      *block = i;
      sum += *block * 2;
      free(block);
      ++blocks;
    }
  }
  printf("threads %d blocks %d sum %lld\n", threads, blocks, sum);
  return 0;
}
