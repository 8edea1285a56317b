// MPI_Reduce and MPI_Allreduce of large contributions. A reduction across
// hosts sends its partial results in segments and the root's host folds
// each segment as it comes (mpi/HostCollectives.cpp): a sum of doubles whose
// count is no multiple of a segment, a non-commutative user-defined op on
// 2x2 matrices (a fold out of rank order shows in the product), a
// commutative one on a contiguous type of 12 bytes (segments of whole
// instances), MPI_IN_PLACE at the root, every root; on MPI_COMM_WORLD and
// on a communicator whose ranks are grouped by host (MPI_COMM_TYPE_SHARED),
// so that each host holds one run of consecutive ranks. Each root prints a
// digest of its result; the allreduce (in place on odd ranks) is printed by
// every rank.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kDoubles = 100003, kMatrices = 40001, kTriples = 30011 };

// inout = in x inout, 2x2 integer matrices modulo 1009.
static void multiply(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int m = 0; m < *len; ++m, a += 4, b += 4) {
    int c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1009, (a[0] * b[1] + a[1] * b[3]) % 1009,
                (a[2] * b[0] + a[3] * b[2]) % 1009, (a[2] * b[1] + a[3] * b[3]) % 1009};
    for (int k = 0; k < 4; ++k) b[k] = c[k];
  }
}

// inout = max(in, inout), element by element (a commutative user op).
static void larger(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < 3 * *len; ++i)
    if (a[i] > b[i]) b[i] = a[i];
}

static void reduceAll(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double* mine = malloc(sizeof(double) * kDoubles);
  double* sum = malloc(sizeof(double) * kDoubles);
  int* matrices = malloc(sizeof(int) * 4 * kMatrices);
  int* product = malloc(sizeof(int) * 4 * kMatrices);
  int* triples = malloc(sizeof(int) * 3 * kTriples);
  int* maxima = malloc(sizeof(int) * 3 * kTriples);
  MPI_Op op, maxOp;
  MPI_Op_create(multiply, 0, &op);
  MPI_Op_create(larger, 1, &maxOp);
  MPI_Datatype matrix, triple;
  MPI_Type_contiguous(4, MPI_INT, &matrix);
  MPI_Type_commit(&matrix);
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  for (int root = 0; root < size; ++root) {
    int inPlace = root % 2 == 1;
    for (int i = 0; i < kDoubles; ++i) mine[i] = (rank + 1) * 0.5 + i % 97;
    if (rank == root && inPlace) {
      for (int i = 0; i < kDoubles; ++i) sum[i] = mine[i];
      MPI_Reduce(MPI_IN_PLACE, sum, kDoubles, MPI_DOUBLE, MPI_SUM, root, comm);
    } else {
      MPI_Reduce(mine, sum, kDoubles, MPI_DOUBLE, MPI_SUM, root, comm);
    }
    for (int m = 0; m < kMatrices; ++m) {
      int* at = matrices + 4 * m;
      at[0] = (rank + 2 + m) % 1009;
      at[1] = (3 * rank + 1) % 1009;
      at[2] = (m % 5) + rank;
      at[3] = 1 + (m + rank) % 7;
    }
    if (rank == root && inPlace) {
      for (int i = 0; i < 4 * kMatrices; ++i) product[i] = matrices[i];
      MPI_Reduce(MPI_IN_PLACE, product, kMatrices, matrix, op, root, comm);
    } else {
      MPI_Reduce(matrices, product, kMatrices, matrix, op, root, comm);
    }
    for (int i = 0; i < 3 * kTriples; ++i) triples[i] = (i * 31 + rank * 17) % 1000;
    MPI_Reduce(triples, maxima, kTriples, triple, maxOp, root, comm);
    if (rank == root) {
      double total = 0;
      for (int i = 0; i < kDoubles; ++i) total += sum[i] * (1 + i % 3);
      long long digest = 0;
      for (int i = 0; i < 4 * kMatrices; ++i) digest = (digest * 31 + product[i]) % 1000000007;
      long long highest = 0;
      for (int i = 0; i < 3 * kTriples; ++i) highest = (highest * 7 + maxima[i]) % 1000000007;
      printf("%s root %d: sum %.1f product %lld max %lld first %d %d %d %d last %d\n", name,
             root, total, digest, highest, product[0], product[1], product[2], product[3],
             product[4 * kMatrices - 1]);
    }
  }
  // MPI_Allreduce of the same matrices, in place on odd ranks: every rank
  // prints its digest.
  for (int m = 0; m < kMatrices; ++m) {
    int* at = matrices + 4 * m;
    at[0] = (rank + 5 + m) % 1009;
    at[1] = (7 * rank + 2) % 1009;
    at[2] = (m % 3) + 2 * rank;
    at[3] = 1 + (m + 3 * rank) % 5;
  }
  if (rank % 2 == 1) {
    for (int i = 0; i < 4 * kMatrices; ++i) product[i] = matrices[i];
    MPI_Allreduce(MPI_IN_PLACE, product, kMatrices, matrix, op, comm);
  } else {
    MPI_Allreduce(matrices, product, kMatrices, matrix, op, comm);
  }
  long long digest = 0;
  for (int i = 0; i < 4 * kMatrices; ++i) digest = (digest * 31 + product[i]) % 1000000007;
  printf("%s rank %d: allreduce product %lld\n", name, rank, digest);
  MPI_Type_free(&matrix);
  MPI_Type_free(&triple);
  MPI_Op_free(&op);
  MPI_Op_free(&maxOp);
  free(mine);
  free(sum);
  free(matrices);
  free(product);
  free(triples);
  free(maxima);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  reduceAll(MPI_COMM_WORLD, "world");
  // The ranks grouped by host: a host's ranks take consecutive ranks in
  // order of the lowest world rank on each host.
  MPI_Comm local, grouped;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int first = rank;
  MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, local);
  MPI_Comm_split(MPI_COMM_WORLD, 0, first * 4096 + rank, &grouped);
  reduceAll(grouped, "grouped");
  MPI_Comm_free(&local);
  MPI_Comm_free(&grouped);
  MPI_Finalize();
  return 0;
}
