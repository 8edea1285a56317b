// Under MPI_ERRORS_RETURN, a nonblocking collective with bad arguments
// returns the error class at the call and starts nothing: its request is
// left untouched, and the next collective on the communicator still meets
// the others' (no message of the refused one is left behind to match it).
// RUN: %mpi-diff %s %t 2
// Under MPI_ERRORS_ARE_FATAL the job ends with a message naming the call.
// RUN: not %synergy-run -np 2 %t/granule.wasm fatal 2>&1 | FileCheck %s
// CHECK: synergy-run: rank {{[01]}}: MPI_Iallreduce: MPI_MAX is not defined on this datatype (MPI_ERR_OP)
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void report(const char* what, int code, MPI_Request request) {
  int cls;
  MPI_Error_class(code, &cls);
  printf("%s: class %d, request untouched %d\n", what, cls, request == 12345);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int x[4] = {rank, 1, 2, 3}, y[4] = {0};
  MPI_Request request = 12345;
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_Iallreduce(x, y, 1, MPI_C_BOOL, MPI_MAX, MPI_COMM_WORLD, &request);
    printf("not reached\n");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  report("ibcast bad root", MPI_Ibcast(x, 1, MPI_INT, size, MPI_COMM_WORLD, &request), request);
  report("ireduce null op",
         MPI_Ireduce(x, y, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, &request), request);
  report("iallreduce negative count",
         MPI_Iallreduce(x, y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request), request);
  report("iallgather null datatype",
         MPI_Iallgather(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, MPI_COMM_WORLD, &request),
         request);
  report("ibarrier null communicator", MPI_Ibarrier(MPI_COMM_NULL, &request), request);
  MPI_Iallreduce(x, y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  printf("rank %d then iallreduce %d\n", rank, y[0]);
  MPI_Finalize();
  return 0;
}
