// MPI_Comm_get_attr hands out a pointer to the attribute's value. Repeated
// calls must not take new memory each time (they once leaked a guest heap
// cell per call): every call for a key returns the same cell.
// RUN: %mpi-diff %s %t 1 2
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int *first, *again, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &first, &flag);
  int distinct = 0;
  for (int i = 0; i < 200000; ++i) {
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &again, &flag);
    distinct += again != first;
  }
  printf("rank %d tag_ub >= 32767 %d, calls returning another cell %d\n", rank,
         *first >= 32767, distinct);
  MPI_Finalize();
  return 0;
}
