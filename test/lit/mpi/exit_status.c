// A rank that returns a non-zero status after MPI_Finalize makes the job
// exit with that status, as mpirun does; output printed before is kept.
// RUN: %mpi-diff %s %t 1 3
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d finishing\n", rank);
  fflush(stdout);
  MPI_Finalize();
  return rank == size - 1 ? 5 : 0;
}
