// MPI_Scatter and MPI_Scatterv from every root, with MPI_IN_PLACE at the
// root and uneven counts.
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
    int* all = malloc(sizeof(int) * 2 * size);
    for (int i = 0; i < 2 * size; ++i) all[i] = root * 1000 + i;
    int mine[2] = {-1, -1};
    if (rank == root && root % 2) {
      MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD);
      mine[0] = all[2 * root];
      mine[1] = all[2 * root + 1];
    } else {
      MPI_Scatter(all, 2, MPI_INT, mine, 2, MPI_INT, root, MPI_COMM_WORLD);
    }
    printf("scatter root %d rank %d: %d %d\n", root, rank, mine[0], mine[1]);

    int* counts = malloc(sizeof(int) * size);
    int* displs = malloc(sizeof(int) * size);
    for (int i = 0; i < size; ++i) {
      counts[i] = (i + root) % 3;
      displs[i] = 2 * (size - 1 - i);
    }
    short source[64];
    for (int i = 0; i < 64; ++i) source[i] = (short)(root * 100 + i);
    short got[4] = {-1, -1, -1, -1};
    MPI_Scatterv(source, counts, displs, MPI_SHORT, got, (rank + root) % 3, MPI_SHORT, root,
                 MPI_COMM_WORLD);
    printf("scatterv root %d rank %d: %d %d %d\n", root, rank, got[0], got[1], got[2]);
    free(all);
    free(counts);
    free(displs);
  }
  MPI_Finalize();
  return 0;
}
