// MPI_Buffer_detach hands back the address and size MPI_Buffer_attach was
// given, against OpenMPI; a buffered send in between still arrives, a new
// buffer can be attached after the detach, and a null buffer or a negative
// size is MPI_ERR_ARG.
// RUN: %mpi-diff %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>

static const char* class_name(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_SUCCESS ? "MPI_SUCCESS" : cls == MPI_ERR_ARG ? "MPI_ERR_ARG" : "another class";
}

static char first[MPI_BSEND_OVERHEAD + 400], second[MPI_BSEND_OVERHEAD + 100];

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  printf("%d attach: %s\n", rank, class_name(MPI_Buffer_attach(first, sizeof first)));
  int value = 100 + rank, got;
  MPI_Bsend(&value, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
  MPI_Recv(&got, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("%d received %d\n", rank, got);
  void* detached = NULL;
  int detachedSize = -1;
  printf("%d detach: %s\n", rank, class_name(MPI_Buffer_detach(&detached, &detachedSize)));
  printf("%d detached the first buffer: %d, size matches: %d\n", rank, detached == first,
         detachedSize == (int)sizeof first);

  printf("%d attach a null buffer: %s\n", rank, class_name(MPI_Buffer_attach(NULL, 10)));
  printf("%d attach a negative size: %s\n", rank, class_name(MPI_Buffer_attach(second, -1)));
  printf("%d attach another: %s\n", rank, class_name(MPI_Buffer_attach(second, sizeof second)));
  MPI_Buffer_detach(&detached, &detachedSize);
  printf("%d detached the second buffer: %d, size matches: %d\n", rank, detached == second,
         detachedSize == (int)sizeof second);
  MPI_Finalize();
  return 0;
}
