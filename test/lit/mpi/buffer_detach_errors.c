// The errors of MPI_Buffer_attach and MPI_Buffer_detach that OpenMPI reports
// with an internal code rather than an MPI error class: a second attach
// while a buffer is attached, and a detach with none, are MPI_ERR_BUFFER
// and change nothing; a detach output outside linear memory is MPI_ERR_ARG.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/buffers.wasm
// RUN: %synergy-run %t/buffers.wasm | FileCheck %s
#include <mpi.h>
#include <stdio.h>

static void report(const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length;
  int cls;
  MPI_Error_class(code, &cls);
  MPI_Error_string(cls, text, &length);
  printf("%s: %s\n", what, text);
}

static char space[64], other[64];

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  void* detached = other;
  int size = -5;
  // CHECK: detach with none attached: MPI_ERR_BUFFER
  report("detach with none attached", MPI_Buffer_detach(&detached, &size));
  // CHECK-NEXT: outputs untouched: 1 1
  printf("outputs untouched: %d %d\n", detached == other, size == -5);
  // CHECK-NEXT: attach: MPI_SUCCESS
  report("attach", MPI_Buffer_attach(space, sizeof space));
  // CHECK-NEXT: attach again: MPI_ERR_BUFFER
  report("attach again", MPI_Buffer_attach(other, sizeof other));
  // CHECK-NEXT: detach to a bad address: MPI_ERR_ARG
  report("detach to a bad address", MPI_Buffer_detach((void*)0xfffffff0u, &size));
  // CHECK-NEXT: detach: MPI_SUCCESS
  report("detach", MPI_Buffer_detach(&detached, &size));
  // CHECK-NEXT: the first buffer is kept: 1 64
  printf("the first buffer is kept: %d %d\n", detached == space, size);
  MPI_Finalize();
  return 0;
}
