// MPI_Cancel and MPI_Test_cancelled (MPI-3.1 section 3.8.4): either the
// cancellation succeeds or the operation completes, not both.
//  - A receive nothing matches is cancelled: its Wait returns and
//    MPI_Test_cancelled says so; a later message with its tag goes to the
//    next receive.
//  - A receive whose message has come completes instead, with the data.
//  - A large (rendezvous) send cancelled before the receiver posts a
//    receive: the receiver posts one only after the cancel, and learns from
//    the sender whether the send was cancelled; then its receive either
//    completes with the whole message or, cancelled itself, stays empty.
//    Either outcome is printed as the same line; a send both cancelled and
//    received prints another.
//  - Cancelling MPI_REQUEST_NULL is an error (MPI_ERR_REQUEST).
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LARGE 100000  // ints: far past any eager limit

static void unmatched_receive(int rank, int size) {
  int value = -1;
  MPI_Request request;
  MPI_Status status;
  int from = (rank + 1) % size, to = (rank + size - 1) % size;
  MPI_Irecv(&value, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, &status);
  int cancelled;
  MPI_Test_cancelled(&status, &cancelled);
  // Once every rank has cancelled, a message tagged 7 goes to the next
  // receive, not the cancelled one.
  MPI_Barrier(MPI_COMM_WORLD);
  int sent = 100 + rank, next = -1;
  MPI_Sendrecv(&sent, 1, MPI_INT, to, 7, &next, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &status);
  printf("rank %d: unmatched receive cancelled %d, request null %d, buffer untouched %d, "
         "next receive got %d\n",
         rank, cancelled, request == MPI_REQUEST_NULL, value == -1, next);
}

static void matched_receive(int rank, int size) {
  int from = (rank + 1) % size, to = (rank + size - 1) % size;
  int sent = 200 + rank, value = -1;
  MPI_Send(&sent, 1, MPI_INT, to, 8, MPI_COMM_WORLD);
  MPI_Status status;
  MPI_Probe(from, 8, MPI_COMM_WORLD, &status);  // it has arrived
  MPI_Request request;
  MPI_Irecv(&value, 1, MPI_INT, from, 8, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, &status);
  int cancelled;
  MPI_Test_cancelled(&status, &cancelled);
  printf("rank %d: matched receive cancelled %d, got %d\n", rank, cancelled, value);
}

static void large_send(int rank) {
  int* data = malloc(LARGE * sizeof(int));
  int verdict;
  if (rank == 0) {
    for (int k = 0; k < LARGE; ++k) data[k] = k * 3;
    MPI_Request request;
    MPI_Status status;
    MPI_Isend(data, LARGE, MPI_INT, 1, 9, MPI_COMM_WORLD, &request);
    MPI_Cancel(&request);
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &verdict);
    MPI_Send(&verdict, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int go;
    MPI_Recv(&go, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < LARGE; ++k) data[k] = -1;
    MPI_Request request;
    MPI_Status status;
    MPI_Irecv(data, LARGE, MPI_INT, 0, 9, MPI_COMM_WORLD, &request);
    MPI_Recv(&verdict, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (verdict) MPI_Cancel(&request);
    MPI_Wait(&request, &status);
    int receive_cancelled, whole = 1, untouched = 1;
    MPI_Test_cancelled(&status, &receive_cancelled);
    for (int k = 0; k < LARGE; ++k) {
      whole &= data[k] == k * 3;
      untouched &= data[k] == -1;
    }
    if (verdict ? receive_cancelled && untouched : !receive_cancelled && whole)
      printf("large send: cancelled and not received, or received whole and not cancelled\n");
    else
      printf("large send: sender cancelled %d, receive cancelled %d, whole %d, untouched %d\n",
             verdict, receive_cancelled, whole, untouched);
  }
  free(data);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unmatched_receive(rank, size);
  matched_receive(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  large_send(rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request none = MPI_REQUEST_NULL;
  int code = MPI_Cancel(&none), class;
  MPI_Error_class(code, &class);
  printf("rank %d: cancel of MPI_REQUEST_NULL gives MPI_ERR_REQUEST %d\n", rank,
         class == MPI_ERR_REQUEST);
  MPI_Finalize();
  return 0;
}
