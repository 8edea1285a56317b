// MPI_Alltoall (also in place) and MPI_Alltoallv with uneven counts.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* send = malloc(sizeof(int) * 3 * size);
  int* recv = malloc(sizeof(int) * 3 * size);
  for (int i = 0; i < 3 * size; ++i) send[i] = rank * 100 + i;
  MPI_Alltoall(send, 3, MPI_INT, recv, 3, MPI_INT, MPI_COMM_WORLD);
  printf("rank %d alltoall:", rank);
  for (int i = 0; i < 3 * size; ++i) printf(" %d", recv[i]);
  printf("\n");
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, 3, MPI_INT, MPI_COMM_WORLD);
  printf("rank %d alltoall in place:", rank);
  for (int i = 0; i < 3 * size; ++i) printf(" %d", send[i]);
  printf("\n");

  int *scounts = malloc(sizeof(int) * size), *sdispls = malloc(sizeof(int) * size);
  int *rcounts = malloc(sizeof(int) * size), *rdispls = malloc(sizeof(int) * size);
  int stotal = 0, rtotal = 0;
  for (int i = 0; i < size; ++i) {
    scounts[i] = (rank + i) % 3;
    rcounts[i] = (i + rank) % 3;
    sdispls[i] = stotal;
    rdispls[i] = rtotal;
    stotal += scounts[i];
    rtotal += rcounts[i];
  }
  double* sv = malloc(sizeof(double) * (stotal + 1));
  double* rv = malloc(sizeof(double) * (rtotal + 1));
  for (int i = 0; i < stotal; ++i) sv[i] = rank + i / 10.0;
  MPI_Alltoallv(sv, scounts, sdispls, MPI_DOUBLE, rv, rcounts, rdispls, MPI_DOUBLE,
                MPI_COMM_WORLD);
  printf("rank %d alltoallv:", rank);
  for (int i = 0; i < rtotal; ++i) printf(" %.1f", rv[i]);
  printf("\n");
  MPI_Finalize();
  return 0;
}
