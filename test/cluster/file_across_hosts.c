// MPI-IO over ranks on several hosts, in the directory given as argv[1]:
// each rank writes its block with MPI_File_write_at_all, and after
// MPI_File_sync, a barrier and MPI_File_sync again (the MPI-3.1 §13.6.1
// recipe) reads the next rank's block, written from another host. The
// calls that need the one shared file pointer or atomic mode return
// MPI_ERR_UNSUPPORTED_OPERATION there (MPI_ERRORS_RETURN, the files'
// default), and the file stays usable.
#include <mpi.h>
#include <stdio.h>

#define BLOCK 4

static void report(int rank, const char* what, int code) {
  char name[MPI_MAX_ERROR_STRING];
  int length, error_class;
  MPI_Error_class(code, &error_class);
  MPI_Error_string(error_class, name, &length);
  printf("rank %d: %s: %s\n", rank, what,
         code == MPI_SUCCESS                             ? "success"
         : error_class == MPI_ERR_UNSUPPORTED_OPERATION ? "MPI_ERR_UNSUPPORTED_OPERATION"
                                                         : name);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[4096];
  snprintf(path, sizeof path, "%s/blocks", argc > 1 ? argv[1] : ".");
  MPI_File file;
  report(rank, "open", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                                     MPI_INFO_NULL, &file));
  int mine[BLOCK], next[BLOCK];
  for (int i = 0; i < BLOCK; ++i) mine[i] = rank * 1000 + i;
  MPI_Offset at = (MPI_Offset)rank * sizeof(mine);
  report(rank, "write_at_all",
         MPI_File_write_at_all(file, at, mine, BLOCK, MPI_INT, MPI_STATUS_IGNORE));
  MPI_File_sync(file);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(file);
  int right = (rank + 1) % size;
  report(rank, "read_at", MPI_File_read_at(file, (MPI_Offset)right * sizeof(next), next, BLOCK,
                                           MPI_INT, MPI_STATUS_IGNORE));
  printf("rank %d: block of rank %d: %d %d %d %d\n", rank, right, next[0], next[1], next[2],
         next[3]);
  report(rank, "write_shared", MPI_File_write_shared(file, mine, 1, MPI_INT, MPI_STATUS_IGNORE));
  report(rank, "set_atomicity 1", MPI_File_set_atomicity(file, 1));
  report(rank, "set_atomicity 0", MPI_File_set_atomicity(file, 0));
  MPI_Offset bytes = 0;
  MPI_File_get_size(file, &bytes);
  printf("rank %d: size %lld\n", rank, (long long)bytes);
  report(rank, "close", MPI_File_close(&file));
  MPI_Finalize();
  return 0;
}
