// Looking at requests and statuses without completing them:
//  - MPI_Request_get_status on a pending receive says not yet, leaves the
//    request alone, and once the message is in reports its status without
//    freeing the request, which MPI_Wait then completes with the same status;
//    on MPI_REQUEST_NULL it says complete with an empty status.
//  - MPI_Status_set_elements(_x) and MPI_Status_set_cancelled set what
//    MPI_Get_elements(_x), MPI_Get_count and MPI_Test_cancelled then report.
//  - Persistent buffered and ready sends (MPI_Bsend_init, MPI_Rsend_init)
//    run, restarted, like MPI_Send_init.
// RUN: %mpi-diff %s %t 2 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void get_status(int rank, int size) {
  int from = (rank + size - 1) % size, to = (rank + 1) % size;
  int value = -1, flag = -1;
  MPI_Request request;
  MPI_Status status;
  MPI_Irecv(&value, 1, MPI_INT, from, 30, MPI_COMM_WORLD, &request);
  MPI_Request_get_status(request, &flag, &status);
  printf("rank %d: before the send flag %d, handle kept %d\n", rank, flag,
         request != MPI_REQUEST_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  int sent = 300 + rank;
  MPI_Send(&sent, 1, MPI_INT, to, 30, MPI_COMM_WORLD);
  flag = 0;
  while (!flag) MPI_Request_get_status(request, &flag, &status);
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d: get_status source %d tag %d count %d value %d, handle kept %d\n", rank,
         status.MPI_SOURCE, status.MPI_TAG, count, value, request != MPI_REQUEST_NULL);
  MPI_Status waited;
  MPI_Wait(&request, &waited);
  printf("rank %d: wait after get_status source %d tag %d, request null %d\n", rank,
         waited.MPI_SOURCE, waited.MPI_TAG, request == MPI_REQUEST_NULL);
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &status);
  printf("rank %d: get_status of MPI_REQUEST_NULL flag %d\n", rank, flag);
}

static void set_status(int rank) {
  if (rank != 0) return;
  MPI_Status status;
  int count, elements, cancelled;
  MPI_Count elements_x;
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Status_set_elements(&status, MPI_DOUBLE, 6);
  MPI_Get_elements(&status, pair, &elements);
  MPI_Get_count(&status, pair, &count);
  MPI_Get_elements_x(&status, MPI_DOUBLE, &elements_x);
  printf("set 6 doubles: elements of pair %d, count of pair %d, elements_x %lld\n", elements,
         count, (long long)elements_x);
  MPI_Status_set_elements(&status, MPI_DOUBLE, 5);
  MPI_Get_count(&status, pair, &count);
  printf("set 5 doubles: count of pair is MPI_UNDEFINED %d\n", count == MPI_UNDEFINED);
  MPI_Status_set_elements_x(&status, pair, (MPI_Count)3000000000LL);
  MPI_Get_elements_x(&status, pair, &elements_x);
  MPI_Get_elements(&status, pair, &elements);
  printf("set_x 3e9 of pair: elements_x %lld, elements too large is MPI_UNDEFINED %d\n",
         (long long)elements_x, elements == MPI_UNDEFINED);
  MPI_Status_set_cancelled(&status, 1);
  MPI_Test_cancelled(&status, &cancelled);
  printf("set cancelled 1: %d\n", cancelled);
  MPI_Status_set_cancelled(&status, 0);
  MPI_Test_cancelled(&status, &cancelled);
  printf("set cancelled 0: %d\n", cancelled);
  MPI_Type_free(&pair);
}

static void persistent_modes(int rank, int size) {
  int from = (rank + size - 1) % size, to = (rank + 1) % size;
  int buffered, ready, got_buffered, got_ready;
  int attached = 4 * (sizeof(int) + MPI_BSEND_OVERHEAD);
  void* space = malloc(attached);
  MPI_Buffer_attach(space, attached);
  MPI_Request requests[4];
  MPI_Bsend_init(&buffered, 1, MPI_INT, to, 40, MPI_COMM_WORLD, &requests[0]);
  MPI_Rsend_init(&ready, 1, MPI_INT, to, 41, MPI_COMM_WORLD, &requests[1]);
  MPI_Recv_init(&got_buffered, 1, MPI_INT, from, 40, MPI_COMM_WORLD, &requests[2]);
  MPI_Recv_init(&got_ready, 1, MPI_INT, from, 41, MPI_COMM_WORLD, &requests[3]);
  long sum = 0;
  for (int round = 0; round < 3; ++round) {
    buffered = rank * 10 + round;
    ready = rank * 100 + round;
    // The receives are posted before anyone sends: a ready send needs that.
    MPI_Startall(2, &requests[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Startall(2, requests);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    sum += got_buffered + got_ready;
  }
  for (int i = 0; i < 4; ++i) MPI_Request_free(&requests[i]);
  MPI_Buffer_detach(&space, &attached);
  free(space);
  printf("rank %d: persistent buffered and ready sends, sum over 3 rounds %ld\n", rank, sum);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  get_status(rank, size);
  set_status(rank);
  persistent_modes(rank, size);
  MPI_Finalize();
  return 0;
}
