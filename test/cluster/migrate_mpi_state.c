// For cluster_test.py migrate-mpi-state: a job whose ranks hold MPI state
// across the barrier control point where rank 1 is moved to another host:
// derived datatypes (one column of a 4x4 int matrix, and a struct of it
// and a double) committed before the move and used after it in a
// nonblocking exchange, MPI_ERRORS_RETURN and a name set on
// MPI_COMM_WORLD before it and read after it. With argument "split" each
// rank also makes a communicator by MPI_Comm_split before the move (its
// context drawn by one host of the job) and uses it after it, and makes a
// duplicate of it after the move, whose context must be none of the live
// ones. Every value printed depends on that state, so a rank that
// lost any of it prints something else than OpenMPI's rank. A request
// still pending at a control point keeps the job from suspending there
// (the checkpoint does not record pending requests), so the exchange's
// requests live only between control points.
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int split = argc > 1 && strcmp(argv[1], "split") == 0;
  MPI_Comm half = MPI_COMM_NULL;
  if (split) MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_name(MPI_COMM_WORLD, "moved world");
  MPI_Datatype column, pair;
  MPI_Type_vector(4, 1, 4, MPI_INT, &column);
  MPI_Type_commit(&column);
  struct {
    int cells[16];
    double weight;
  } mine, got;
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {0, (char*)&mine.weight - (char*)&mine};
  MPI_Datatype types[2] = {column, MPI_DOUBLE};
  MPI_Type_create_struct(2, lengths, displacements, types, &pair);
  MPI_Type_commit(&pair);
  for (int i = 0; i < 16; ++i) {
    mine.cells[i] = rank * 100 + i;
    got.cells[i] = -1;
  }
  mine.weight = rank + 0.25;
  got.weight = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  int halfRank = -1, halfSize = -1, halfSum = -1, dupMax = -1;
  if (split) {
    MPI_Comm_rank(half, &halfRank);
    MPI_Comm_size(half, &halfSize);
    MPI_Allreduce(&rank, &halfSum, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm dup;
    MPI_Comm_dup(half, &dup);
    MPI_Allreduce(&rank, &dupMax, 1, MPI_INT, MPI_MAX, dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
  }
  MPI_Request requests[2];
  MPI_Irecv(&got, 1, pair, (rank + 1) % size, 7, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&mine, 1, pair, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &requests[1]);
  MPI_Status statuses[2];
  MPI_Waitall(2, requests, statuses);
  int count = 0, length = 0;
  MPI_Get_count(&statuses[0], pair, &count);
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &length);
  // An invalid root returns an error instead of aborting the job.
  int error = MPI_Bcast(&count, 1, MPI_INT, size, MPI_COMM_WORLD);
  printf("rank %d of '%s' (bad root %s): half %d of %d, sum %d, max %d; from %d (count %d) "
         "weight %.2f:",
         rank, name, error == MPI_SUCCESS ? "taken" : "refused", halfRank, halfSize, halfSum, dupMax,
         statuses[0].MPI_SOURCE, count, got.weight);
  for (int i = 0; i < 16; ++i) printf(" %d", got.cells[i]);
  printf("\n");
  MPI_Type_free(&pair);
  MPI_Type_free(&column);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
