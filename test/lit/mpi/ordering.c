// MPI's non-overtaking rule: messages with the same (source, tag, comm)
// arrive in send order, whatever their sizes (eager and rendezvous mixed);
// receives by tag can pick later messages first; MPI_ANY_TAG takes the
// earliest.
// RUN: %mpi-diff %s %t 2 3 5
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int sizes[6] = {1, 50000, 3, 20000, 2, 70000};
  int* buffer = malloc(sizeof(int) * 70000);
  if (rank > 0) {
    MPI_Request requests[6];
    int* data[6];
    for (int m = 0; m < 6; ++m) {
      data[m] = malloc(sizeof(int) * sizes[m]);
      for (int i = 0; i < sizes[m]; ++i) data[m][i] = rank * 1000 + m;
      MPI_Isend(data[m], sizes[m], MPI_INT, 0, 5, MPI_COMM_WORLD, &requests[m]);
    }
    MPI_Waitall(6, requests, MPI_STATUSES_IGNORE);
    for (int m = 0; m < 6; ++m) free(data[m]);
    int a = rank, b = -rank;
    MPI_Send(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Send(&b, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
  } else {
    for (int source = 1; source < size; ++source) {
      for (int m = 0; m < 6; ++m) {
        MPI_Status status;
        MPI_Recv(buffer, 70000, MPI_INT, source, 5, MPI_COMM_WORLD, &status);
        int count;
        MPI_Get_count(&status, MPI_INT, &count);
        printf("from %d message %d: count %d first %d last %d\n", source, m, count, buffer[0],
               buffer[count - 1]);
      }
      int second, first;
      MPI_Recv(&second, 1, MPI_INT, source, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Status status;
      MPI_Recv(&first, 1, MPI_INT, source, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      printf("from %d tag 2 first: %d, then any tag: %d (tag %d)\n", source, second, first,
             status.MPI_TAG);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
