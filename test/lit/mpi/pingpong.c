// Ping-pong between ranks 0 and 1 over sizes from 0 bytes to 4 MiB, both
// below and above the eager limit; every byte is checked on both sides.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  unsigned char* buffer = malloc(4 << 20);
  for (int size = 0; size <= (4 << 20); size = size ? size * 4 : 1) {
    long errors = 0;
    for (int round = 0; round < 3; ++round) {
      if (rank == 0) {
        for (int i = 0; i < size; ++i) buffer[i] = (unsigned char)(i * 7 + round);
        MPI_Send(buffer, size, MPI_BYTE, 1, round, MPI_COMM_WORLD);
        MPI_Status status;
        MPI_Recv(buffer, size, MPI_BYTE, 1, round, MPI_COMM_WORLD, &status);
        int count;
        MPI_Get_count(&status, MPI_BYTE, &count);
        if (count != size || status.MPI_SOURCE != 1 || status.MPI_TAG != round) ++errors;
        for (int i = 0; i < size; ++i)
          if (buffer[i] != (unsigned char)(i * 7 + round + 1)) ++errors;
      } else if (rank == 1) {
        MPI_Recv(buffer, size, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < size; ++i) {
          if (buffer[i] != (unsigned char)(i * 7 + round)) ++errors;
          buffer[i]++;
        }
        MPI_Send(buffer, size, MPI_BYTE, 0, round, MPI_COMM_WORLD);
      }
    }
    if (rank < 2) printf("rank %d size %d errors %ld\n", rank, size, errors);
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
