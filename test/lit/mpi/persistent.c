// Persistent requests: MPI_Send_init/MPI_Recv_init started repeatedly with
// MPI_Start/MPI_Startall, completed with Wait/Waitall/Test; the handles stay
// valid between rounds and a wait on an inactive one returns at once.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[100], in[100];
  MPI_Request requests[2];
  MPI_Recv_init(in, 100, MPI_INT, left, 9, MPI_COMM_WORLD, &requests[0]);
  MPI_Send_init(out, 100, MPI_INT, right, 9, MPI_COMM_WORLD, &requests[1]);
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 100; ++i) out[i] = rank * 1000 + round * 100 + i;
    if (round % 2) {
      MPI_Startall(2, requests);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    } else {
      MPI_Start(&requests[0]);
      MPI_Start(&requests[1]);
      int flag = 0;
      while (!flag) MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
      MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    }
    long sum = 0;
    for (int i = 0; i < 100; ++i) sum += in[i];
    printf("rank %d round %d sum %ld handles kept %d\n", rank, round, sum,
           requests[0] != MPI_REQUEST_NULL && requests[1] != MPI_REQUEST_NULL);
  }
  MPI_Status status;
  MPI_Wait(&requests[0], &status);
  printf("rank %d inactive wait: source any %d\n", rank, status.MPI_SOURCE == MPI_ANY_SOURCE);
  MPI_Request_free(&requests[0]);
  MPI_Request_free(&requests[1]);
  MPI_Finalize();
  return 0;
}
