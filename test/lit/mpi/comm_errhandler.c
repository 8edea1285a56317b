// User error handlers on communicators, against OpenMPI: an error raised
// inside an MPI call on a communicator calls its handler with that
// communicator and the error code, after which the call returns the code
// and nothing was sent; a duplicate inherits the handler;
// MPI_Comm_call_errhandler calls it and succeeds; MPI-1's
// MPI_Errhandler_create/set/get work as the MPI-2 names do; after
// MPI_ERRORS_RETURN is set the handler is no longer called.
// RUN: %mpi-diff %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>

// OpenMPI's header refuses MPI-1's names, which MPI-3.0 removed; they are
// the MPI-2 functions under other names, so the OpenMPI build calls those.
#ifdef OPEN_MPI
#define ERRHANDLER_CREATE MPI_Comm_create_errhandler
#define ERRHANDLER_SET MPI_Comm_set_errhandler
#define ERRHANDLER_GET MPI_Comm_get_errhandler
#else
#define ERRHANDLER_CREATE MPI_Errhandler_create
#define ERRHANDLER_SET MPI_Errhandler_set
#define ERRHANDLER_GET MPI_Errhandler_get
#endif

static int rank, size, handler_calls, old_calls;
static MPI_Comm expected;

static const char* class_name(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_ERR_RANK    ? "MPI_ERR_RANK"
         : cls == MPI_ERR_COUNT ? "MPI_ERR_COUNT"
         : cls == MPI_ERR_TYPE  ? "MPI_ERR_TYPE"
         : cls == MPI_ERR_ROOT  ? "MPI_ERR_ROOT"
         : cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER"
                                : "another class";
}

static void on_error(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  int result;
  MPI_Comm_compare(*comm, expected, &result);
  printf("%d handler %d: %s, %s communicator\n", rank, handler_calls, class_name(*code),
         result == MPI_IDENT ? "the expected" : "another");
}

static void old_style(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  ++old_calls;
  printf("%d MPI-1 handler %d: %s\n", rank, old_calls, class_name(*code));
}

static void show(const char* what, int result) {
  printf("%d %s: returned %s, handler calls %d\n", rank, what,
         result == MPI_SUCCESS ? "MPI_SUCCESS" : class_name(result), handler_calls);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Errhandler handler, got;
  MPI_Comm_create_errhandler(on_error, &handler);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, handler);
  MPI_Comm_get_errhandler(comm, &got);
  printf("%d get_errhandler gives the handler: %d\n", rank, got == handler);
  expected = comm;

  int value = rank;
  show("send to rank size", MPI_Send(&value, 1, MPI_INT, size, 0, comm));
  show("send of count -1", MPI_Send(&value, -1, MPI_INT, 0, 0, comm));
  show("bcast from root -1", MPI_Bcast(&value, 1, MPI_INT, -1, comm));
  show("call_errhandler", MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER));

  // The duplicate keeps the handler; the handler sees the duplicate.
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  expected = dup;
  show("dup: send of a null type", MPI_Send(&value, 1, MPI_DATATYPE_NULL, 0, 0, dup));
  MPI_Comm_free(&dup);

  MPI_Errhandler old;
  ERRHANDLER_CREATE(old_style, &old);
  ERRHANDLER_SET(comm, old);
  ERRHANDLER_GET(comm, &got);
  printf("%d Errhandler_get gives the MPI-1 handler: %d\n", rank, got == old);
  show("MPI-1 handler: send to rank -5", MPI_Send(&value, 1, MPI_INT, -5, 0, comm));

  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  show("errors return: send to rank size", MPI_Send(&value, 1, MPI_INT, size, 0, comm));
  printf("%d MPI-1 handler calls %d\n", rank, old_calls);

  // The communicator still works for every rank after all this.
  int sum;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm);
  printf("%d sum %d\n", rank, sum);
  MPI_Errhandler_free(&handler);
  MPI_Errhandler_free(&old);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
