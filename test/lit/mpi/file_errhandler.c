// MPI_File_create_errhandler and MPI_File_call_errhandler against OpenMPI:
// a user handler on MPI_FILE_NULL is called when MPI_File_open fails, with
// MPI_FILE_NULL and the error; one on an open file is called when an access
// fails and by MPI_File_call_errhandler (a new file takes MPI_FILE_NULL's
// handler), with the file's handle, and the
// call then returns the error (or MPI_SUCCESS for call_errhandler). Under
// MPI_ERRORS_RETURN MPI_File_call_errhandler does nothing.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank;
static MPI_File opened = MPI_FILE_NULL;

static const char* class_name(int code) {
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_SUCCESS            ? "MPI_SUCCESS"
         : cls == MPI_ERR_NO_SUCH_FILE ? "MPI_ERR_NO_SUCH_FILE"
         : cls == MPI_ERR_READ_ONLY    ? "MPI_ERR_READ_ONLY"
         : cls == MPI_ERR_ACCESS       ? "MPI_ERR_ACCESS"
         : cls == MPI_ERR_OTHER        ? "MPI_ERR_OTHER"
         : cls == MPI_ERR_ARG          ? "MPI_ERR_ARG"
                                       : "another class";
}

static void on_error(MPI_File* file, int* code, ...) {
  printf("%d handler: file %s, %s\n", rank,
         *file == MPI_FILE_NULL ? "MPI_FILE_NULL" : *file == opened ? "the open file" : "another",
         class_name(*code));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096], missing[4096];
  snprintf(path, sizeof path, "%s/errhandled", argv[1]);
  snprintf(missing, sizeof missing, "%s/absent/file", argv[1]);

  MPI_Errhandler handler, got;
  MPI_File_create_errhandler(on_error, &handler);
  MPI_File_set_errhandler(MPI_FILE_NULL, handler);
  MPI_File_get_errhandler(MPI_FILE_NULL, &got);
  printf("%d MPI_FILE_NULL has the handler: %d\n", rank, got == handler);
  MPI_File fh;
  int code = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  printf("%d open of a missing file: %s\n", rank, class_name(code));

  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                MPI_INFO_NULL, &opened);
  MPI_File_get_errhandler(opened, &got);
  printf("%d a new file takes MPI_FILE_NULL's handler: %d\n", rank, got == handler);
  code = MPI_File_call_errhandler(opened, MPI_ERR_OTHER);
  printf("%d call_errhandler with a user handler: %s\n", rank, class_name(code));
  int value = rank;
  code = MPI_File_read_at(opened, 0, &value, 1, MPI_INT, MPI_STATUS_IGNORE);
  printf("%d read of a write-only file: %s\n", rank, class_name(code));

  MPI_File_set_errhandler(opened, MPI_ERRORS_RETURN);
  code = MPI_File_call_errhandler(opened, MPI_ERR_ARG);
  printf("%d call_errhandler under MPI_ERRORS_RETURN: %s\n", rank, class_name(code));
  MPI_File_close(&opened);
  MPI_Errhandler_free(&handler);
  printf("%d freed handle is MPI_ERRHANDLER_NULL: %d\n", rank, handler == MPI_ERRHANDLER_NULL);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  MPI_Finalize();
  return 0;
}
