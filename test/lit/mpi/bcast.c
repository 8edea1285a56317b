// MPI_Bcast from every root with odd counts and several datatypes.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int root = 0; root < size; ++root) {
    int ints[13];
    double doubles[7];
    char text[5];
    for (int i = 0; i < 13; ++i) ints[i] = rank == root ? root * 100 + i : -1;
    for (int i = 0; i < 7; ++i) doubles[i] = rank == root ? root + i * 0.5 : 0;
    for (int i = 0; i < 5; ++i) text[i] = rank == root ? (char)('a' + root + i) : '?';
    MPI_Bcast(ints, 13, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Bcast(doubles, 7, MPI_DOUBLE, root, MPI_COMM_WORLD);
    MPI_Bcast(text, 5, MPI_CHAR, root, MPI_COMM_WORLD);
    long sum = 0;
    for (int i = 0; i < 13; ++i) sum += ints[i];
    printf("rank %d root %d ints %ld doubles %.1f %.1f text %.5s\n", rank, root, sum,
           doubles[0], doubles[6], text);
  }
  MPI_Finalize();
  return 0;
}
