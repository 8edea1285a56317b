// MPI_Comm_create on an intercommunicator (MPI-4.0 §7.4.2) between the even
// and the odd world ranks: each group names a subset of its own members,
// in an order of its choosing, and those of both groups form a new
// intercommunicator, which an MPI_Allreduce and an MPI_Bcast then use; the
// members left out get MPI_COMM_NULL, as everyone does when one group
// names nobody. Then MPI_Comm_idup_with_info of the intercommunicator and
// of MPI_COMM_WORLD.
// With the argument "reversed" the odd group names all its members in
// reverse order, which OpenMPI 4.1 hangs on at -np 4, so that run is
// checked against the expected lines instead.
// RUN: %mpi-diff %s %t 2 3 4 5
// RUN: %synergy-run -np 4 %t/granule.wasm reversed | FileCheck %s --check-prefix=REVERSED
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
// OpenMPI 4 predates MPI-4.0's MPI_Comm_idup_with_info; the hints given
// below change nothing, so its MPI_Comm_idup is the reference.
#define MPI_Comm_idup_with_info(comm, info, newcomm, request) MPI_Comm_idup(comm, newcomm, request)
#endif

static int world_rank;

static void describe(const char* what, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) {
    printf("world %d: %s: MPI_COMM_NULL\n", world_rank, what);
    return;
  }
  int rank, size, remote_size, inter;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm_test_inter(comm, &inter);
  remote_size = 0;
  if (inter) MPI_Comm_remote_size(comm, &remote_size);
  // Every member's world rank, summed over the remote group.
  int sum = -1;
  MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, comm);
  // The remote group's rank 0 broadcasts its world rank.
  int root_world = world_rank;
  if (inter) {
    int color = world_rank % 2;
    int root = color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&root_world, 1, MPI_INT, root, comm);
    if (color == 0) root_world = -1;
  }
  printf("world %d: %s: rank %d of %d, remote %d, inter %d, sum %d, bcast %d\n", world_rank,
         what, rank, size, remote_size, inter, sum, root_world);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int color = world_rank % 2;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
  int local_size;
  MPI_Comm_size(local, &local_size);
  MPI_Group local_group;
  MPI_Comm_group(inter, &local_group);

  // The even group keeps every member but its last, the odd group every
  // member but its first (or, "reversed", all of them in reverse order).
  int reversed = argc > 1 && !strcmp(argv[1], "reversed");
  int ranks[16], n = 0;
  if (color == 0) {
    int keep = local_size > 1 ? local_size - 1 : 1;
    for (int i = 0; i < keep; ++i) ranks[n++] = i;
  } else if (reversed) {
    for (int i = local_size - 1; i >= 0; --i) ranks[n++] = i;
  } else {
    for (int i = local_size > 1 ? 1 : 0; i < local_size; ++i) ranks[n++] = i;
  }
  MPI_Group chosen;
  MPI_Group_incl(local_group, n, ranks, &chosen);
  MPI_Comm subset;
  MPI_Comm_create(inter, chosen, &subset);
  describe("subsets", subset);
  if (subset != MPI_COMM_NULL) MPI_Comm_free(&subset);
  MPI_Group_free(&chosen);

  // The odd group names nobody: nobody gets a communicator.
  MPI_Comm none;
  MPI_Comm_create(inter, color == 0 ? local_group : MPI_GROUP_EMPTY, &none);
  describe("odd group empty", none);

  // The whole of both groups.
  MPI_Comm whole;
  MPI_Comm_create(inter, local_group, &whole);
  describe("both whole", whole);
  MPI_Comm_free(&whole);

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
  MPI_Comm idup_inter, idup_world;
  MPI_Request requests[2];
  MPI_Comm_idup_with_info(inter, info, &idup_inter, &requests[0]);
  MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &idup_world, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  describe("idup_with_info of the intercommunicator", idup_inter);
  describe("idup_with_info of MPI_COMM_WORLD", idup_world);
  MPI_Info_free(&info);

  MPI_Comm_free(&idup_inter);
  MPI_Comm_free(&idup_world);
  MPI_Group_free(&local_group);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
// World 0 alone on the even side; on the odd side world 3 is rank 0.
// REVERSED-DAG: world 0: subsets: rank 0 of 1, remote 2, inter 1, sum 4, bcast -1
// REVERSED-DAG: world 1: subsets: rank 1 of 2, remote 1, inter 1, sum 0, bcast 0
// REVERSED-DAG: world 2: subsets: MPI_COMM_NULL
// REVERSED-DAG: world 3: subsets: rank 0 of 2, remote 1, inter 1, sum 0, bcast 0
