// Blocking MPI_Alltoallw: every pair of ranks exchanges a block whose
// datatype depends on the pair (ints or doubles sent, a strided vector of
// ints received), at byte displacements out of rank order; then in place;
// then interleaved with an MPI_Ialltoallw started before it and completed
// after it, on the same communicator. An invalid datatype is MPI_ERR_TYPE
// under MPI_ERRORS_RETURN and moves nothing.
// RUN: %mpi-diff %s %t 1 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8  // ranks the buffers have room for
#define SLOT 128

static int rank, size;

static void print_block(const char* what, int from, const unsigned char* block, int doubles,
                        int n, int stride) {
  char line[512];
  int at = snprintf(line, sizeof line, "rank %d %s from %d:", rank, what, from);
  for (int k = 0; k < n; ++k) {
    if (doubles)
      at += snprintf(line + at, sizeof line - at, " %.1f", ((const double*)block)[k]);
    else
      at += snprintf(line + at, sizeof line - at, " %d", ((const int*)block)[k * stride]);
  }
  puts(line);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > MAXP) {  // the arrays below hold MAXP ranks
    if (rank == 0) printf("run at most %d ranks\n", MAXP);
    MPI_Finalize();
    return 0;
  }
  MPI_Datatype strided;  // rank + 1 ints, every other one
  MPI_Type_vector(rank + 1, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);

  // Rank `from` sends rank `to` (to + 1) elements: doubles when from + to
  // is odd, ints otherwise.
  unsigned char send[MAXP * SLOT], recv[MAXP * SLOT];
  int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
  MPI_Datatype stypes[MAXP], rtypes[MAXP];
  for (int to = 0; to < size; ++to) {
    sdispls[to] = ((to + 1) % size) * SLOT;
    scounts[to] = to + 1;
    stypes[to] = (rank + to) % 2 ? MPI_DOUBLE : MPI_INT;
    for (int k = 0; k <= to; ++k) {
      if ((rank + to) % 2)
        ((double*)(send + sdispls[to]))[k] = rank * 100 + to * 10 + k + 0.5;
      else
        ((int*)(send + sdispls[to]))[k] = rank * 100 + to * 10 + k;
    }
  }
  memset(recv, 0, sizeof recv);
  for (int from = 0; from < size; ++from) {
    rdispls[from] = (size - 1 - from) * SLOT;
    rcounts[from] = (from + rank) % 2 ? rank + 1 : 1;
    rtypes[from] = (from + rank) % 2 ? MPI_DOUBLE : strided;
  }
  MPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  for (int from = 0; from < size; ++from)
    print_block("blocking", from, recv + rdispls[from], (from + rank) % 2, rank + 1,
                (from + rank) % 2 ? 1 : 2);

  // In place: the pair (i, j) exchanges i + j + 1 elements of its type.
  unsigned char both[MAXP * SLOT];
  int counts[MAXP], displs[MAXP];
  MPI_Datatype types[MAXP];
  for (int peer = 0; peer < size; ++peer) {
    displs[peer] = ((peer + 1) % size) * SLOT;
    counts[peer] = rank + peer + 1;
    types[peer] = (rank + peer) % 2 ? MPI_DOUBLE : MPI_INT;
    for (int k = 0; k < counts[peer]; ++k) {
      if ((rank + peer) % 2)
        ((double*)(both + displs[peer]))[k] = rank * 100 + peer * 10 + k + 0.5;
      else
        ((int*)(both + displs[peer]))[k] = rank * 100 + peer * 10 + k;
    }
  }
  MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, both, counts, displs, types, MPI_COMM_WORLD);
  for (int from = 0; from < size; ++from)
    print_block("in place", from, both + displs[from], (from + rank) % 2, counts[from], 1);

  // A nonblocking one in flight around a blocking one.
  int a_send[MAXP], a_recv[MAXP], b_send[MAXP], b_recv[MAXP];
  int ones[MAXP], offsets[MAXP];
  MPI_Datatype ints[MAXP];
  for (int i = 0; i < size; ++i) {
    a_send[i] = rank * 10 + i;
    b_send[i] = -(rank * 10 + i);
    ones[i] = 1;
    offsets[i] = (int)(i * sizeof(int));
    ints[i] = MPI_INT;
  }
  MPI_Request request;
  MPI_Ialltoallw(a_send, ones, offsets, ints, a_recv, ones, offsets, ints, MPI_COMM_WORLD, &request);
  MPI_Alltoallw(b_send, ones, offsets, ints, b_recv, ones, offsets, ints, MPI_COMM_WORLD);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int i = 0; i < size; ++i) printf("rank %d pair from %d: %d %d\n", rank, i, a_recv[i], b_recv[i]);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ints[size - 1] = MPI_DATATYPE_NULL;
  for (int i = 0; i < size; ++i) a_recv[i] = -7;
  int error = MPI_Alltoallw(a_send, ones, offsets, ints, a_recv, ones, offsets, ints, MPI_COMM_WORLD);
  int error_class;
  MPI_Error_class(error, &error_class);
  printf("rank %d: invalid datatype gives MPI_ERR_TYPE %d, received nothing %d\n", rank,
         error_class == MPI_ERR_TYPE, a_recv[0] == -7);

  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
