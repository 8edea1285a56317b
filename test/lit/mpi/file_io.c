// MPI-IO against OpenMPI's: a strided view (a vector filetype after a
// displacement) written collectively and read back independently through a
// plain view, the _at forms, get_byte_offset and seeks, nonblocking and split
// collective forms, set_size/get_size/preallocate, get_view and get_amode
// (the shared and ordered pointers are in file_shared_pointers.c).
// Both sides run in a directory of their own, granted to the granule.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d/data %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 2
#define PER_RANK 6

static void check(const char* what, int result) {
  if (result != MPI_SUCCESS) printf("%s failed: %d\n", what, result);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* path = argv[1];
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_File fh;
  check("open", MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                              MPI_INFO_NULL, &fh));
  int amode;
  MPI_File_get_amode(fh, &amode);
  if (rank == 0) printf("amode create|rdwr: %d\n", amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));

  // Each rank owns blocks of BLOCK ints, round robin, after a 4-int header.
  MPI_Datatype strided;
  MPI_Type_vector(PER_RANK / BLOCK, BLOCK, BLOCK * size, MPI_INT, &strided);
  MPI_Datatype filetype;
  MPI_Type_create_resized(strided, 0, (MPI_Aint)(BLOCK * size * PER_RANK / BLOCK) * sizeof(int),
                          &filetype);
  MPI_Type_commit(&filetype);
  MPI_Offset header = 4 * sizeof(int);
  check("set_view", MPI_File_set_view(fh, header + rank * BLOCK * sizeof(int), MPI_INT, filetype,
                                      "native", MPI_INFO_NULL));
  int mine[PER_RANK];
  for (int i = 0; i < PER_RANK; ++i) mine[i] = 100 * rank + i;
  MPI_Status status;
  check("write_all", MPI_File_write_all(fh, mine, PER_RANK, MPI_INT, &status));
  int count;
  MPI_Get_count(&status, MPI_INT, &count);
  MPI_Offset position, byte;
  MPI_File_get_position(fh, &position);
  MPI_File_get_byte_offset(fh, 3, &byte);
  printf("rank %d: wrote %d ints, position %lld, etype 3 at byte %lld\n", rank, count,
         (long long)position, (long long)byte);
  MPI_Offset disp;
  MPI_Datatype etype, got_filetype;
  char datarep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &etype, &got_filetype, datarep);
  printf("rank %d: view disp %lld etype int %d datarep %s\n", rank, (long long)disp,
         etype == MPI_INT, datarep);
  if (got_filetype != filetype) MPI_Type_free(&got_filetype);
  check("sync", MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  check("sync", MPI_File_sync(fh));

  // Back to bytes: every rank reads the whole interleaved region itself.
  check("set_view", MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int whole[4 + 64];
  int n = 4 + PER_RANK * size;
  memset(whole, 0, sizeof whole);
  check("read_at", MPI_File_read_at(fh, 0, whole, n, MPI_INT, &status));
  if (rank == size - 1) {
    printf("file:");
    for (int i = 0; i < n; ++i) printf(" %d", whole[i]);
    printf("\n");
  }
  // Reading past the end returns what is there.
  int tail[8];
  check("read_at", MPI_File_read_at(fh, (MPI_Offset)(n - 2) * sizeof(int), tail, 8, MPI_INT, &status));
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d: read past the end: %d ints, last %d\n", rank, count, tail[1]);

  // Individual pointer and seeks, in ints.
  check("set_view", MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  MPI_File_seek(fh, -1, MPI_SEEK_END);
  int last;
  MPI_File_read(fh, &last, 1, MPI_INT, &status);
  MPI_File_get_position(fh, &position);
  printf("rank %d: last int %d, position %lld\n", rank, last, (long long)position);
  MPI_File_seek(fh, 4, MPI_SEEK_SET);
  MPI_File_seek(fh, rank, MPI_SEEK_CUR);
  MPI_File_read(fh, &last, 1, MPI_INT, &status);
  printf("rank %d: int %d is %d\n", rank, 4 + rank, last);
  MPI_Barrier(MPI_COMM_WORLD);

  // Nonblocking: write the header, each rank its own int, then read it back.
  MPI_Request request;
  int value = 7000 + rank;
  if (rank < 4) {
    check("iwrite_at", MPI_File_iwrite_at(fh, rank, &value, 1, MPI_INT, &request));
    MPI_Wait(&request, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    printf("rank %d: iwrite_at moved %d\n", rank, count);
  }
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);
  int headerValues[4];
  check("iread_at_all", MPI_File_iread_at_all(fh, 0, headerValues, 4, MPI_INT, &request));
  MPI_Wait(&request, &status);
  printf("rank %d: header %d %d %d %d\n", rank, headerValues[0], headerValues[1],
         headerValues[2], headerValues[3]);

  // Split collective read.
  int first[2];
  MPI_File_seek(fh, 0, MPI_SEEK_SET);
  check("read_all_begin", MPI_File_read_all_begin(fh, first, 2, MPI_INT));
  check("read_all_end", MPI_File_read_all_end(fh, first, &status));
  MPI_Get_count(&status, MPI_INT, &count);
  printf("rank %d: split read %d ints: %d %d\n", rank, count, first[0], first[1]);
  MPI_Barrier(MPI_COMM_WORLD);

  // Sizes, as rank 0 sees them: OpenMPI 4.1.4's ompio gives other ranks
  // stale sizes after MPI_File_set_size here, barrier or not.
  check("set_size", MPI_File_set_size(fh, 40));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset fileSize;
  MPI_File_get_size(fh, &fileSize);
  if (rank == 0) printf("size after set_size %lld\n", (long long)fileSize);
  check("preallocate", MPI_File_preallocate(fh, 64));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_get_size(fh, &fileSize);
  if (rank == 0) printf("size after preallocate %lld\n", (long long)fileSize);
  check("close", MPI_File_close(&fh));
  printf("rank %d: closed, handle null %d\n", rank, fh == MPI_FILE_NULL);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) check("delete", MPI_File_delete(path, MPI_INFO_NULL));

  MPI_Type_free(&filetype);
  MPI_Type_free(&strided);
  MPI_Finalize();
  return 0;
}
