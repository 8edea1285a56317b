// MPI_Comm_create with disjoint groups (each member passes its own group),
// MPI_Comm_create_group (only the group's members call it, twice in a row
// and under two tags), and collectives on the communicators both make.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

static void report(const char* what, int world_rank, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) {
    printf("%s: rank %d null\n", what, world_rank);
    return;
  }
  int rank, size, sum;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
  printf("%s: rank %d is %d of %d, world-rank sum %d\n", what, world_rank, rank, size, sum);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);

  // Each rank alone: a communicator of size 1 each.
  MPI_Group self_group;
  MPI_Group_incl(world, 1, &rank, &self_group);
  MPI_Comm alone;
  MPI_Comm_create(MPI_COMM_WORLD, self_group, &alone);
  report("alone", rank, alone);

  // Pairs {2k+1, 2k} in that order; the last rank of an odd world is left out.
  int pair[2] = {rank | 1, rank & ~1};
  MPI_Group pair_group = MPI_GROUP_EMPTY;
  if (pair[0] < size) MPI_Group_incl(world, 2, pair, &pair_group);
  MPI_Comm pairs;
  MPI_Comm_create(MPI_COMM_WORLD, pair_group, &pairs);
  report("pairs", rank, pairs);

  // The even ranks build two communicators over themselves, the odd ranks
  // one, and only the members call.
  int range[1][3] = {{rank % 2, size - 1, 2}};
  MPI_Group parity;
  MPI_Group_range_incl(world, 1, range, &parity);
  MPI_Comm first, second = MPI_COMM_NULL;
  MPI_Comm_create_group(MPI_COMM_WORLD, parity, 5, &first);
  if (rank % 2 == 0) MPI_Comm_create_group(MPI_COMM_WORLD, parity, 9, &second);
  report("create_group first", rank, first);
  if (rank % 2 == 0) report("create_group second", rank, second);
  int same;
  if (rank % 2 == 0) {
    MPI_Comm_compare(first, second, &same);
    printf("rank %d: the two create_group communicators are %s\n", rank,
           same == MPI_CONGRUENT ? "congruent" : "something else");
    MPI_Comm_free(&second);
  }

  // A create_group communicator derived from one made by Comm_create.
  if (pairs != MPI_COMM_NULL) {
    MPI_Group pair_members, last;
    MPI_Comm_group(pairs, &pair_members);
    int zero = 0;
    MPI_Group_incl(pair_members, 1, &zero, &last);
    int in_last;
    MPI_Group_rank(last, &in_last);
    if (in_last != MPI_UNDEFINED) {
      MPI_Comm sub;
      MPI_Comm_create_group(pairs, last, 0, &sub);
      report("sub", rank, sub);
      MPI_Comm_free(&sub);
    }
    MPI_Group_free(&last);
    MPI_Group_free(&pair_members);
    MPI_Comm_free(&pairs);
  }
  MPI_Comm_free(&first);
  MPI_Comm_free(&alone);
  MPI_Group_free(&parity);
  MPI_Group_free(&self_group);
  if (pair_group != MPI_GROUP_EMPTY) MPI_Group_free(&pair_group);
  MPI_Group_free(&world);
  MPI_Finalize();
  return 0;
}
