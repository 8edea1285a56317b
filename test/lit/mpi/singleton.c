// An MPI program run without -np is a singleton job of one rank, as MPI
// allows; -np itself is checked.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run %t.wasm | FileCheck %s
// RUN: not %synergy-run -np 0 %t.wasm 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: rank 0 of 1 sum 0
// BAD: synergy-run: error: -np expects a rank count from 1 to 4096, got '0'
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, sum;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d sum %d\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
