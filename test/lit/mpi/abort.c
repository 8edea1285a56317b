// MPI_Abort from one rank ends the job with that error code while the
// others wait in a receive that never completes.
// RUN: %mpi-diff %s %t 2 3
// RUN: not %synergy-run -np 3 %t/granule.wasm 2>&1 | FileCheck %s
// CHECK: synergy-run: rank 1 called MPI_Abort with error code 3
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
  int x;
  MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("not reached\n");
  MPI_Finalize();
  return 0;
}
