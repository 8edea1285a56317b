// A window's user error handler (MPI_Win_create_errhandler): a failing
// one-sided call calls it with the window and the error code, then returns
// the code; MPI_Win_call_errhandler calls it and succeeds; after
// MPI_Win_set_errhandler(MPI_ERRORS_RETURN) errors are only returned. No
// failed put writes a byte of any window.
// RUN: %mpi-diff %s %t 2
#include <mpi.h>
#include <stdio.h>

static MPI_Win the_window;
static int handler_calls;

static const char* class_name(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_ERR_RANK    ? "MPI_ERR_RANK"
         : cls == MPI_ERR_COUNT ? "MPI_ERR_COUNT"
         : cls == MPI_ERR_TYPE  ? "MPI_ERR_TYPE"
         : cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER"
                                : "another class";
}

static void on_window_error(MPI_Win* win, int* code, ...) {
  ++handler_calls;
  printf("  handler %d: %s, same window %d\n", handler_calls, class_name(*code),
         *win == the_window);
}

static void show(const char* what, int result) {
  printf("%s: returned %s, handler calls %d\n", what,
         result == MPI_SUCCESS ? "MPI_SUCCESS" : class_name(result), handler_calls);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* memory;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &memory,
                   &the_window);
  for (int i = 0; i < 4; ++i) memory[i] = -1;

  MPI_Errhandler handler, current;
  MPI_Win_create_errhandler(on_window_error, &handler);
  MPI_Win_set_errhandler(the_window, handler);
  MPI_Win_get_errhandler(the_window, &current);
  int values[4] = {1, 2, 3, 4};

  MPI_Win_fence(0, the_window);
  if (rank == 0) {
    printf("get_errhandler gives the created handler %d\n", current == handler);
    show("put to rank size", MPI_Put(values, 1, MPI_INT, size, 0, 1, MPI_INT, the_window));
    show("put of -1 ints", MPI_Put(values, -1, MPI_INT, 1, 0, -1, MPI_INT, the_window));
    show("put of a null type",
         MPI_Put(values, 1, MPI_DATATYPE_NULL, 1, 0, 1, MPI_INT, the_window));
    show("call_errhandler(MPI_ERR_OTHER)", MPI_Win_call_errhandler(the_window, MPI_ERR_OTHER));
    MPI_Win_set_errhandler(the_window, MPI_ERRORS_RETURN);
    show("errors_return: put to rank size",
         MPI_Put(values, 1, MPI_INT, size, 0, 1, MPI_INT, the_window));
  }
  MPI_Win_fence(0, the_window);
  int untouched = 1;
  for (int i = 0; i < 4; ++i) untouched &= memory[i] == -1;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: window untouched %d\n", rank, untouched);

  MPI_Errhandler_free(&handler);
  printf("rank %d: freed handler is null %d\n", rank, handler == MPI_ERRHANDLER_NULL);
  MPI_Win_free(&the_window);
  MPI_Finalize();
  return 0;
}
