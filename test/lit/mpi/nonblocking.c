// Nonblocking overlap: every rank posts receives from all others before
// sending, computes while messages fly, and completes them with Waitall,
// Waitany, Waitsome and Testall/Test loops.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 20000;
  int* out = malloc(sizeof(int) * n);
  int* in = malloc(sizeof(int) * n * size);
  for (int i = 0; i < n; ++i) out[i] = rank * n + i;
  MPI_Request* requests = malloc(sizeof(MPI_Request) * 2 * size);
  for (int round = 0; round < 4; ++round) {
    for (int p = 0; p < size; ++p)
      MPI_Irecv(in + p * n, n, MPI_INT, p, round, MPI_COMM_WORLD, &requests[p]);
    for (int p = 0; p < size; ++p)
      MPI_Isend(out, n, MPI_INT, (rank + p) % size, round, MPI_COMM_WORLD, &requests[size + p]);
    double work = 0;
    for (int i = 0; i < 100000; ++i) work += i * 0.5;
    if (round == 0) {
      MPI_Status* statuses = malloc(sizeof(MPI_Status) * 2 * size);
      MPI_Waitall(2 * size, requests, statuses);
      int sources = 0;
      for (int p = 0; p < size; ++p) sources += statuses[p].MPI_SOURCE;
      printf("rank %d waitall sources %d\n", rank, sources);
      free(statuses);
    } else if (round == 1) {
      for (int done = 0; done < 2 * size; ++done) {
        int index;
        MPI_Status status;
        MPI_Waitany(2 * size, requests, &index, &status);
      }
      int index;
      MPI_Waitany(2 * size, requests, &index, MPI_STATUS_IGNORE);
      printf("rank %d waitany drained %d\n", rank, index == MPI_UNDEFINED);
    } else if (round == 2) {
      int finished = 0;
      int* indices = malloc(sizeof(int) * 2 * size);
      while (finished < 2 * size) {
        int outcount;
        MPI_Waitsome(2 * size, requests, &outcount, indices, MPI_STATUSES_IGNORE);
        finished += outcount;
      }
      printf("rank %d waitsome finished %d\n", rank, finished);
      free(indices);
    } else {
      int flag = 0;
      while (!flag) MPI_Testall(2 * size, requests, &flag, MPI_STATUSES_IGNORE);
      int nullFlag = 0;
      MPI_Test(&requests[0], &nullFlag, MPI_STATUS_IGNORE);
      printf("rank %d testall done, null request tests true %d\n", rank, nullFlag);
    }
    long sum = 0;
    for (int i = 0; i < n * size; ++i) sum += in[i] % 1000;
    printf("rank %d round %d sum %ld work %.0f\n", rank, round, sum, work);
  }
  free(requests);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
