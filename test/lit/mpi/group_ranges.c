// MPI_Group_range_incl/range_excl (strides up and down, several triples),
// MPI_Group_union/intersection/difference (order and empty results), and
// an error: a range naming a rank twice, under MPI_ERRORS_RETURN.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>

// Prints the group's members as ranks of MPI_COMM_WORLD, in group order.
static void show(const char* what, MPI_Group group, MPI_Group world) {
  int size, members[64], ranks[64];
  MPI_Group_size(group, &size);
  printf("%s (%d):", what, size);
  for (int i = 0; i < size; ++i) members[i] = i;
  MPI_Group_translate_ranks(group, size, members, world, ranks);
  for (int i = 0; i < size; ++i) printf(" %d", ranks[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rank == 0) {
    MPI_Group down, evens, odds, some, all, both, neither, rest;
    int backwards[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, backwards, &down);
    show("down", down, world);
    int even[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, even, &evens);
    show("evens", evens, world);
    MPI_Group_range_excl(world, 1, even, &odds);
    show("odds", odds, world);
    int two[2][3] = {{size - 1, size - 1, 1}, {0, size - 2, 3}};
    MPI_Group_range_incl(world, size > 1 ? 2 : 1, two, &some);
    show("some", some, world);
    MPI_Group_union(odds, down, &all);
    show("odds union down", all, world);
    MPI_Group_intersection(down, evens, &both);
    show("down intersection evens", both, world);
    MPI_Group_intersection(evens, odds, &neither);
    show("evens intersection odds", neither, world);
    MPI_Group_difference(down, some, &rest);
    show("down difference some", rest, world);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group bad = MPI_GROUP_NULL;
    int twice[2][3] = {{0, 0, 1}, {0, size - 1, 1}};
    int code = MPI_Group_range_incl(world, 2, twice, &bad);
    int error_class;
    MPI_Error_class(code, &error_class);
    printf("repeated rank: %s, group %s\n", error_class == MPI_ERR_RANK ? "MPI_ERR_RANK" : "other",
           bad == MPI_GROUP_NULL ? "untouched" : "written");
  }
  MPI_Group_free(&world);
  MPI_Finalize();
  return 0;
}
