// The collectives on an intercommunicator (MPI-3.1 §5.2.2) between the
// even and the odd world ranks, groups of different sizes at odd -np: each
// moves one group's data to the other. Rooted ones are run with the root in
// either group (MPI_ROOT at the root, MPI_PROC_NULL at its group's other
// members, the root's remote rank in the other group); Bcast also with a
// strided vector datatype, Reduce also with a user-defined op,
// Reduce_scatter(_block) with per-group block sizes whose totals match;
// then an MPI_Comm_split of the intercommunicator.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8

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
