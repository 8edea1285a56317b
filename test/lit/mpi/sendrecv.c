// MPI_Sendrecv shifts in both directions (small and above the eager limit)
// and MPI_Sendrecv_replace, including with MPI_PROC_NULL at open ends.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int n = 1; n <= 100000; n *= 100) {
    int* out = malloc(sizeof(int) * n);
    int* in = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i) out[i] = rank * 7 + i;
    MPI_Status status;
    MPI_Sendrecv(out, n, MPI_INT, right, n % 100, in, n, MPI_INT, left, n % 100, MPI_COMM_WORLD,
                 &status);
    long sum = 0;
    for (int i = 0; i < n; ++i) sum += in[i];
    printf("rank %d n %d from %d sum %ld\n", rank, n, status.MPI_SOURCE, sum);
    free(out);
    free(in);
  }
  double value[3] = {rank, rank * 0.5, -rank};
  MPI_Sendrecv_replace(value, 3, MPI_DOUBLE, left, 4, right, 4, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  printf("rank %d replaced %.1f %.1f %.1f\n", rank, value[0], value[1], value[2]);
  int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int token = rank, got = -1;
  MPI_Status status;
  MPI_Sendrecv(&token, 1, MPI_INT, down, 0, &got, 1, MPI_INT, up, 0, MPI_COMM_WORLD, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d open chain got %d source %d count %d\n", rank, got,
         status.MPI_SOURCE == MPI_PROC_NULL ? -99 : status.MPI_SOURCE, count);
  MPI_Finalize();
  return 0;
}
