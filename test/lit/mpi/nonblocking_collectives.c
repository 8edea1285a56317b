// Every nonblocking collective, with MPI_IN_PLACE, a derived datatype and a
// user-defined op, several in flight at once on one communicator and
// completed in another order than they started, through Wait, Waitall,
// Waitany, Waitsome and Test loops. The buffers are sized for up to
// kMaxRanks ranks (at np 5 a 16-int buffer for 4 ints per rank used to
// overflow into the request array: `MPI_Waitsome: invalid request array`).
// RUN: %mpi-diff %s %t 1 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <string.h>

// Rank i contributes i + 1 ints to the v-collectives: kMaxTotal in all.
enum { kMaxRanks = 16, kMaxTotal = kMaxRanks * (kMaxRanks + 1) / 2 };

// Composition of affine maps x -> a*x + b, pairs of ints: associative,
// not commutative, so a wrong fold order shows in the result.
static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* f = in;
  int* g = inout;
  for (int i = 0; i + 1 < *len; i += 2) {
    g[i + 1] = f[i] * g[i + 1] + f[i + 1];
    g[i] = f[i] * g[i];
  }
}

static void print_ints(int rank, const char* what, const int* v, int n) {
  char line[512];
  int at = snprintf(line, sizeof line, "rank %d %s:", rank, what);
  for (int i = 0; i < n; ++i) at += snprintf(line + at, sizeof line - at, " %d", v[i]);
  puts(line);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > kMaxRanks) {
    if (rank == 0) fprintf(stderr, "at most %d ranks\n", kMaxRanks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  // Four collectives in flight, completed in reverse order.
  int bcast[4] = {0}, sum[3], mine[3] = {rank, rank * rank, -rank}, maxv;
  double prod = rank + 1.5, prodOut = 0;
  MPI_Request r[4];
  if (rank == size - 1) for (int i = 0; i < 4; ++i) bcast[i] = 100 + i;
  MPI_Ibcast(bcast, 4, MPI_INT, size - 1, comm, &r[0]);
  MPI_Iallreduce(mine, sum, 3, MPI_INT, MPI_SUM, comm, &r[1]);
  MPI_Ireduce(&rank, &maxv, 1, MPI_INT, MPI_MAX, 0, comm, &r[2]);
  MPI_Iallreduce(&prod, &prodOut, 1, MPI_DOUBLE, MPI_PROD, comm, &r[3]);
  for (int i = 3; i >= 0; --i) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
  print_ints(rank, "ibcast", bcast, 4);
  print_ints(rank, "iallreduce sum", sum, 3);
  if (rank == 0) printf("rank 0 ireduce max %d\n", maxv);
  printf("rank %d iallreduce prod %.4f\n", rank, prodOut);
  for (int i = 0; i < 4; ++i)
    if (r[i] != MPI_REQUEST_NULL) printf("rank %d request %d not freed\n", rank, i);

  // Point-to-point traffic on the same communicator while a collective is
  // in flight, with wildcard receives that must not see its messages.
  MPI_Request barrier;
  MPI_Ibarrier(comm, &barrier);
  int token = rank * 10, got = -1;
  MPI_Status status;
  MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, MPI_ANY_SOURCE,
               MPI_ANY_TAG, comm, &status);
  printf("rank %d ring got %d from %d tag %d\n", rank, got, status.MPI_SOURCE, status.MPI_TAG);
  int flag = 0;
  while (!flag) MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
  printf("rank %d ibarrier done, request null %d\n", rank, barrier == MPI_REQUEST_NULL);

  // Gathers and scatters, plain and v, one with MPI_IN_PLACE at the root.
  int root = size / 2;
  int gathered[kMaxTotal], counts[kMaxRanks], displs[kMaxRanks], total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = i + 1;
    displs[i] = total;
    total += i + 1;
  }
  int contribution[kMaxRanks];
  for (int i = 0; i <= rank; ++i) contribution[i] = rank * 100 + i;
  MPI_Request g[4];
  int plain[kMaxRanks];
  MPI_Igather(&token, 1, MPI_INT, plain, 1, MPI_INT, root, comm, &g[0]);
  MPI_Igatherv(contribution, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, root, comm,
               &g[1]);
  int scattered[kMaxRanks] = {0}, pieces[kMaxTotal];
  for (int i = 0; i < total; ++i) pieces[i] = 1000 + i;
  MPI_Iscatterv(pieces, counts, displs, MPI_INT, scattered, rank + 1, MPI_INT, root, comm, &g[2]);
  int one = -1;
  MPI_Iscatter(pieces, 1, MPI_INT, &one, 1, MPI_INT, 0, comm, &g[3]);
  MPI_Waitall(4, g, MPI_STATUSES_IGNORE);
  if (rank == root) {
    print_ints(rank, "igather", plain, size);
    print_ints(rank, "igatherv", gathered, total);
  }
  print_ints(rank, "iscatterv", scattered, rank + 1);
  printf("rank %d iscatter %d\n", rank, one);

  int inplace[kMaxRanks];
  for (int i = 0; i < size; ++i) inplace[i] = rank == root ? -7 : 0;
  inplace[root] = 4242;
  MPI_Request ip;
  MPI_Igather(rank == root ? MPI_IN_PLACE : &token, 1, MPI_INT, inplace, 1, MPI_INT, root, comm,
              &ip);
  MPI_Wait(&ip, MPI_STATUS_IGNORE);
  if (rank == root) print_ints(rank, "igather in place", inplace, size);

  // All-to-all patterns, completed through Waitany and Waitsome.
  int all[kMaxRanks], allv[kMaxTotal], a2a_send[kMaxRanks], a2a_recv[kMaxRanks],
      inplaceAll[kMaxRanks];
  for (int i = 0; i < size; ++i) {
    a2a_send[i] = rank * 16 + i;
    inplaceAll[i] = i == rank ? rank + 500 : -1;
  }
  MPI_Request a[4];
  MPI_Iallgather(&token, 1, MPI_INT, all, 1, MPI_INT, comm, &a[0]);
  MPI_Iallgatherv(contribution, rank + 1, MPI_INT, allv, counts, displs, MPI_INT, comm, &a[1]);
  MPI_Ialltoall(a2a_send, 1, MPI_INT, a2a_recv, 1, MPI_INT, comm, &a[2]);
  MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplaceAll, 1, MPI_INT, comm, &a[3]);
  for (int done = 0; done < 4;) {
    int index;
    MPI_Waitany(4, a, &index, MPI_STATUS_IGNORE);
    if (index == MPI_UNDEFINED) break;
    ++done;
  }
  print_ints(rank, "iallgather", all, size);
  print_ints(rank, "iallgatherv", allv, total);
  print_ints(rank, "ialltoall", a2a_recv, size);
  print_ints(rank, "iallgather in place", inplaceAll, size);

  // Ialltoallv: rank i sends i+1 ints to every rank.
  int vs[kMaxRanks * kMaxRanks], vr[kMaxTotal], scounts[kMaxRanks], sdispls[kMaxRanks],
      rcounts[kMaxRanks], rdispls[kMaxRanks];
  for (int i = 0; i < size; ++i) {
    scounts[i] = rank + 1;
    sdispls[i] = i * (rank + 1);
    rcounts[i] = i + 1;
    rdispls[i] = displs[i];
  }
  for (int i = 0; i < size * (rank + 1); ++i) vs[i] = rank * 1000 + i;
  MPI_Request v[2];
  MPI_Ialltoallv(vs, scounts, sdispls, MPI_INT, vr, rcounts, rdispls, MPI_INT, comm, &v[0]);
  int block[4 * kMaxRanks], blockOut[4];
  for (int i = 0; i < 4 * size; ++i) block[i] = rank + i;
  MPI_Ireduce_scatter_block(block, blockOut, 4, MPI_INT, MPI_SUM, comm, &v[1]);
  int completed = 0;
  while (completed < 2) {
    int outcount, indices[2];
    MPI_Waitsome(2, v, &outcount, indices, MPI_STATUSES_IGNORE);
    completed += outcount;
  }
  print_ints(rank, "ialltoallv", vr, total);
  print_ints(rank, "ireduce_scatter_block", blockOut, 4);

  // Reduce-scatter with uneven counts, in place; scans; a user op.
  int rs[kMaxTotal], rsCounts[kMaxRanks];
  for (int i = 0; i < size; ++i) rsCounts[i] = size - i;
  int rsTotal = size * (size + 1) / 2;
  for (int i = 0; i < rsTotal; ++i) rs[i] = rank * i + 1;
  MPI_Request s[4];
  MPI_Ireduce_scatter(MPI_IN_PLACE, rs, rsCounts, MPI_INT, MPI_SUM, comm, &s[0]);
  int scan[2], scanIn[2] = {rank + 1, 2 - rank}, exscan = -99, exIn = rank + 2;
  MPI_Iscan(scanIn, scan, 2, MPI_INT, MPI_MIN, comm, &s[1]);
  MPI_Iexscan(&exIn, &exscan, 1, MPI_INT, MPI_PROD, comm, &s[2]);
  MPI_Op op;
  MPI_Op_create(compose, 0, &op);
  int affineIn[2] = {rank + 2, rank - 1}, affineOut[2] = {0, 0};
  MPI_Ireduce(affineIn, affineOut, 2, MPI_INT, op, size - 1, comm, &s[3]);
  int all_done = 0;
  while (!all_done) MPI_Testall(4, s, &all_done, MPI_STATUSES_IGNORE);
  print_ints(rank, "ireduce_scatter in place", rs, rsCounts[rank]);
  print_ints(rank, "iscan min", scan, 2);
  if (rank > 0) printf("rank %d iexscan prod %d\n", rank, exscan);
  if (rank == size - 1) print_ints(rank, "ireduce user op", affineOut, 2);
  MPI_Op_free(&op);

  // A strided column of a 4x4 matrix, broadcast and summed in place.
  MPI_Datatype column;
  MPI_Type_vector(4, 1, 4, MPI_INT, &column);
  MPI_Type_commit(&column);
  int matrix[16];
  for (int i = 0; i < 16; ++i) matrix[i] = rank == 0 ? i : -1;
  MPI_Request c[2];
  MPI_Ibcast(matrix, 1, column, 0, comm, &c[0]);
  MPI_Type_free(&column);  // still in use by the request: MPI keeps it alive
  MPI_Waitall(1, c, MPI_STATUSES_IGNORE);
  print_ints(rank, "ibcast column", matrix, 16);
  int iv[3] = {rank, 1, rank * 2};
  MPI_Iallreduce(MPI_IN_PLACE, iv, 3, MPI_INT, MPI_SUM, comm, &c[1]);
  MPI_Wait(&c[1], MPI_STATUS_IGNORE);
  print_ints(rank, "iallreduce in place", iv, 3);

  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
