// MPI_Reduce with every predefined arithmetic, logical and bitwise op, to
// every root, on odd counts, with and without MPI_IN_PLACE at the root.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
                  MPI_LXOR, MPI_BXOR};
  const char* names[] = {"max", "min", "sum", "prod", "land", "band", "lor", "bor", "lxor", "bxor"};
  for (int o = 0; o < 10; ++o) {
    for (int root = 0; root < size; ++root) {
      int in[5], out[5];
      for (int i = 0; i < 5; ++i) {
        in[i] = (rank + 1) * (i + 1) + (rank % 3 == 0 ? 0 : i);
        out[i] = -7;
      }
      if (rank == root && (o + root) % 2 == 1) {
        for (int i = 0; i < 5; ++i) out[i] = in[i];
        MPI_Reduce(MPI_IN_PLACE, out, 5, MPI_INT, ops[o], root, MPI_COMM_WORLD);
      } else {
        MPI_Reduce(in, out, 5, MPI_INT, ops[o], root, MPI_COMM_WORLD);
      }
      if (rank == root)
        printf("%s root %d: %d %d %d %d %d\n", names[o], root, out[0], out[1], out[2], out[3],
               out[4]);
    }
  }
  double x = rank + 0.25, total = 0;
  MPI_Reduce(&x, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  unsigned long long big = 1ull << (rank + 30), bigsum = 0;
  MPI_Reduce(&big, &bigsum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  short s = (short)(rank * 3), smax = 0;
  MPI_Reduce(&s, &smax, 1, MPI_SHORT, MPI_MAX, 0, MPI_COMM_WORLD);
  float f = 1.5f * rank, fmin = 0;
  MPI_Reduce(&f, &fmin, 1, MPI_FLOAT, MPI_MIN, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("double %.2f ull %llu short %d float %.1f\n", total, bigsum, smax, fmin);
  MPI_Finalize();
  return 0;
}
