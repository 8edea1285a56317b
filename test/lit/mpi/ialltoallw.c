// MPI_Ialltoallw: every pair of ranks exchanges a block whose datatype
// depends on the pair (ints, doubles, and on the receiving side a strided
// vector of ints), at byte displacements out of rank order, completed by
// MPI_Wait; then the same with MPI_IN_PLACE completed by a Test loop, and
// two in flight at once on one communicator, completed in reverse order.
// An invalid datatype in the receive types is an MPI_ERR_TYPE under
// MPI_ERRORS_RETURN, and the request is left untouched.
// RUN: %mpi-diff %s %t 2 3 4 5
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAXP 8  // ranks the buffers have room for
#define SLOT 128  // bytes per block in the buffers

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

// Rank `from` sends (rank `to` + 1) elements to `to`: doubles when
// from + to is odd, ints otherwise.
static void fill_send(unsigned char* buf, int* counts, int* displs, MPI_Datatype* types) {
  for (int to = 0; to < size; ++to) {
    int slot = (to + 1) % size;  // out of rank order
    displs[to] = slot * SLOT;
    counts[to] = to + 1;
    for (int k = 0; k <= to; ++k) {
      if ((rank + to) % 2)
        ((double*)(buf + displs[to]))[k] = rank * 100 + to * 10 + k + 0.5;
      else
        ((int*)(buf + displs[to]))[k] = rank * 100 + to * 10 + k;
    }
    types[to] = (rank + to) % 2 ? MPI_DOUBLE : MPI_INT;
  }
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

  unsigned char send[MAXP * SLOT], recv[MAXP * SLOT];
  int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
  MPI_Datatype stypes[MAXP], rtypes[MAXP];
  fill_send(send, scounts, sdispls, stypes);
  memset(recv, 0, sizeof recv);
  for (int from = 0; from < size; ++from) {
    rdispls[from] = (size - 1 - from) * SLOT;
    if ((from + rank) % 2) {
      rcounts[from] = rank + 1;
      rtypes[from] = MPI_DOUBLE;
    } else {
      rcounts[from] = 1;
      rtypes[from] = strided;
    }
  }
  MPI_Request request;
  MPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, MPI_COMM_WORLD,
                 &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int from = 0; from < size; ++from)
    print_block("waited", from, recv + rdispls[from], (from + rank) % 2, rank + 1,
                (from + rank) % 2 ? 1 : 2);

  // In place: each block is sent from, and received into, the same place,
  // so the pair (i, j) exchanges i + j + 1 elements of the pair's type.
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
  int flag = 0;
  MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, both, counts, displs, types, MPI_COMM_WORLD,
                 &request);
  while (!flag) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  for (int from = 0; from < size; ++from)
    print_block("in place", from, both + displs[from], (from + rank) % 2, counts[from], 1);

  // Two in flight, completed in reverse order.
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
  MPI_Request two[2];
  MPI_Ialltoallw(a_send, ones, offsets, ints, a_recv, ones, offsets, ints, MPI_COMM_WORLD, &two[0]);
  MPI_Ialltoallw(b_send, ones, offsets, ints, b_recv, ones, offsets, ints, MPI_COMM_WORLD, &two[1]);
  MPI_Wait(&two[1], MPI_STATUS_IGNORE);
  MPI_Wait(&two[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < size; ++i) printf("rank %d pair from %d: %d %d\n", rank, i, a_recv[i], b_recv[i]);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ints[size - 1] = MPI_DATATYPE_NULL;
  request = MPI_REQUEST_NULL;
  int error = MPI_Ialltoallw(a_send, ones, offsets, ints, a_recv, ones, offsets, ints,
                             MPI_COMM_WORLD, &request);
  int error_class;
  MPI_Error_class(error, &error_class);
  printf("rank %d: invalid datatype gives MPI_ERR_TYPE %d, request untouched %d\n", rank,
         error_class == MPI_ERR_TYPE, request == MPI_REQUEST_NULL);

  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
