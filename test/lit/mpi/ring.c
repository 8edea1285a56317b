// A token travels once around the ring; every rank adds its rank to it.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, token = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  if (rank == 0) {
    token = 1000;
    MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += rank;
    MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
  }
  printf("rank %d of %d saw token %d\n", rank, size, token);
  MPI_Finalize();
  return 0;
}
