// The neighbourhood collectives, blocking and nonblocking, against OpenMPI:
// on a 2-d Cartesian grid periodic in one dimension only (a MPI_PROC_NULL
// neighbour leaves its receive block untouched: it keeps its -1 fill), on
// a 1-d periodic ring (one or two members see the same neighbour on both
// sides), on a weighted distributed graph with a repeated edge and a self
// loop, and on an MPI_Graph_create graph. Every form: allgather(v),
// alltoall(v,w), and the MPI_Ineighbor_* of each.
//
// Where a periodic dimension has one or two members, the neighbour below
// and the one above are the same process, and two messages go each way
// between the pair. MPI (4.0, 7.6) says the block sent upward lands in the
// receiver's block from below; OpenMPI 4.1.4's blocking forms and ours do
// that, but its nonblocking forms (libnbc) pair the messages the other way
// round, so there the nonblocking forms are left out.
// RUN: %mpi-diff %s %t 1 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXN 8

static int rank, size;

static void show(const char* what, const int* buf, int n) {
  printf("%d %s:", rank, what);
  for (int i = 0; i < n; ++i) printf(" %d", buf[i]);
  printf("\n");
}

// Every form on `comm`, whose caller has `in` in- and `out` out-neighbours.
// `nonblocking` says whether to run the MPI_Ineighbor_* forms too.
static void exercise(const char* name, MPI_Comm comm, int in, int out, int nonblocking) {
  int send[MAXN * 2], recv[MAXN * 2], counts[MAXN], displs[MAXN], scounts[MAXN], sdispls[MAXN];
  MPI_Aint sbytes[MAXN], rbytes[MAXN];
  MPI_Datatype types[MAXN];
  char what[64];
  MPI_Request request;

  for (int i = 0; i < MAXN * 2; ++i) send[i] = 100 * rank + i;
  memset(recv, 0xff, sizeof recv);
  MPI_Neighbor_allgather(send, 1, MPI_INT, recv, 1, MPI_INT, comm);
  snprintf(what, sizeof what, "%s allgather", name);
  show(what, recv, in);

  if (nonblocking) {
    memset(recv, 0xff, sizeof recv);
    MPI_Ineighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%s iallgather", name);
    show(what, recv, 2 * in);
  }

  // Block i of the receive buffer holds 1 + i % 2 ints, placed backwards.
  int offset = 0;
  for (int i = in - 1; i >= 0; --i) {
    counts[i] = 1;
    displs[i] = offset;
    offset += 2;
  }
  memset(recv, 0xff, sizeof recv);
  MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, comm);
  snprintf(what, sizeof what, "%s allgatherv", name);
  show(what, recv, 2 * in);
  if (nonblocking) {
    memset(recv, 0xff, sizeof recv);
    MPI_Ineighbor_allgatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%s iallgatherv", name);
    show(what, recv, 2 * in);
  }

  memset(recv, 0xff, sizeof recv);
  MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, comm);
  snprintf(what, sizeof what, "%s alltoall", name);
  show(what, recv, in);
  if (nonblocking) {
    memset(recv, 0xff, sizeof recv);
    MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%s ialltoall", name);
    show(what, recv, 2 * in);
  }

  // Out-block j is one int at 2 * j + 1; in-block i lands at in - 1 - i.
  for (int j = 0; j < out; ++j) {
    scounts[j] = 1;
    sdispls[j] = 2 * j + 1;
    sbytes[j] = sdispls[j] * (MPI_Aint)sizeof(int);
    types[j] = MPI_INT;
  }
  for (int i = 0; i < in; ++i) {
    counts[i] = 1;
    displs[i] = in - 1 - i;
    rbytes[i] = displs[i] * (MPI_Aint)sizeof(int);
  }
  memset(recv, 0xff, sizeof recv);
  MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, counts, displs, MPI_INT, comm);
  snprintf(what, sizeof what, "%s alltoallv", name);
  show(what, recv, in);
  if (nonblocking) {
    memset(recv, 0xff, sizeof recv);
    MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, counts, displs, MPI_INT, comm,
                            &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%s ialltoallv", name);
    show(what, recv, in);
  }

  memset(recv, 0xff, sizeof recv);
  MPI_Neighbor_alltoallw(send, scounts, sbytes, types, recv, counts, rbytes, types, comm);
  snprintf(what, sizeof what, "%s alltoallw", name);
  show(what, recv, in);
  if (nonblocking) {
    memset(recv, 0xff, sizeof recv);
    MPI_Ineighbor_alltoallw(send, scounts, sbytes, types, recv, counts, rbytes, types, comm,
                            &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%s ialltoallw", name);
    show(what, recv, in);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // A grid with 2 rows when it can have them, periodic along the rows only.
  int dims[2] = {size % 2 == 0 ? 2 : 1, 0}, periods[2] = {0, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
  exercise("cart", grid, 4, 4, dims[1] > 2);
  MPI_Comm_free(&grid);

  int ring_period = 1;
  MPI_Comm ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &ring_period, 0, &ring);
  exercise("ring", ring, 2, 2, size > 2);
  MPI_Comm_free(&ring);

  // Each rank sends to rank + 1 twice (weights 1 and 2) and to itself
  // (weight 7); rank + 1 names its two edges from here in the same order.
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int sources[3] = {prev, prev, rank}, sweights[3] = {1, 2, 7};
  int dests[3] = {next, next, rank}, dweights[3] = {1, 2, 7};
  MPI_Comm dist;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, sources, sweights, 3, dests, dweights,
                                 MPI_INFO_NULL, 0, &dist);
  exercise("distgraph", dist, 3, 3, 1);
  MPI_Comm_free(&dist);

  // A star: node 0 is joined to every other node.
  int index[MAXN], edges[2 * MAXN], nedges = 0;
  for (int node = 0; node < size; ++node) {
    if (node == 0)
      for (int other = 1; other < size; ++other) edges[nedges++] = other;
    else
      edges[nedges++] = 0;
    index[node] = nedges;
  }
  MPI_Comm star;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &star);
  int degree = rank == 0 ? size - 1 : 1;
  exercise("graph", star, degree, degree, 1);
  MPI_Comm_free(&star);

  MPI_Finalize();
  return 0;
}
