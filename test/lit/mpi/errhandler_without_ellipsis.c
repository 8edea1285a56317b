// An error handler defined without the ellipsis of its declared type,
// void (MPI_Comm*, int*), and cast to MPI_Comm_errhandler_function, as C
// programs commonly write it (MPICH's errhan/predef_eh): it is accepted on
// MPI_COMM_WORLD and MPI_COMM_SELF, called for a raised error and by
// MPI_Comm_call_errhandler with the communicator and the code, and the
// same for a window's handler. A handler whose type is neither traps
// (win_errhandler_type.c).
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdio.h>

static int rank, size, calls;

static const char* class_name(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_ERR_RANK ? "MPI_ERR_RANK" : cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER"
                                                                      : "another class";
}

static void comm_handler(MPI_Comm* comm, int* code) {
  int result;
  MPI_Comm_compare(*comm, MPI_COMM_SELF, &result);
  printf("%d comm handler call %d: %s on %s\n", rank, ++calls, class_name(*code),
         result == MPI_IDENT ? "MPI_COMM_SELF" : "MPI_COMM_WORLD");
}

static void win_handler(MPI_Win* win, int* code) {
  int* base;
  int found;
  MPI_Win_get_attr(*win, MPI_WIN_BASE, &base, &found);
  printf("%d win handler call %d: %s, window value %d\n", rank, ++calls, class_name(*code),
         found ? *base : -1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Errhandler handler;
  MPI_Comm_create_errhandler((MPI_Comm_errhandler_function*)comm_handler, &handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, handler);
  MPI_Errhandler_free(&handler);

  int value = rank;
  int err = MPI_Send(&value, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  printf("%d send to rank size returned %s\n", rank, class_name(err));
  err = MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER);
  printf("%d call_errhandler on self returned %d\n", rank, err);

  int* base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 100 + rank;
  MPI_Errhandler win_errors;
  MPI_Win_create_errhandler((MPI_Win_errhandler_function*)win_handler, &win_errors);
  MPI_Win_set_errhandler(win, win_errors);
  MPI_Errhandler_free(&win_errors);
  err = MPI_Win_call_errhandler(win, MPI_ERR_RANK);
  printf("%d win call_errhandler returned %d\n", rank, err);
  MPI_Win_free(&win);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  MPI_Finalize();
  return 0;
}
