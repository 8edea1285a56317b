// MPI_Reduce_scatter_block and MPI_Reduce_scatter, also in place.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* send = malloc(sizeof(int) * 2 * size);
  for (int i = 0; i < 2 * size; ++i) send[i] = rank + i;
  int out[2];
  MPI_Reduce_scatter_block(send, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d block %d %d\n", rank, out[0], out[1]);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, send, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  printf("rank %d block in place %d %d\n", rank, send[0], send[1]);

  int* counts = malloc(sizeof(int) * size);
  int total = 0;
  for (int i = 0; i < size; ++i) total += counts[i] = i % 2 + 1;
  long long* values = malloc(sizeof(long long) * total);
  for (int i = 0; i < total; ++i) values[i] = (long long)(rank + 1) * (i + 1);
  long long got[2] = {-1, -1};
  MPI_Reduce_scatter(values, got, counts, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d varied %lld %lld\n", rank, got[0], counts[rank] > 1 ? got[1] : -1);
  MPI_Reduce_scatter(MPI_IN_PLACE, values, counts, MPI_LONG_LONG, MPI_PROD, MPI_COMM_WORLD);
  printf("rank %d varied in place %lld %lld\n", rank, values[0], counts[rank] > 1 ? values[1] : -1);
  MPI_Finalize();
  return 0;
}
