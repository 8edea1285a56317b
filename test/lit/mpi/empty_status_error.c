// The empty status a null request completes with (MPI-3.1 §3.7.3) has
// source MPI_ANY_SOURCE, tag MPI_ANY_TAG and error MPI_SUCCESS, so its
// MPI_ERROR is written even by single-completion calls, as MPICH writes it
// and its pt2pt/rqstatus checks. OpenMPI leaves that field alone here,
// so this test is not differential.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: %synergy-run -np 1 %t.wasm | FileCheck %s
// CHECK: MPI_Request_get_status: flag 1, source is MPI_ANY_SOURCE 1, tag is MPI_ANY_TAG 1, MPI_ERROR is MPI_SUCCESS 1
// CHECK: MPI_Wait: source is MPI_ANY_SOURCE 1, tag is MPI_ANY_TAG 1, MPI_ERROR is MPI_SUCCESS 1
// CHECK: MPI_Test: flag 1, source is MPI_ANY_SOURCE 1, tag is MPI_ANY_TAG 1, MPI_ERROR is MPI_SUCCESS 1
#include <mpi.h>
#include <stdio.h>

static void show(const char* what, int flag, const MPI_Status* status) {
  printf("%s: ", what);
  if (flag >= 0) printf("flag %d, ", flag);
  printf("source is MPI_ANY_SOURCE %d, tag is MPI_ANY_TAG %d, MPI_ERROR is MPI_SUCCESS %d\n",
         status->MPI_SOURCE == MPI_ANY_SOURCE, status->MPI_TAG == MPI_ANY_TAG,
         status->MPI_ERROR == MPI_SUCCESS);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Status status;
  MPI_Request request = MPI_REQUEST_NULL;
  int flag;
  status.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &status);
  show("MPI_Request_get_status", flag, &status);
  status.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Wait(&request, &status);
  show("MPI_Wait", -1, &status);
  status.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Test(&request, &flag, &status);
  show("MPI_Test", flag, &status);
  MPI_Finalize();
  return 0;
}
