// A pointer to an imported function (omp_get_thread_num, served by the host)
// called from OpenMP threads. Each thread runs on its own copy of the
// function table, so the entry must name the thread's host object: wasm2c
// 1.0.32 gave it the instance struct instead and the host crashed with
// SIGSEGV (see runtime/granule/ImportedFunctionReferences.h).
// RUN: %synergy-cc -O2 -fopenmp %s -o %t.wasm
// RUN: %synergy-run %t.wasm | FileCheck %s
// RUN: %synergy-run --dsm %t.wasm | FileCheck %s
// CHECK: seen 1 1 1 1
#include <omp.h>
#include <stdio.h>

int main(void) {
  int (*volatile threadNum)(void) = omp_get_thread_num;
  int seen[4] = {0};
#pragma omp parallel num_threads(4)
  { seen[threadNum()] = 1; }
  printf("seen %d %d %d %d\n", seen[0], seen[1], seen[2], seen[3]);
  return 0;
}
