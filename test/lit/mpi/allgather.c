// MPI_Allgather and MPI_Allgatherv, both also with MPI_IN_PLACE.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int pair[2] = {rank, -rank};
  int* all = malloc(sizeof(int) * 2 * size);
  MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
  long sum = 0;
  for (int i = 0; i < 2 * size; ++i) sum += all[i] * (i + 1);
  printf("rank %d allgather %ld\n", rank, sum);
  for (int i = 0; i < 2 * size; ++i) all[i] = i / 2 == rank ? 7 * rank + i % 2 : -1;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
  sum = 0;
  for (int i = 0; i < 2 * size; ++i) sum += all[i] * (i + 1);
  printf("rank %d allgather in place %ld\n", rank, sum);

  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  int total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = i + 1;
    displs[i] = total;
    total += i + 1;
  }
  float* values = malloc(sizeof(float) * total);
  float mine[16];
  for (int i = 0; i <= rank; ++i) mine[i] = rank + i / 4.0f;
  MPI_Allgatherv(mine, rank + 1, MPI_FLOAT, values, counts, displs, MPI_FLOAT, MPI_COMM_WORLD);
  double check = 0;
  for (int i = 0; i < total; ++i) check += values[i] * (i + 1);
  printf("rank %d allgatherv %.2f\n", rank, check);
  for (int i = 0; i < total; ++i) values[i] = -1;
  for (int i = 0; i <= rank; ++i) values[displs[rank] + i] = mine[i];
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, values, counts, displs, MPI_FLOAT,
                 MPI_COMM_WORLD);
  check = 0;
  for (int i = 0; i < total; ++i) check += values[i] * (i + 1);
  printf("rank %d allgatherv in place %.2f\n", rank, check);
  MPI_Finalize();
  return 0;
}
