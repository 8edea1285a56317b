// A status's MPI_ERROR field is written only by the calls that complete
// several requests (MPI_Waitall, _Testall, _Waitsome, _Testsome); every
// single-completion call and probe (MPI_Recv, MPI_Wait, MPI_Test,
// MPI_Waitany, MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Mrecv, MPI_Imrecv,
// MPI_Sendrecv, MPI_Request_get_status) leaves what the program put there
// (MPI-3.1 §3.2.5; MPICH's pt2pt/mprobe checks it). The empty status of
// a null request is another matter (empty_status_error.c).
// RUN: %mpi-diff %s %t 2
#include <mpi.h>
#include <stdio.h>

static int rank;

static void show(const char* what, const MPI_Status* status) {
  printf("rank %d: %s: source %d, tag %d, MPI_ERROR %s\n", rank, what, status->MPI_SOURCE,
         status->MPI_TAG,
         status->MPI_ERROR == MPI_ERR_DIMS ? "left alone"
         : status->MPI_ERROR == MPI_SUCCESS ? "MPI_SUCCESS" : "another value");
}

static void fresh(MPI_Status* status) { status->MPI_ERROR = MPI_ERR_DIMS; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int peer = 1 - rank, value = rank, got, flag;
  MPI_Status status, statuses[2];
  MPI_Request request, requests[2];
  MPI_Message message;

  if (rank == 0) {
    for (int tag = 1; tag <= 8; ++tag) MPI_Send(&value, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
  } else {
    fresh(&status);
    MPI_Recv(&got, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &status);
    show("MPI_Recv", &status);
    fresh(&status);
    MPI_Probe(peer, 2, MPI_COMM_WORLD, &status);
    show("MPI_Probe", &status);
    fresh(&status);
    do MPI_Iprobe(peer, 2, MPI_COMM_WORLD, &flag, &status); while (!flag);
    show("MPI_Iprobe", &status);
    MPI_Recv(&got, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fresh(&status);
    MPI_Mprobe(peer, 3, MPI_COMM_WORLD, &message, &status);
    show("MPI_Mprobe", &status);
    fresh(&status);
    MPI_Mrecv(&got, 1, MPI_INT, &message, &status);
    show("MPI_Mrecv", &status);
    MPI_Mprobe(peer, 4, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
    MPI_Imrecv(&got, 1, MPI_INT, &message, &request);
    fresh(&status);
    MPI_Wait(&request, &status);
    show("MPI_Imrecv and MPI_Wait", &status);
    MPI_Irecv(&got, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &request);
    fresh(&status);
    do MPI_Test(&request, &flag, &status); while (!flag);
    show("MPI_Test", &status);
    MPI_Irecv(&got, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, &request);
    fresh(&status);
    do MPI_Request_get_status(request, &flag, &status); while (!flag);
    show("MPI_Request_get_status", &status);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    int index;
    MPI_Irecv(&got, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &requests[0]);
    fresh(&status);
    MPI_Waitany(1, requests, &index, &status);
    show("MPI_Waitany", &status);
    MPI_Irecv(&got, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &requests[0]);
    requests[1] = MPI_REQUEST_NULL;
    fresh(&statuses[0]);
    MPI_Waitall(1, requests, statuses);
    show("MPI_Waitall", &statuses[0]);
  }
  fresh(&status);
  MPI_Sendrecv(&value, 1, MPI_INT, peer, 9, &got, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &status);
  show("MPI_Sendrecv", &status);
  MPI_Finalize();
  return 0;
}
