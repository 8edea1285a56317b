// MPI_Op_free while a nonblocking reduction that uses the op is pending:
// MPI frees an object only once the operations using it have completed, so
// the reduction still applies the op when it is waited for (MPICH's
// coll/nonblocking3 does this). The freed handle is MPI_OP_NULL at once, and
// ops created afterwards work as usual.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

static void maximum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    int a = ((int*)in)[i], b = ((int*)inout)[i];
    ((int*)inout)[i] = a > b ? a : b;
  }
}

static void sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < 3; ++round) {
    MPI_Op first, second;
    MPI_Op_create(maximum, 1, &first);
    MPI_Op_create(sum, 1, &second);
    int in[4] = {rank, 2 * rank - 3 * round, round - rank, (rank * 7 + round) % 5};
    int all[4] = {0}, root[4] = {0};
    MPI_Request requests[2];
    MPI_Iallreduce(in, all, 4, MPI_INT, first, MPI_COMM_WORLD, &requests[0]);
    MPI_Ireduce(in, root, 4, MPI_INT, second, size - 1, MPI_COMM_WORLD, &requests[1]);
    MPI_Op_free(&first);
    MPI_Op_free(&second);
    if (rank == 0) printf("round %d: freed handles null: %d %d\n", round, first == MPI_OP_NULL, second == MPI_OP_NULL);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (rank == 0) printf("round %d: allreduce %d %d %d %d\n", round, all[0], all[1], all[2], all[3]);
    if (rank == size - 1) printf("round %d: reduce %d %d %d %d\n", round, root[0], root[1], root[2], root[3]);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Op later;
  MPI_Op_create(sum, 1, &later);
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, later, MPI_COMM_WORLD);
  MPI_Op_free(&later);
  if (rank == 0) printf("later op: %d\n", total);
  MPI_Finalize();
  return 0;
}
