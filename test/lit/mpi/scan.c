// MPI_Scan and MPI_Exscan with several ops, also in place.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int v[3] = {rank + 1, 2 * rank - 3, rank % 2}, r[3];
  MPI_Scan(v, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d scan sum %d %d %d\n", rank, r[0], r[1], r[2]);
  MPI_Scan(v, r, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  printf("rank %d scan max %d %d %d\n", rank, r[0], r[1], r[2]);
  double p = rank + 1.0, q;
  MPI_Scan(&p, &q, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  printf("rank %d scan prod %.0f\n", rank, q);
  int e[3] = {-1, -1, -1};
  MPI_Exscan(v, e, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank > 0) printf("rank %d exscan sum %d %d %d\n", rank, e[0], e[1], e[2]);
  MPI_Scan(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  printf("rank %d scan in place min %d %d %d\n", rank, v[0], v[1], v[2]);
  int x = rank + 2;
  MPI_Exscan(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
  if (rank > 0) printf("rank %d exscan in place prod %d\n", rank, x);
  MPI_Finalize();
  return 0;
}
