// Under the default MPI_ERRORS_ARE_FATAL, an invalid destination rank ends
// the whole job with the error class as exit status (6, MPI_ERR_RANK), as
// under mpirun; the other ranks are stopped in their barrier.
// RUN: %mpi-diff %s %t 2 4
// RUN: not %synergy-run -np 2 %t/granule.wasm 2>&1 | FileCheck %s
// CHECK: synergy-run: rank 1: MPI_Send: invalid destination rank 7 (communicator size 2) (MPI_ERR_RANK)
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);
    printf("not reached\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
