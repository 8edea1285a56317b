// MPI-IO's shared file pointers against OpenMPI's: MPI_File_write_ordered
// puts each rank's part after the lower ranks' parts, in rank order, and
// moves the shared pointer past all of them; MPI_File_write_shared appends
// each rank's marker exactly once; MPI_File_seek_shared and
// MPI_File_read_ordered read the parts back. Only np 2: OpenMPI 4.1.4's
// shared-pointer component ("sm") dies with SIGBUS at np 3 here, and ROMIO
// with SIGSEGV.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d/data %s %t 2
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void check(const char* what, int result) {
  if (result != MPI_SUCCESS) printf("%s failed: %d\n", what, result);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* path = argv[1];
  MPI_File fh;
  MPI_Status status;
  MPI_Offset fileSize;
  // Ordered and shared pointers on a fresh file, in chars.
  char orderedPath[512];
  snprintf(orderedPath, sizeof orderedPath, "%s.ordered", path);
  if (rank == 0) MPI_File_delete(orderedPath, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  check("open", MPI_File_open(MPI_COMM_WORLD, orderedPath,
                              MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  char line[32];
  int length = snprintf(line, sizeof line, "rank %d says %.*s\n", rank, rank + 1, "hello");
  check("write_ordered", MPI_File_write_ordered(fh, line, length, MPI_CHAR, &status));
  MPI_Offset shared;
  MPI_File_get_position_shared(fh, &shared);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  MPI_File_get_size(fh, &fileSize);
  printf("rank %d: shared pointer %lld, size %lld\n", rank, (long long)shared,
         (long long)fileSize);
  MPI_Barrier(MPI_COMM_WORLD);
  // Every rank appends one marker through the shared pointer.
  char marker = (char)('A' + rank);
  check("write_shared", MPI_File_write_shared(fh, &marker, 1, MPI_CHAR, &status));
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  MPI_File_get_position_shared(fh, &shared);
  printf("rank %d: shared pointer after the markers %lld\n", rank, (long long)shared);
  char text[256];
  memset(text, 0, sizeof text);
  MPI_File_read_at(fh, 0, text, (int)shared - size, MPI_CHAR, &status);
  if (rank == 0) printf("ordered text:\n%s", text);
  char markers[8] = {0};
  MPI_File_read_at(fh, shared - size, markers, size, MPI_CHAR, &status);
  int seen = 0;
  for (int i = 0; i < size; ++i) seen |= 1 << (markers[i] - 'A');
  printf("rank %d: every marker once: %d\n", rank, seen == (1 << size) - 1);
  MPI_Barrier(MPI_COMM_WORLD);
  check("seek_shared", MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  char word[5] = {0};
  check("read_ordered", MPI_File_read_ordered(fh, word, 4, MPI_CHAR, &status));
  printf("rank %d: read_ordered '%s'\n", rank, word);
  check("close", MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) check("delete", MPI_File_delete(orderedPath, MPI_INFO_NULL));
  MPI_Finalize();
  return 0;
}
