// The "external32" data representation of MPI_File_set_view (MPI-3.1
// §13.5.2) against OpenMPI's: the file holds every element big-endian at
// its fixed external32 size, whatever the host's order. Each rank writes
// ints at its own displacement, shorts through a strided filetype that
// interleaves the ranks, doubles, and a struct of a char, an int and a
// float, all collectively; rank 0 then dumps the file's bytes through a
// native view, and every rank reads its data back through the external32
// view, and through a native view sees the bytes swapped. get_view names
// the representation; get_type_extent gives memory extents, as OpenMPI's
// does, for types without MPI_AINT (file_external32_aint.c has those).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d %s %t 1 2 3
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { kShortsBase = 64, kDoublesBase = 128, kStructBase = 192, kFileBytes = 256 };

struct Record {
  char tag;
  int count;
  float weight;
};

static void check(int rank, const char* what, int result) {
  if (result != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length;
    MPI_Error_string(result, text, &length);
    printf("rank %d: %s failed: %s\n", rank, what, text);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  snprintf(path, sizeof path, "%s/external32.dat", argc > 1 ? argv[1] : ".");
  MPI_File fh;
  check(rank, "open",
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  // Three ints at rank * 12.
  int ints[3] = {0x01020304 + rank, -2 - rank, rank};
  check(rank, "set_view ints",
        MPI_File_set_view(fh, rank * 12, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  MPI_Offset disp;
  MPI_Datatype etype, filetype;
  char datarep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &etype, &filetype, datarep);
  printf("rank %d: view disp %lld datarep %s\n", rank, (long long)disp, datarep);
  check(rank, "write ints", MPI_File_write_all(fh, ints, 3, MPI_INT, MPI_STATUS_IGNORE));

  // Two shorts a rank, interleaved: rank r owns shorts r and size + r.
  MPI_Datatype strided;
  MPI_Type_vector(2, 1, size, MPI_SHORT, &strided);
  MPI_Type_commit(&strided);
  short shorts[2] = {(short)(0x0a0b + rank), (short)(-300 - rank)};
  check(rank, "set_view shorts",
        MPI_File_set_view(fh, kShortsBase + rank * 2, MPI_SHORT, strided, "external32",
                          MPI_INFO_NULL));
  check(rank, "write shorts",
        MPI_File_write_at_all(fh, 0, shorts, 2, MPI_SHORT, MPI_STATUS_IGNORE));

  // Two doubles at kDoublesBase + rank * 16.
  double doubles[2] = {1.5 + rank, -0.25 * (rank + 1)};
  check(rank, "set_view doubles",
        MPI_File_set_view(fh, kDoublesBase + rank * 16, MPI_DOUBLE, MPI_DOUBLE, "external32",
                          MPI_INFO_NULL));
  check(rank, "write doubles", MPI_File_write_all(fh, doubles, 2, MPI_DOUBLE, MPI_STATUS_IGNORE));

  // A struct written as its bytes' elements: char, int, float (9 bytes in
  // the file, the memory's padding dropped), from a buffer of MPI_BYTE etype.
  int lengths[3] = {1, 1, 1};
  MPI_Aint displacements[3] = {offsetof(struct Record, tag), offsetof(struct Record, count),
                               offsetof(struct Record, weight)};
  MPI_Datatype members[3] = {MPI_CHAR, MPI_INT, MPI_FLOAT};
  MPI_Datatype record;
  MPI_Type_create_struct(3, lengths, displacements, members, &record);
  MPI_Type_commit(&record);
  struct Record mine = {(char)('A' + rank), 1000 * (rank + 1), 0.5f + rank};
  check(rank, "set_view bytes",
        MPI_File_set_view(fh, kStructBase + rank * 9, MPI_BYTE, MPI_BYTE, "external32",
                          MPI_INFO_NULL));
  check(rank, "write record", MPI_File_write_all(fh, &mine, 1, record, MPI_STATUS_IGNORE));
  MPI_Aint extent;
  MPI_File_get_type_extent(fh, record, &extent);
  printf("rank %d: file extents: record %ld", rank, (long)extent);
  MPI_File_get_type_extent(fh, strided, &extent);
  printf(" strided %ld\n", (long)extent);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);

  // The file's bytes, as a native view of bytes sees them.
  check(rank, "set_view native",
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  if (rank == 0) {
    unsigned char bytes[kFileBytes];
    MPI_Status status;
    check(rank, "read bytes", MPI_File_read_at(fh, 0, bytes, kFileBytes, MPI_BYTE, &status));
    int got;
    MPI_Get_count(&status, MPI_BYTE, &got);
    for (int line = 0; line < got; line += 16) {
      int nonzero = 0;
      for (int i = line; i < line + 16 && i < got; ++i) nonzero |= bytes[i];
      if (!nonzero) continue;
      printf("%4d:", line);
      for (int i = line; i < line + 16 && i < got; ++i) printf(" %02x", bytes[i]);
      printf("\n");
    }
  }
  // An int through the native view: the external32 bytes, unswapped.
  int raw;
  check(rank, "read raw", MPI_File_read_at(fh, rank * 12, &raw, 4, MPI_BYTE, MPI_STATUS_IGNORE));
  printf("rank %d: native view of the first int: %08x\n", rank, (unsigned)raw);

  // Back through external32 views.
  int intsBack[3] = {0};
  check(rank, "set_view ints again",
        MPI_File_set_view(fh, rank * 12, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  check(rank, "read ints", MPI_File_read_all(fh, intsBack, 3, MPI_INT, MPI_STATUS_IGNORE));
  short shortsBack[2] = {0};
  check(rank, "set_view shorts again",
        MPI_File_set_view(fh, kShortsBase + rank * 2, MPI_SHORT, strided, "external32",
                          MPI_INFO_NULL));
  check(rank, "read shorts",
        MPI_File_read_at_all(fh, 0, shortsBack, 2, MPI_SHORT, MPI_STATUS_IGNORE));
  double doublesBack[2] = {0};
  check(rank, "set_view doubles again",
        MPI_File_set_view(fh, kDoublesBase + rank * 16, MPI_DOUBLE, MPI_DOUBLE, "external32",
                          MPI_INFO_NULL));
  check(rank, "read doubles", MPI_File_read_all(fh, doublesBack, 2, MPI_DOUBLE, MPI_STATUS_IGNORE));
  struct Record back;
  memset(&back, 0, sizeof back);
  check(rank, "set_view bytes again",
        MPI_File_set_view(fh, kStructBase + rank * 9, MPI_BYTE, MPI_BYTE, "external32",
                          MPI_INFO_NULL));
  check(rank, "read record", MPI_File_read_all(fh, &back, 1, record, MPI_STATUS_IGNORE));
  printf("rank %d: ints %d %d %d shorts %d %d doubles %g %g record %c %d %g\n", rank, intsBack[0],
         intsBack[1], intsBack[2], shortsBack[0], shortsBack[1], doublesBack[0], doublesBack[1],
         back.tag, back.count, back.weight);

  MPI_Type_free(&strided);
  MPI_Type_free(&record);
  check(rank, "close", MPI_File_close(&fh));
  MPI_Finalize();
  return 0;
}
