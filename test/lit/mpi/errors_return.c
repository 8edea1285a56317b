// Under MPI_ERRORS_RETURN, bad arguments return the MPI error class instead
// of ending the job: invalid rank, tag, count, datatype, communicator, root,
// op, and a truncated receive (which still fills the buffer).
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static void report(const char* what, int code) {
  int cls;
  MPI_Error_class(code, &cls);
  char text[MPI_MAX_ERROR_STRING];
  int length;
  MPI_Error_string(code, text, &length);
  printf("%s: class %d, has message %d\n", what, cls, length > 0);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler handler;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
  int x[4] = {1, 2, 3, 4};
  if (rank == 0) {
    printf("handler is errors_return %d\n", handler == MPI_ERRORS_RETURN);
    report("send to rank size", MPI_Send(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
    report("send to rank -5", MPI_Send(x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD));
    report("negative tag", MPI_Send(x, 1, MPI_INT, 1, -3, MPI_COMM_WORLD));
    report("negative count", MPI_Send(x, -1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    report("null datatype", MPI_Send(x, 1, MPI_DATATYPE_NULL, 1, 0, MPI_COMM_WORLD));
    report("null communicator", MPI_Send(x, 1, MPI_INT, 1, 0, MPI_COMM_NULL));
    report("bcast bad root", MPI_Bcast(x, 1, MPI_INT, size + 2, MPI_COMM_WORLD));
    report("reduce null op", MPI_Reduce(x, x + 1, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD));
    report("recv from rank size", MPI_Recv(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
    MPI_Send(x, 4, MPI_INT, 1, 9, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int small[2] = {0, 0};
    MPI_Status status;
    int code = MPI_Recv(small, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, &status);
    report("truncated receive", code);
    printf("truncated data %d %d\n", small[0], small[1]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  report("success", MPI_SUCCESS);
  MPI_Finalize();
  return 0;
}
