// MPI_Alltoall where the ranks' buffers have different layouts: strided
// (resized vector) and contiguous datatypes of one type signature (even
// ranks send strided, odd ranks contiguous), into a strided receive buffer
// and in place into one; and MPI_Allreduce of a large vector, in place and
// not. Across hosts a host's leader reads and writes its members' buffers
// itself, each with that member's own datatype (HostMeeting.h).
// RUN: %mpi-diff %s %t 1 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void print(const char* what, int rank, const int* data, int count) {
  long long sum = 0;
  for (int i = 0; i < count; ++i) sum += (long long)(i + 1) * data[i];
  printf("rank %d %s:", rank, what);
  for (int i = 0; i < count && i < 12; ++i) printf(" %d", data[i]);
  printf(" ... weighted sum %lld\n", sum);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // Two ints a block: every other int of a strided buffer, or two
  // consecutive ones.
  MPI_Datatype strided, pair;
  MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, 4 * sizeof(int), &pair);
  MPI_Type_commit(&pair);

  int* spread = calloc(4 * size, sizeof(int));
  int* dense = calloc(2 * size, sizeof(int));
  for (int i = 0; i < 4 * size; ++i) spread[i] = i % 2 ? -1 : rank * 1000 + i;
  for (int i = 0; i < 2 * size; ++i) dense[i] = rank * 1000 + 2 * i;
  int* got = calloc(2 * size, sizeof(int));
  if (rank % 2 == 0)
    MPI_Alltoall(spread, 1, pair, got, 2, MPI_INT, MPI_COMM_WORLD);
  else
    MPI_Alltoall(dense, 2, MPI_INT, got, 2, MPI_INT, MPI_COMM_WORLD);
  print("alltoall from mixed layouts", rank, got, 2 * size);

  // In place into a strided buffer: the odd ints stay -1.
  int* gotSpread = calloc(4 * size, sizeof(int));
  if (rank % 2 == 0)
    MPI_Alltoall(dense, 2, MPI_INT, gotSpread, 1, pair, MPI_COMM_WORLD);
  else
    MPI_Alltoall(spread, 1, pair, gotSpread, 1, pair, MPI_COMM_WORLD);
  print("alltoall into strided", rank, gotSpread, 4 * size);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, spread, 1, pair, MPI_COMM_WORLD);
  print("alltoall in place strided", rank, spread, 4 * size);

  // An allreduce large enough to cross hosts in a frame of its own, in
  // place and not. (OpenMPI refuses predefined ops on derived datatypes.)
  const int count = 60000;
  int* vector = malloc(sizeof(int) * count);
  int* total = malloc(sizeof(int) * count);
  for (int i = 0; i < count; ++i) vector[i] = (rank + 1) * (i % 7) - i % 3;
  MPI_Allreduce(vector, total, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  print("allreduce", rank, total, count);
  MPI_Allreduce(MPI_IN_PLACE, vector, count, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  print("allreduce in place", rank, vector, count);

  MPI_Type_free(&pair);
  MPI_Type_free(&strided);
  free(spread);
  free(dense);
  free(got);
  free(gotSpread);
  free(vector);
  free(total);
  MPI_Finalize();
  return 0;
}
