// Back-to-back collectives with a rotating root, where a broadcast's root
// and a reduction's non-roots may run ahead of the others: small (staged)
// and large (read from the members' memories) Bcast and Reduce, Allreduce
// and Sendrecv in between. Every rank checks every result.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kLarge = 5000 };
  int* large = malloc(kLarge * sizeof(int));
  int* reduced = malloc(kLarge * sizeof(int));
  long wrong = 0;
  for (int i = 0; i < 3000; ++i) {
    int root = i % size;
    int mine = rank * 3 + i, sum = -1;
    MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root && sum != 3 * size * (size - 1) / 2 + size * i) ++wrong;
    int message[3] = {0, 0, 0};
    if (rank == root) {
      message[0] = i;
      message[1] = -i;
      message[2] = root;
    }
    MPI_Bcast(message, 3, MPI_INT, root, MPI_COMM_WORLD);
    if (message[0] != i || message[1] != -i || message[2] != root) ++wrong;
    int total = 0;
    MPI_Allreduce(&i, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total != i * size) ++wrong;
    int from = -1;
    MPI_Sendrecv(&i, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (from != i) ++wrong;
    if (i % 100 == 0) {
      for (int j = 0; j < kLarge; ++j) large[j] = rank == root ? i + j : -1;
      MPI_Bcast(large, kLarge, MPI_INT, root, MPI_COMM_WORLD);
      for (int j = 0; j < kLarge; ++j) wrong += large[j] != i + j;
      for (int j = 0; j < kLarge; ++j) large[j] = j + rank;
      MPI_Reduce(large, reduced, kLarge, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
      if (rank == root)
        for (int j = 0; j < kLarge; ++j) wrong += reduced[j] != j + size - 1;
    }
  }
  printf("rank %d of %d: %ld wrong results\n", rank, size, wrong);
  free(large);
  free(reduced);
  MPI_Finalize();
  return 0;
}
