// Control points stay undefined at link time and become imports: the calls
// clang -fopenmp emits (__kmpc_*), listed symbols such as MPI_* and
// pthread_*, and functions declared as imports from module "synergy".
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -fopenmp -O2 %s -o %t/omp.wasm
// RUN: %wasm-dis %t/omp.wasm | FileCheck %s
// CHECK-DAG: (import "env" "__kmpc_fork_call"
// CHECK-DAG: (import "env" "__kmpc_reduce_nowait"
// CHECK-DAG: (import "env" "MPI_Barrier"
// CHECK-DAG: (import "env" "pthread_self"
// CHECK-DAG: (import "synergy" "checkpoint_hint"
//
// -fopenmp applies to compile steps only; split compile and link work too.
// RUN: %synergy-cc -fopenmp -c %s -o %t/omp.o
// RUN: %synergy-cc -fopenmp -pthread %t/omp.o -o %t/split.wasm
// RUN: %wasm-dis %t/split.wasm | FileCheck %s
#include <synergy.h>

int MPI_Barrier(int comm);
unsigned long pthread_self(void);
SYNERGY_IMPORT("checkpoint_hint") void synergy_checkpoint_hint(void);

static int sum_of(const int* values, int count) {
  int sum = 0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < count; ++i) sum += values[i];
  return sum;
}

int main(void) {
  int values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  MPI_Barrier(0);
  synergy_checkpoint_hint();
  return sum_of(values, 8) == 36 && pthread_self() != 0 ? 0 : 1;
}
