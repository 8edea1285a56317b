// MPI_Intercomm_merge: with `high` differing between the groups the low
// group's members come first, in local order; with equal `high` either
// group may come first, so only what MPI fixes is printed (each group
// contiguous and in local order). The merged communicators run
// collectives, and a merge of a merge's result's split works too. The
// intercommunicator here has its last members as leaders, found through
// a peer communicator other than MPI_COMM_WORLD (a duplicate of it).
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>

#define MAXP 8

static int world_rank, world_size;

static void report(const char* what, MPI_Comm merged) {
  int rank, size, sum, ranks[MAXP];
  MPI_Comm_rank(merged, &rank);
  MPI_Comm_size(merged, &size);
  MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, merged);
  MPI_Allgather(&world_rank, 1, MPI_INT, ranks, 1, MPI_INT, merged);
  printf("world %d: %s: rank %d of %d, sum %d, order", world_rank, what, rank, size, sum);
  for (int i = 0; i < size; ++i) printf(" %d", ranks[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int color = world_rank % 2;
  MPI_Comm local, peer, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, -world_rank, &local);  // reversed local order
  MPI_Comm_dup(MPI_COMM_WORLD, &peer);
  int local_size;
  MPI_Comm_size(local, &local_size);
  // Leaders: each group's last local rank, which is its lowest world rank
  // (0 and 1), found in peer.
  MPI_Intercomm_create(local, local_size - 1, peer, 1 - color, 3, &inter);

  MPI_Comm merged;
  MPI_Intercomm_merge(inter, color, &merged);
  report("odd high", merged);
  MPI_Comm_free(&merged);
  MPI_Intercomm_merge(inter, 1 - color, &merged);
  report("even high", merged);

  // Equal flags: print only what MPI fixes.
  MPI_Comm any;
  MPI_Intercomm_merge(inter, 0, &any);
  int size, ranks[MAXP], colors[MAXP];
  MPI_Comm_size(any, &size);
  MPI_Allgather(&world_rank, 1, MPI_INT, ranks, 1, MPI_INT, any);
  for (int i = 0; i < size; ++i) colors[i] = ranks[i] % 2;
  int changes = 0, ordered = 1;
  for (int i = 1; i < size; ++i) {
    if (colors[i] != colors[i - 1]) ++changes;
    else if (ranks[i] > ranks[i - 1]) ordered = 0;  // local order is by descending world rank
  }
  printf("world %d: equal high: size %d, groups contiguous %d, local order kept %d\n", world_rank,
         size, changes == 1, ordered);

  // A collective on the merged communicator from its last rank, and a
  // split of it.
  int value = world_rank == 0 ? 42 : -1;
  int merged_rank;
  MPI_Comm_rank(merged, &merged_rank);
  int root_rank = size - 1;
  if (merged_rank == root_rank) value = 1000 + world_rank;
  MPI_Bcast(&value, 1, MPI_INT, root_rank, merged);
  printf("world %d: bcast on merged got %d\n", world_rank, value);
  MPI_Comm half;
  MPI_Comm_split(merged, merged_rank < size / 2, merged_rank, &half);
  int half_size;
  MPI_Comm_size(half, &half_size);
  printf("world %d: half of merged has %d\n", world_rank, half_size);

  MPI_Comm_free(&half);
  MPI_Comm_free(&any);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&peer);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
