// MPI_Comm_split by parity (reversed key order) and into MPI_UNDEFINED,
// collectives and point-to-point on the sub-communicators, MPI_Comm_dup
// isolation from its parent, MPI_Comm_compare.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int subRank, subSize;
  MPI_Comm_rank(half, &subRank);
  MPI_Comm_size(half, &subSize);
  int sum;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
  int first = rank;
  MPI_Bcast(&first, 1, MPI_INT, 0, half);
  printf("rank %d color %d subrank %d/%d sum %d root-rank %d\n", rank, rank % 2, subRank,
         subSize, sum, first);
  if (subSize > 1) {
    int token = rank, got;
    MPI_Sendrecv(&token, 1, MPI_INT, (subRank + 1) % subSize, 3, &got, 1, MPI_INT,
                 (subRank + subSize - 1) % subSize, 3, half, MPI_STATUS_IGNORE);
    printf("rank %d got %d from its sub-ring\n", rank, got);
  }

  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 5 : MPI_UNDEFINED, rank, &some);
  printf("rank %d in some: %d\n", rank, some != MPI_COMM_NULL);
  if (some != MPI_COMM_NULL) MPI_Comm_free(&some);

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  printf("rank %d dup congruent %d\n", rank, result == MPI_CONGRUENT);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  printf("rank %d world ident %d\n", rank, result == MPI_IDENT);
  // The same members in reverse order are similar; a part is unequal.
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  MPI_Comm_compare(MPI_COMM_WORLD, reversed, &result);
  printf("rank %d reversed similar %d congruent %d\n", rank, result == MPI_SIMILAR,
         result == MPI_CONGRUENT);
  MPI_Comm_compare(MPI_COMM_WORLD, half, &result);
  printf("rank %d half unequal %d\n", rank, result == MPI_UNEQUAL);
  MPI_Comm_free(&reversed);
  if (size > 1) {
    // The same tag on two communicators: each receive sees its own message.
    int a = 1, b = 2, x = 0, y = 0;
    if (rank == 0) {
      MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      MPI_Send(&b, 1, MPI_INT, 1, 0, dup);
    } else if (rank == 1) {
      MPI_Recv(&y, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
      MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("world message %d, dup message %d\n", x, y);
    }
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  printf("rank %d freed %d\n", rank, half == MPI_COMM_NULL);
  MPI_Finalize();
  return 0;
}
