// MPI_Gather and MPI_Gatherv to every root, with MPI_IN_PLACE at the root
// and uneven counts.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int root = 0; root < size; ++root) {
    int mine[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2};
    int* all = malloc(sizeof(int) * 3 * size);
    for (int i = 0; i < 3 * size; ++i) all[i] = -1;
    if (rank == root && root % 2) {
      for (int i = 0; i < 3; ++i) all[3 * root + i] = mine[i];
      MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
    } else {
      MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
    }
    if (rank == root) {
      printf("gather root %d:", root);
      for (int i = 0; i < 3 * size; ++i) printf(" %d", all[i]);
      printf("\n");
    }
    free(all);

    int* counts = malloc(sizeof(int) * size);
    int* displs = malloc(sizeof(int) * size);
    int total = 0;
    for (int i = 0; i < size; ++i) {
      counts[i] = i % 3 + 1;
      displs[i] = total + 1;
      total += counts[i] + 1;
    }
    double* values = malloc(sizeof(double) * (total + 1));
    for (int i = 0; i <= total; ++i) values[i] = -1;
    double send[3] = {rank + 0.5, rank + 0.25, rank + 0.125};
    MPI_Gatherv(send, rank % 3 + 1, MPI_DOUBLE, values, counts, displs, MPI_DOUBLE, root,
                MPI_COMM_WORLD);
    if (rank == root) {
      printf("gatherv root %d:", root);
      for (int i = 0; i <= total; ++i) printf(" %g", values[i]);
      printf("\n");
    }
    free(values);
    free(counts);
    free(displs);
  }
  MPI_Finalize();
  return 0;
}
