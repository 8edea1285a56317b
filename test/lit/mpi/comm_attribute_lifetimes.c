// A copy callback that fails, against OpenMPI: MPI_Comm_dup returns its
// error and MPI_COMM_NULL, and the attribute copied before it (by
// MPI_COMM_DUP_FN) is deleted through its keyval's delete callback, which
// may call MPI; the parent keeps its own, deleted when it is freed.
// RUN: %mpi-diff %s %t 1 3
#include <mpi.h>
#include <stdio.h>

static int rank;

static int on_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  int size;
  MPI_Comm_size(comm, &size);
  printf("%d delete %s: value %d, communicator size %d\n", rank, (const char*)extra,
         *(int*)value, size);
  return MPI_SUCCESS;
}

static int refuse_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

static int values[4] = {10, 20, 30, 40};


int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int lasting;
  MPI_Comm base, copy = MPI_COMM_SELF;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, on_delete, &lasting, "lasting");
  MPI_Comm_set_attr(base, lasting, &values[3]);
  int code, *got, flag;
  int refusing;
  MPI_Comm_create_keyval(refuse_copy, MPI_COMM_NULL_DELETE_FN, &refusing, NULL);
  MPI_Comm_set_attr(base, refusing, &values[0]);
  code = MPI_Comm_dup(base, &copy);
  int cls;
  MPI_Error_class(code, &cls);
  printf("%d dup with a failing copy callback: %s, newcomm %s\n", rank,
         cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : code == MPI_SUCCESS ? "MPI_SUCCESS" : "other",
         copy == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  MPI_Comm_delete_attr(base, refusing);
  MPI_Comm_free_keyval(&refusing);
  MPI_Comm_get_attr(base, lasting, &got, &flag);
  printf("%d parent keeps its attribute: flag %d value %d\n", rank, flag, flag ? *got : -1);

  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&lasting);
  printf("%d finalizing\n", rank);
  MPI_Finalize();
  return 0;
}
