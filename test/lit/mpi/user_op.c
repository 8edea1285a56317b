// User-defined ops: a non-commutative 2x2 matrix product (the runtime must
// keep rank order) and a commutative one, through Reduce, Allreduce, Scan,
// Reduce_scatter_block and Reduce_local; MPI_Op_commutative.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

typedef struct { int a, b, c, d; } Matrix;

static void multiply(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  Matrix* in = invec;
  Matrix* io = inoutvec;
  for (int i = 0; i < *len; ++i) {
    Matrix x = in[i], y = io[i];
    io[i].a = x.a * y.a + x.b * y.c;
    io[i].b = x.a * y.b + x.b * y.d;
    io[i].c = x.c * y.a + x.d * y.c;
    io[i].d = x.c * y.b + x.d * y.d;
  }
}

static void absmax(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  int* in = invec;
  int* io = inoutvec;
  for (int i = 0; i < *len; ++i) {
    int x = in[i] < 0 ? -in[i] : in[i], y = io[i] < 0 ? -io[i] : io[i];
    io[i] = x > y ? x : y;
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype matrixType;
  MPI_Type_contiguous(4, MPI_INT, &matrixType);
  MPI_Type_commit(&matrixType);
  MPI_Op product, largest;
  MPI_Op_create(multiply, 0, &product);
  MPI_Op_create(absmax, 1, &largest);
  int commutes;
  MPI_Op_commutative(product, &commutes);
  if (rank == 0) printf("product commutes %d\n", commutes);
  Matrix mine[2] = {{1, rank, 0, 1}, {rank + 1, 1, 1, 0}}, result[2];
  MPI_Reduce(mine, result, 2, matrixType, product, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("reduce %d %d %d %d | %d %d %d %d\n", result[0].a, result[0].b, result[0].c,
           result[0].d, result[1].a, result[1].b, result[1].c, result[1].d);
  MPI_Allreduce(mine, result, 2, matrixType, product, MPI_COMM_WORLD);
  printf("rank %d allreduce %d %d %d %d\n", rank, result[1].a, result[1].b, result[1].c,
         result[1].d);
  MPI_Scan(mine, result, 2, matrixType, product, MPI_COMM_WORLD);
  printf("rank %d scan %d %d %d %d\n", rank, result[1].a, result[1].b, result[1].c,
         result[1].d);
  int values[3] = {rank - 5, 2 * rank, -3 * rank}, big[3];
  MPI_Allreduce(values, big, 3, MPI_INT, largest, MPI_COMM_WORLD);
  printf("rank %d absmax %d %d %d\n", rank, big[0], big[1], big[2]);
  int blocks[64], mineBlock[2];
  for (int i = 0; i < 2 * size; ++i) blocks[i] = (i - rank) * (rank % 2 ? 1 : -1);
  MPI_Reduce_scatter_block(blocks, mineBlock, 2, MPI_INT, largest, MPI_COMM_WORLD);
  printf("rank %d reduce_scatter_block %d %d\n", rank, mineBlock[0], mineBlock[1]);
  int local[3] = {-9, 1, 4};
  MPI_Reduce_local(values, local, 3, MPI_INT, largest);
  printf("rank %d reduce_local %d %d %d\n", rank, local[0], local[1], local[2]);
  MPI_Op_free(&product);
  MPI_Op_free(&largest);
  printf("rank %d freed %d\n", rank, product == MPI_OP_NULL);
  MPI_Type_free(&matrixType);
  MPI_Finalize();
  return 0;
}
