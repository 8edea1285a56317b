// MPI-IO errors against OpenMPI's: files default to MPI_ERRORS_RETURN, and
// opening a missing file without MPI_MODE_CREATE, MPI_MODE_EXCL on an
// existing one, an invalid access mode, writing a read-only file, reading a
// write-only one and an unknown data representation each return their error
// class and change nothing; MPI_MODE_DELETE_ON_CLOSE removes the file at
// close and MPI_File_delete of a missing file says so.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d %s %t 1 2 3
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char* class_name(int code) {
  if (code == MPI_SUCCESS) return "MPI_SUCCESS";
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_ERR_NO_SUCH_FILE            ? "MPI_ERR_NO_SUCH_FILE"
         : cls == MPI_ERR_FILE_EXISTS           ? "MPI_ERR_FILE_EXISTS"
         : cls == MPI_ERR_AMODE                 ? "MPI_ERR_AMODE"
         : cls == MPI_ERR_READ_ONLY             ? "MPI_ERR_READ_ONLY"
         : cls == MPI_ERR_ACCESS                ? "MPI_ERR_ACCESS"
         : cls == MPI_ERR_UNSUPPORTED_DATAREP   ? "MPI_ERR_UNSUPPORTED_DATAREP"
         : cls == MPI_ERR_IO                    ? "MPI_ERR_IO"
         : cls == MPI_ERR_FILE                  ? "MPI_ERR_FILE"
                                                : "another class";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char missing[512], existing[512], doomed[512];
  snprintf(missing, sizeof missing, "%s/missing", argv[1]);
  snprintf(existing, sizeof existing, "%s/existing", argv[1]);
  snprintf(doomed, sizeof doomed, "%s/doomed", argv[1]);
  MPI_Errhandler handler;
  MPI_File_get_errhandler(MPI_FILE_NULL, &handler);
  if (rank == 0) printf("MPI_FILE_NULL returns errors: %d\n", handler == MPI_ERRORS_RETURN);

  MPI_File fh = MPI_FILE_NULL;
  int result = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  printf("rank %d: open missing: %s, exists after %d\n", rank, class_name(result),
         access(missing, F_OK) == 0);
  result = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                         MPI_INFO_NULL, &fh);
  printf("rank %d: open rdonly|create: %s\n", rank, class_name(result));
  result = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL,
                         &fh);
  printf("rank %d: open rdwr|wronly: %s\n", rank, class_name(result));
  MPI_Barrier(MPI_COMM_WORLD);

  // A file to collide with.
  if (rank == 0) MPI_File_delete(existing, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_open(MPI_COMM_WORLD, existing, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, rank, "xyz" + rank % 3, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  char byte;
  result = MPI_File_read_at(fh, 0, &byte, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  printf("rank %d: read write-only: %s\n", rank, class_name(result));
  MPI_File_get_errhandler(fh, &handler);
  printf("rank %d: a file returns errors: %d\n", rank, handler == MPI_ERRORS_RETURN);
  result = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-representation", MPI_INFO_NULL);
  printf("rank %d: unknown datarep: %s\n", rank, class_name(result));
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  result = MPI_File_open(MPI_COMM_WORLD, existing, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh);
  printf("rank %d: excl on an existing file: %s, handle null %d\n", rank, class_name(result),
         fh == MPI_FILE_NULL);
  MPI_File_open(MPI_COMM_WORLD, existing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  result = MPI_File_write_at(fh, 0, "Q", 1, MPI_CHAR, MPI_STATUS_IGNORE);
  printf("rank %d: write read-only: %s\n", rank, class_name(result));
  char seen[4] = {0};
  MPI_File_read_at(fh, 0, seen, 3, MPI_CHAR, MPI_STATUS_IGNORE);
  printf("rank %d: contents start '%c', size-limited read '%s'\n", rank, seen[0], seen);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);

  // Delete on close.
  result = MPI_File_open(MPI_COMM_WORLD, doomed,
                         MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                         &fh);
  MPI_File_write_at(fh, rank, "d", 1, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: delete-on-close file exists while open: %d\n", rank, access(doomed, F_OK) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: exists after close: %d\n", rank, access(doomed, F_OK) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("delete existing: %s\n", class_name(MPI_File_delete(existing, MPI_INFO_NULL)));
    printf("delete it again: %s\n", class_name(MPI_File_delete(existing, MPI_INFO_NULL)));
  }
  MPI_Finalize();
  return 0;
}
