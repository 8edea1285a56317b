// MPI_ANY_SOURCE with MPI_Probe and MPI_Get_count: rank 0 receives messages
// of sizes it learns by probing, from whoever sends first; MPI_Iprobe polls.
// RUN: %mpi-diff %s %t 1 2 3 4 8
// With a checkpoint at every barrier where no message is in flight (others are skipped):
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t.checkpoints 2 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    long total = 0;
    for (int received = 0; received < 2 * (size - 1); ++received) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count;
      MPI_Get_count(&status, MPI_INT, &count);
      int* data = malloc(sizeof(int) * (count + 1));
      MPI_Recv(data, count, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      for (int i = 0; i < count; ++i) total += data[i];
      printf("got %d ints with tag %d from rank %d\n", count, status.MPI_TAG, status.MPI_SOURCE);
      free(data);
    }
    printf("total %ld\n", total);
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    printf("nothing left: %d\n", !flag);
  } else {
    int n = rank * 3 + 1;
    int* data = malloc(sizeof(int) * n * 1000);
    for (int i = 0; i < n * 1000; ++i) data[i] = rank + i;
    MPI_Send(data, n, MPI_INT, 0, rank, MPI_COMM_WORLD);
    MPI_Send(data, n * 1000, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    free(data);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
