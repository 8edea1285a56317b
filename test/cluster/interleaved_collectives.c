// A cluster job for cluster_test.py's interleaved-collectives case: every
// collective on a communicator whose ranks of one host are not consecutive.
// MPI_Comm_split puts the even world ranks first, then the odd ones, so at
// np 5 over hosts holding world ranks 0-1, 2-3 and 4, the first host holds
// ranks 0 and 3 of the new communicator and the second ranks 1 and 4. The
// reductions also use a non-commutative op (2x2 matrix products), whose
// result shows whether the fold kept rank order. Every result is printed,
// so that the output can be compared with OpenMPI's.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kModulus = 1000003 };

// inout = in x inout for each 2x2 matrix (four ints).
static void multiply(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = in;
  int* b = inout;
  for (int m = 0; m + 3 < *len; m += 4) {
    long long c0 = ((long long)a[m] * b[m] + (long long)a[m + 1] * b[m + 2]) % kModulus;
    long long c1 = ((long long)a[m] * b[m + 1] + (long long)a[m + 1] * b[m + 3]) % kModulus;
    long long c2 = ((long long)a[m + 2] * b[m] + (long long)a[m + 3] * b[m + 2]) % kModulus;
    long long c3 = ((long long)a[m + 2] * b[m + 1] + (long long)a[m + 3] * b[m + 3]) % kModulus;
    b[m] = (int)c0;
    b[m + 1] = (int)c1;
    b[m + 2] = (int)c2;
    b[m + 3] = (int)c3;
  }
}

static void matrixOf(int rank, int salt, int* matrix) {
  matrix[0] = rank + 1;
  matrix[1] = salt + rank * 3;
  matrix[2] = 2 * rank + salt;
  matrix[3] = 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world, worldSize;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  MPI_Comm mixed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, (world % 2) * worldSize + world, &mixed);
  int rank, size;
  MPI_Comm_rank(mixed, &rank);
  MPI_Comm_size(mixed, &size);
  MPI_Op product;
  MPI_Op_create(multiply, 0, &product);
  int* all = calloc((size_t)size * 8, sizeof(int));
  int* more = calloc((size_t)size * 8, sizeof(int));
  int* counts = calloc((size_t)size, sizeof(int));
  int* displs = calloc((size_t)size, sizeof(int));
  int* sendCounts = calloc((size_t)size, sizeof(int));
  int* sendDispls = calloc((size_t)size, sizeof(int));
  printf("world %d rank %d of %d\n", world, rank, size);

  MPI_Barrier(mixed);

  int word = rank == 3 % size ? 4242 : -1;
  MPI_Bcast(&word, 1, MPI_INT, 3 % size, mixed);
  printf("rank %d bcast %d\n", rank, word);

  int matrix[4], result[4] = {0, 0, 0, 0};
  matrixOf(rank, 5, matrix);
  MPI_Reduce(matrix, result, 4, MPI_INT, product, size - 1, mixed);
  if (rank == size - 1)
    printf("rank %d reduce %d %d %d %d\n", rank, result[0], result[1], result[2], result[3]);
  MPI_Allreduce(matrix, result, 4, MPI_INT, product, mixed);
  printf("rank %d allreduce %d %d %d %d\n", rank, result[0], result[1], result[2], result[3]);
  long sum = 0, mine = 100 + rank * rank;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, mixed);
  printf("rank %d allreduce sum %ld\n", rank, sum);

  int pair[2] = {rank, rank * 10 + world};
  MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, 1, mixed);
  if (rank == 1)
    for (int i = 0; i < 2 * size; ++i) printf("rank %d gather[%d] %d\n", rank, i, all[i]);

  MPI_Allgather(pair, 2, MPI_INT, more, 2, MPI_INT, mixed);
  for (int i = 0; i < 2 * size; ++i) printf("rank %d allgather[%d] %d\n", rank, i, more[i]);

  for (int i = 0; i < size; ++i) {
    counts[i] = i % 3;
    displs[i] = 3 * (size - 1 - i);
  }
  int three[3] = {rank * 7, rank * 7 + 1, rank * 7 + 2};
  for (int i = 0; i < 3 * size; ++i) all[i] = -1;
  MPI_Gatherv(three, rank % 3, MPI_INT, all, counts, displs, MPI_INT, 0, mixed);
  if (rank == 0)
    for (int i = 0; i < 3 * size; ++i) printf("rank %d gatherv[%d] %d\n", rank, i, all[i]);
  for (int i = 0; i < 3 * size; ++i) more[i] = -1;
  MPI_Allgatherv(three, rank % 3, MPI_INT, more, counts, displs, MPI_INT, mixed);
  for (int i = 0; i < 3 * size; ++i) printf("rank %d allgatherv[%d] %d\n", rank, i, more[i]);

  for (int i = 0; i < 2 * size; ++i) all[i] = 100 * i + rank;
  int got[3] = {-1, -1, -1};
  MPI_Scatter(all, 2, MPI_INT, got, 2, MPI_INT, 3 % size, mixed);
  printf("rank %d scatter %d %d\n", rank, got[0], got[1]);
  for (int i = 0; i < 3 * size; ++i) all[i] = rank * 100 + i;
  got[0] = got[1] = got[2] = -1;
  MPI_Scatterv(all, counts, displs, MPI_INT, got, rank % 3, MPI_INT, 4 % size, mixed);
  printf("rank %d scatterv %d %d %d\n", rank, got[0], got[1], got[2]);

  for (int i = 0; i < 2 * size; ++i) all[i] = rank * 1000 + i;
  MPI_Alltoall(all, 2, MPI_INT, more, 2, MPI_INT, mixed);
  for (int i = 0; i < 2 * size; ++i) printf("rank %d alltoall[%d] %d\n", rank, i, more[i]);
  for (int j = 0; j < size; ++j) {
    sendCounts[j] = (rank + j) % 3;
    sendDispls[j] = 3 * (size - 1 - j);
    counts[j] = (j + rank) % 3;
  }
  for (int i = 0; i < 3 * size; ++i) {
    all[i] = rank * 1000 + i;
    more[i] = -1;
  }
  MPI_Alltoallv(all, sendCounts, sendDispls, MPI_INT, more, counts, displs, MPI_INT, mixed);
  for (int i = 0; i < 3 * size; ++i) printf("rank %d alltoallv[%d] %d\n", rank, i, more[i]);

  for (int i = 0; i < size; ++i) matrixOf(rank + i, 2, all + 4 * i);
  MPI_Reduce_scatter_block(all, result, 4, MPI_INT, product, mixed);
  printf("rank %d reduce_scatter_block %d %d %d %d\n", rank, result[0], result[1], result[2],
         result[3]);
  for (int i = 0; i < size; ++i) counts[i] = 4 * ((i + 1) % 2);
  for (int i = 0; i < 4; ++i) result[i] = -1;
  MPI_Reduce_scatter(all, result, counts, MPI_INT, product, mixed);
  printf("rank %d reduce_scatter %d %d %d %d\n", rank, result[0], result[1], result[2],
         result[3]);

  MPI_Scan(matrix, result, 4, MPI_INT, product, mixed);
  printf("rank %d scan %d %d %d %d\n", rank, result[0], result[1], result[2], result[3]);
  int prefix = -1;
  MPI_Exscan(&rank, &prefix, 1, MPI_INT, MPI_SUM, mixed);
  if (rank > 0) printf("rank %d exscan %d\n", rank, prefix);

  // A split of the interleaved communicator, by thirds, keys reversed.
  MPI_Comm part;
  MPI_Comm_split(mixed, rank % 3, size - rank, &part);
  int partRank, partSum = 0;
  MPI_Comm_rank(part, &partRank);
  MPI_Allreduce(&rank, &partSum, 1, MPI_INT, MPI_SUM, part);
  printf("rank %d part rank %d sum %d\n", rank, partRank, partSum);
  MPI_Comm_free(&part);

  MPI_Op_free(&product);
  MPI_Comm_free(&mixed);
  free(all);
  free(more);
  free(counts);
  free(displs);
  free(sendCounts);
  free(sendDispls);
  MPI_Finalize();
  return 0;
}
