// MPI_Ssend, MPI_Bsend (with an attached buffer), MPI_Rsend into a posted
// receive, MPI_Issend, and MPI_Request_free on a completed send.
// RUN: %mpi-diff %s %t 2 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bufferSize = 100000 + MPI_BSEND_OVERHEAD;
  void* attached = malloc(bufferSize);
  MPI_Buffer_attach(attached, bufferSize);
  int data[1000];
  if (rank == 0) {
    for (int i = 0; i < 1000; ++i) data[i] = i;
    MPI_Ssend(data, 10, MPI_INT, 1, 1, MPI_COMM_WORLD);
    MPI_Bsend(data, 1000, MPI_INT, 1, 2, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(data, 5, MPI_INT, 1, 3, MPI_COMM_WORLD);
    MPI_Request request;
    MPI_Issend(data + 5, 5, MPI_INT, 1, 4, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Isend(data, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &request);
    MPI_Request_free(&request);
    printf("rank 0 sent, request freed %d\n", request == MPI_REQUEST_NULL);
  } else if (rank == 1) {
    int got[1200] = {0};  // got[5..9] are summed but never received into
    MPI_Request ready;
    MPI_Irecv(got, 5, MPI_INT, 0, 3, MPI_COMM_WORLD, &ready);
    MPI_Recv(got + 100, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(got + 200, 1000, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&ready, MPI_STATUS_IGNORE);
    MPI_Recv(got + 10, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(got + 20, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long sum = 0;
    for (int i = 0; i < 15; ++i) sum += got[i];
    for (int i = 100; i < 110; ++i) sum += got[i];
    printf("rank 1 sums %ld %d %d\n", sum, got[200], got[1199]);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int detachedSize;
  void* detached;
  MPI_Buffer_detach(&detached, &detachedSize);
  free(attached);
  MPI_Finalize();
  return 0;
}
