// The collectives on an intercommunicator (MPI-3.1 §5.2.2) between the
// even and the odd world ranks, groups of different sizes at odd -np: each
// moves one group's data to the other. Rooted ones are run with the root in
// either group (MPI_ROOT at the root, MPI_PROC_NULL at its group's other
// members, the root's remote rank in the other group); Bcast also with a
// strided vector datatype, Reduce also with a user-defined op,
// Reduce_scatter(_block) with per-group block sizes whose totals match.
// Then the nonblocking forms (MPI-3.1 §5.12) the same way, all in flight
// together, and an MPI_Comm_split of the intercommunicator.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8
#define NREQ 20

static int world_rank, color, rank, size, remote_size;

static void print_ints(const char* what, const int* values, int n) {
  char line[1024];
  int at = snprintf(line, sizeof line, "world %d: %s:", world_rank, what);
  for (int i = 0; i < n; ++i) at += snprintf(line + at, sizeof line - at, " %d", values[i]);
  printf("%s\n", line);
}

// The root argument for a rooted collective whose root is local rank
// `root` of group `root_color`.
static int root_arg(int root_color, int root) {
  if (color != root_color) return root;
  return rank == root ? MPI_ROOT : MPI_PROC_NULL;
}

static void max_plus_one(void* in, void* inout, int* len, MPI_Datatype* type) {
  int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) b[i] = (a[i] > b[i] ? a[i] : b[i]) + 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  color = world_rank % 2;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 12, &inter);
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &remote_size);

  MPI_Barrier(inter);
  printf("world %d: passed the barrier\n", world_rank);

  // Bcast from group 0's rank 0, then from group 1's last rank with a
  // vector type (every other int of 6).
  int values[64];
  for (int root_color = 0; root_color < 2; ++root_color) {
    int root = root_color == 0 ? 0 : (color == 1 ? size - 1 : remote_size - 1);
    for (int i = 0; i < 6; ++i) values[i] = color == root_color ? world_rank * 10 + i : -1;
    if (root_color == 0) {
      MPI_Bcast(values, 6, MPI_INT, root_arg(0, root), inter);
    } else {
      MPI_Datatype every_other;
      MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
      MPI_Type_commit(&every_other);
      MPI_Bcast(values, 1, every_other, root_arg(1, root), inter);
      MPI_Type_free(&every_other);
    }
    print_ints(root_color == 0 ? "bcast from group 0" : "vector bcast from group 1", values, 6);
  }

  // Reduce to group 1's rank 0 (sum), then to group 0's rank 0 (user op).
  MPI_Op op;
  MPI_Op_create(max_plus_one, 1, &op);
  for (int root_color = 0; root_color < 2; ++root_color) {
    int send[3] = {world_rank, world_rank * 2 + 1, 7 - world_rank};
    int recv[3] = {-1, -1, -1};
    MPI_Reduce(send, recv, 3, MPI_INT, root_color == 1 ? MPI_SUM : op, root_arg(root_color, 0),
               inter);
    print_ints(root_color == 1 ? "reduce sum at group 1" : "reduce user op at group 0", recv, 3);
  }
  MPI_Op_free(&op);

  {
    int send[2] = {world_rank + 1, 100 - world_rank};
    int recv[2];
    MPI_Allreduce(send, recv, 2, MPI_INT, MPI_SUM, inter);
    print_ints("allreduce sum", recv, 2);
    double d = world_rank * 1.5, dmax;
    MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, inter);
    printf("world %d: allreduce max %.1f\n", world_rank, dmax);
  }

  // Gather and Gatherv to group 0's rank 0.
  {
    int send[2] = {world_rank, world_rank * world_rank};
    int recv[2 * MAXP];
    memset(recv, 0xff, sizeof recv);
    MPI_Gather(send, 2, MPI_INT, recv, 2, MPI_INT, root_arg(0, 0), inter);
    print_ints("gather at group 0", recv, 2 * MAXP / 2);
    int counts[MAXP], displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      counts[j] = j % 2 + 1;
      displs[j] = 3 * (remote_size - 1 - j);
    }
    memset(recv, 0xff, sizeof recv);
    MPI_Gatherv(send, rank % 2 + 1, MPI_INT, recv, counts, displs, MPI_INT, root_arg(0, 0), inter);
    print_ints("gatherv at group 0", recv, 3 * remote_size);
  }

  // Scatter and Scatterv from group 1's rank 0.
  {
    int send[3 * MAXP];
    for (int i = 0; i < 3 * MAXP; ++i) send[i] = world_rank * 100 + i;
    int recv[3] = {-1, -1, -1};
    MPI_Scatter(send, 2, MPI_INT, recv, 2, MPI_INT, root_arg(1, 0), inter);
    print_ints("scatter from group 1", recv, 3);
    int counts[MAXP], displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      counts[j] = 3 - j % 3;
      displs[j] = 3 * (remote_size - 1 - j);
    }
    recv[0] = recv[1] = recv[2] = -1;
    MPI_Scatterv(send, counts, displs, MPI_INT, recv, 3 - rank % 3, MPI_INT, root_arg(1, 0), inter);
    print_ints("scatterv from group 1", recv, 3);
  }

  // Allgather, Allgatherv.
  {
    int send[2] = {world_rank, -world_rank};
    int recv[2 * MAXP];
    MPI_Allgather(send, 2, MPI_INT, recv, 2, MPI_INT, inter);
    print_ints("allgather", recv, 2 * remote_size);
    int counts[MAXP], displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      counts[j] = j % 2 + 1;
      displs[j] = 2 * (remote_size - 1 - j);
    }
    memset(recv, 0xff, sizeof recv);
    MPI_Allgatherv(send, rank % 2 + 1, MPI_INT, recv, counts, displs, MPI_INT, inter);
    print_ints("allgatherv", recv, 2 * remote_size);
  }

  // Alltoall, Alltoallv: rank r sends remote j r + j + 1 ints.
  {
    int send[4 * MAXP], recv[4 * MAXP];
    for (int i = 0; i < 4 * MAXP; ++i) send[i] = world_rank * 100 + i;
    MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, inter);
    print_ints("alltoall", recv, 2 * remote_size);
    int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
    int at = 0;
    for (int j = remote_size - 1; j >= 0; --j) {
      scounts[j] = rank + j + 1;
      sdispls[j] = at;
      at += scounts[j];
    }
    at = 0;
    for (int j = 0; j < remote_size; ++j) {
      rcounts[j] = rank + j + 1;
      rdispls[j] = at;
      at += rcounts[j];
    }
    memset(recv, 0xff, sizeof recv);
    MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, inter);
    print_ints("alltoallv", recv, at);
  }

  // Reduce_scatter_block and Reduce_scatter: the vector of each group is
  // 2 * size * remote_size ints long, split into this group's blocks.
  {
    int total = 2 * size * remote_size;
    int send[2 * MAXP * MAXP], recv[2 * MAXP * MAXP];
    for (int i = 0; i < total; ++i) send[i] = world_rank * 3 + i;
    int block = total / size;
    memset(recv, 0xff, sizeof recv);
    MPI_Reduce_scatter_block(send, recv, block, MPI_INT, MPI_SUM, inter);
    print_ints("reduce_scatter_block", recv, block);
    int counts[MAXP];
    for (int i = 0; i < size; ++i) counts[i] = block;
    if (size > 1) {
      counts[0] += 1;
      counts[size - 1] -= 1;
    }
    memset(recv, 0xff, sizeof recv);
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_MAX, inter);
    print_ints("reduce_scatter", recv, counts[rank]);
  }

  // The nonblocking forms, all started before any is waited for, in one
  // order on every member, so they are in flight together; then
  // MPI_Waitall completes them. Then the blocking MPI_Alltoallw, which runs
  // as its nonblocking form.
  {
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Op op;
    MPI_Op_create(max_plus_one, 1, &op);

    MPI_Request requests[NREQ];
    int n = 0;
    MPI_Ibarrier(inter, &requests[n++]);

    // Ibcast from group 0's rank 0, then from group 1's last rank with a
    // vector type (every other int of 6).
    int bcast0[6], bcast1[6];
    int last1 = color == 1 ? size - 1 : remote_size - 1;
    for (int i = 0; i < 6; ++i) {
      bcast0[i] = color == 0 ? world_rank * 10 + i : -1;
      bcast1[i] = color == 1 ? world_rank * 10 + i : -1;
    }
    MPI_Ibcast(bcast0, 6, MPI_INT, root_arg(0, 0), inter, &requests[n++]);
    MPI_Ibcast(bcast1, 1, every_other, root_arg(1, last1), inter, &requests[n++]);

    // Ireduce to group 1's rank 0 (sum), then to group 0's rank 0 (user op).
    int reduce_send[3] = {world_rank, world_rank * 2 + 1, 7 - world_rank};
    int reduce_sum[3] = {-1, -1, -1}, reduce_user[3] = {-1, -1, -1};
    MPI_Ireduce(reduce_send, reduce_sum, 3, MPI_INT, MPI_SUM, root_arg(1, 0), inter,
                &requests[n++]);
    MPI_Ireduce(reduce_send, reduce_user, 3, MPI_INT, op, root_arg(0, 0), inter, &requests[n++]);

    int allreduce_send[2] = {world_rank + 1, 100 - world_rank}, allreduce_recv[2];
    MPI_Iallreduce(allreduce_send, allreduce_recv, 2, MPI_INT, MPI_SUM, inter, &requests[n++]);

    // Igather and Igatherv to group 0's rank 0.
    int gather_send[2] = {world_rank, world_rank * world_rank};
    int gather_recv[2 * MAXP], gatherv_recv[3 * MAXP];
    memset(gather_recv, 0xff, sizeof gather_recv);
    memset(gatherv_recv, 0xff, sizeof gatherv_recv);
    int gv_counts[MAXP], gv_displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      gv_counts[j] = j % 2 + 1;
      gv_displs[j] = 3 * (remote_size - 1 - j);
    }
    MPI_Igather(gather_send, 2, MPI_INT, gather_recv, 2, MPI_INT, root_arg(0, 0), inter,
                &requests[n++]);
    MPI_Igatherv(gather_send, rank % 2 + 1, MPI_INT, gatherv_recv, gv_counts, gv_displs, MPI_INT,
                 root_arg(0, 0), inter, &requests[n++]);

    // Iscatter and Iscatterv from group 1's rank 0.
    int scatter_send[3 * MAXP];
    for (int i = 0; i < 3 * MAXP; ++i) scatter_send[i] = world_rank * 100 + i;
    int scatter_recv[3] = {-1, -1, -1}, scatterv_recv[3] = {-1, -1, -1};
    int sv_counts[MAXP], sv_displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      sv_counts[j] = 3 - j % 3;
      sv_displs[j] = 3 * (remote_size - 1 - j);
    }
    MPI_Iscatter(scatter_send, 2, MPI_INT, scatter_recv, 2, MPI_INT, root_arg(1, 0), inter,
                 &requests[n++]);
    MPI_Iscatterv(scatter_send, sv_counts, sv_displs, MPI_INT, scatterv_recv, 3 - rank % 3, MPI_INT,
                  root_arg(1, 0), inter, &requests[n++]);

    // Iallgather, Iallgatherv.
    int allgather_send[2] = {world_rank, -world_rank};
    int allgather_recv[2 * MAXP], allgatherv_recv[2 * MAXP];
    memset(allgatherv_recv, 0xff, sizeof allgatherv_recv);
    int agv_counts[MAXP], agv_displs[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      agv_counts[j] = j % 2 + 1;
      agv_displs[j] = 2 * (remote_size - 1 - j);
    }
    MPI_Iallgather(allgather_send, 2, MPI_INT, allgather_recv, 2, MPI_INT, inter, &requests[n++]);
    MPI_Iallgatherv(allgather_send, rank % 2 + 1, MPI_INT, allgatherv_recv, agv_counts, agv_displs,
                    MPI_INT, inter, &requests[n++]);

    // Ialltoall, Ialltoallv (block j of the send buffer goes to remote rank j).
    int a2a_send[2 * MAXP], a2a_recv[2 * MAXP], a2av_recv[3 * MAXP];
    for (int j = 0; j < 2 * MAXP; ++j) a2a_send[j] = world_rank * 1000 + j;
    memset(a2av_recv, 0xff, sizeof a2av_recv);
    int a2av_scounts[MAXP], a2av_sdispls[MAXP], a2av_rcounts[MAXP], a2av_rdispls[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      a2av_scounts[j] = rank % 2 + 1;  // what remote rank j expects from me
      a2av_sdispls[j] = j;
      a2av_rcounts[j] = j % 2 + 1;  // what remote rank j sends me
      a2av_rdispls[j] = 3 * (remote_size - 1 - j);
    }
    MPI_Ialltoall(a2a_send, 2, MPI_INT, a2a_recv, 2, MPI_INT, inter, &requests[n++]);
    MPI_Ialltoallv(a2a_send, a2av_scounts, a2av_sdispls, MPI_INT, a2av_recv, a2av_rcounts,
                   a2av_rdispls, MPI_INT, inter, &requests[n++]);

    // Ialltoallw: one int to each remote rank, at byte displacements, in
    // reverse order on receipt.
    int a2aw_recv[MAXP];
    int w_counts[MAXP], w_sdispls[MAXP], w_rdispls[MAXP];
    MPI_Datatype w_types[MAXP];
    for (int j = 0; j < remote_size; ++j) {
      w_counts[j] = 1;
      w_sdispls[j] = (int)sizeof(int) * (2 * j + 1);
      w_rdispls[j] = (int)sizeof(int) * (remote_size - 1 - j);
      w_types[j] = MPI_INT;
    }
    MPI_Ialltoallw(a2a_send, w_counts, w_sdispls, w_types, a2aw_recv, w_counts, w_rdispls, w_types,
                   inter, &requests[n++]);

    // Ireduce_scatter_block: one int per member of the receiving group, and
    // the totals of the two groups must match, so both use 2 * 2 = 4 ints
    // split as the receiving group's sizes dictate; -np 2 and 4 have equal
    // groups.
    int rs_send[2 * MAXP];
    for (int i = 0; i < 2 * MAXP; ++i) rs_send[i] = world_rank * 3 + i;
    int rsb_recv[2] = {-1, -1};
    if (size == remote_size)
      MPI_Ireduce_scatter_block(rs_send, rsb_recv, 2, MPI_INT, MPI_SUM, inter, &requests[n++]);
    // Ireduce_scatter: the total is 6 in both groups, split evenly among the
    // local group's members (sizes 1, 2 or 3 at -np 2..4 divide 6).
    int rs_counts[MAXP];
    for (int i = 0; i < size; ++i) rs_counts[i] = 6 / size;
    int rs_recv[6];
    memset(rs_recv, 0xff, sizeof rs_recv);
    MPI_Ireduce_scatter(rs_send, rs_recv, rs_counts, MPI_INT, MPI_MAX, inter, &requests[n++]);

    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    printf("world %d: passed the ibarrier\n", world_rank);
    print_ints("ibcast from group 0", bcast0, 6);
    print_ints("vector ibcast from group 1", bcast1, 6);
    print_ints("ireduce sum at group 1", reduce_sum, 3);
    print_ints("ireduce user op at group 0", reduce_user, 3);
    print_ints("iallreduce sum", allreduce_recv, 2);
    print_ints("igather at group 0", gather_recv, 2 * MAXP / 2);
    print_ints("igatherv at group 0", gatherv_recv, 3 * remote_size);
    print_ints("iscatter from group 1", scatter_recv, 3);
    print_ints("iscatterv from group 1", scatterv_recv, 3);
    print_ints("iallgather", allgather_recv, 2 * remote_size);
    print_ints("iallgatherv", allgatherv_recv, 2 * remote_size);
    print_ints("ialltoall", a2a_recv, 2 * remote_size);
    print_ints("ialltoallv", a2av_recv, 3 * remote_size);
    print_ints("ialltoallw", a2aw_recv, remote_size);
    if (size == remote_size) print_ints("ireduce_scatter_block", rsb_recv, 2);
    print_ints("ireduce_scatter max", rs_recv, 6 / size);

    // The blocking MPI_Alltoallw on the intercommunicator.
    memset(a2aw_recv, 0xff, sizeof a2aw_recv);
    MPI_Alltoallw(a2a_send, w_counts, w_sdispls, w_types, a2aw_recv, w_counts, w_rdispls, w_types,
                  inter);
    print_ints("alltoallw", a2aw_recv, remote_size);

    MPI_Op_free(&op);
    MPI_Type_free(&every_other);
  }

  // MPI_Comm_split of the intercommunicator: world ranks below 2 on one
  // side, the others on another; the color only one group chose (3, taken
  // by world rank 3 alone, so never by both) gives MPI_COMM_NULL.
  {
    int split_color = world_rank == 3 ? 3 : world_rank < 2 ? 0 : 1;
    MPI_Comm split;
    MPI_Comm_split(inter, split_color, -world_rank, &split);
    if (split == MPI_COMM_NULL) {
      printf("world %d: split gives MPI_COMM_NULL\n", world_rank);
    } else {
      int split_rank, split_size, split_remote, sum;
      MPI_Comm_rank(split, &split_rank);
      MPI_Comm_size(split, &split_size);
      MPI_Comm_remote_size(split, &split_remote);
      MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, split);
      printf("world %d: split color %d: rank %d of %d, remote %d, remote world-rank sum %d\n",
             world_rank, split_color, split_rank, split_size, split_remote, sum);
      MPI_Comm_free(&split);
    }
  }

  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
