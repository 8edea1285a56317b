// Groups: MPI_Comm_group, Group_incl/excl/rank/size/translate_ranks/compare,
// and MPI_Comm_create over a group in reversed order.
// RUN: %mpi-diff %s %t 1 2 3 4 8
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, evens, odds;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = (size + 1) / 2;
  int* ranks = malloc(sizeof(int) * size);
  for (int i = 0; i < n; ++i) ranks[i] = 2 * (n - 1 - i);
  MPI_Group_incl(world, n, ranks, &evens);
  MPI_Group_excl(world, n, ranks, &odds);
  int gsize, grank, osize, orank;
  MPI_Group_size(evens, &gsize);
  MPI_Group_rank(evens, &grank);
  MPI_Group_size(odds, &osize);
  MPI_Group_rank(odds, &orank);
  printf("rank %d evens %d/%d odds %d/%d\n", rank, grank == MPI_UNDEFINED ? -1 : grank, gsize,
         orank == MPI_UNDEFINED ? -1 : orank, osize);
  int in[3] = {0, 1, 2}, out[3];
  int count = n < 3 ? n : 3;
  MPI_Group_translate_ranks(evens, count, in, world, out);
  if (rank == 0) {
    printf("translated:");
    for (int i = 0; i < count; ++i) printf(" %d", out[i]);
    printf("\n");
  }
  int cmp;
  MPI_Group_compare(world, world, &cmp);
  if (rank == 0) printf("world vs world ident %d\n", cmp == MPI_IDENT);
  // The even ranks again, ascending: the same set in another order.
  MPI_Group ascending;
  for (int i = 0; i < n; ++i) ranks[i] = 2 * i;
  MPI_Group_incl(world, n, ranks, &ascending);
  MPI_Group_compare(evens, ascending, &cmp);
  if (rank == 0)
    printf("evens vs ascending similar %d ident %d\n", cmp == MPI_SIMILAR, cmp == MPI_IDENT);
  MPI_Group_compare(evens, world, &cmp);
  if (rank == 0) printf("evens vs world unequal %d\n", cmp == MPI_UNEQUAL);
  MPI_Group_free(&ascending);
  MPI_Comm evenComm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &evenComm);
  if (evenComm != MPI_COMM_NULL) {
    int r, s, total;
    MPI_Comm_rank(evenComm, &r);
    MPI_Comm_size(evenComm, &s);
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, evenComm);
    printf("rank %d even comm rank %d of %d total %d\n", rank, r, s, total);
    MPI_Comm_free(&evenComm);
  } else {
    printf("rank %d not in even comm\n", rank);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&world);
  free(ranks);
  MPI_Finalize();
  return 0;
}
