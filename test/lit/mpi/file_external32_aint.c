// External32 file views of MPI_AINT (MPI-3.1 §13.5) against OpenMPI's. A
// granule's MPI_AINT is 4 bytes and external32's is 8, so every element
// widens on its way to the file and narrows back, and a view's types are
// laid out in the file's terms: element-count displacements step by 8
// bytes, byte displacements are taken as given. OpenMPI's MPI_AINT is 8
// bytes natively, so the file it writes is the reference. Each rank writes
// MPI_AINTs through contiguous, vector, indexed, hvector, subarray, darray,
// resized indexed-block and hindexed-block-of-a-duplicate filetypes, and records of an int and an MPI_Aint through a byte
// view and through a struct filetype with a hole; rank 0 dumps the file's
// bytes through a native view, and every rank reads its data back, prints
// file extents and byte offsets, reads past the end of the file (the
// status counts the MPI_AINTs read) and seeks to the end. (OpenMPI 4.1
// gets the file extent of an uncommitted type and of a duplicate wrong,
// so only committed filetypes' extents are printed.) Values are
// printed, never native sizes, which differ. Filetypes that leave holes in
// the file are written independently: OpenMPI's collective writes at np 3
// fill such holes with stray bytes.
// On Synergy alone: a type nested 60 constructors deep over MPI_AINT is
// laid out, one nested 70 deep is refused with MPI_ERR_TYPE (the recipe is
// the guest's; OpenMPI has no such bound).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %mpi-diff --run-option=--dir --run-option=%t.d --arg %t.d %s %t 1 2 3 4
// RUN: %synergy-cc %s -o %t.deep.wasm
// RUN: %synergy-run --dir %t.d %t.deep.wasm %t.d deep | FileCheck %s --check-prefix=DEEP
// DEEP: nested 60: set_view 0 write 0 read 0 value -77
// DEEP-NEXT: nested 70: set_view MPI_ERR_TYPE 1
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum {
  kMaxRanks = 8,
  kContiguousBase = 0,    // 3 a rank, 24 bytes a rank
  kVectorBase = 256,      // 2 a rank, interleaved
  kRecordBase = 512,      // 2 records of 12 bytes a rank
  kHoleBase = 768,        // 2 records in 16-byte tiles, 32 bytes a rank
  kIndexedBase = 1024,    // 3 a rank in 5-element tiles, 40 bytes a rank
  kHvectorBase = 1408,    // 2 a rank, 16 bytes apart, 32 bytes a rank
  kSubarrayBase = 1792,   // column `rank` of a 4 x size array
  kDarrayBase = 2112,     // cyclic blocks of 2 over 4 * size elements
  kResizedBase = 2432,    // 2 a rank in a 40-byte tile
  kBlocksBase = 2752,     // 2 a rank at bytes 0 and 24 of a 32-byte tile
  kFileBytes = 3072,
};

struct Record {
  int id;
  MPI_Aint where;
};

static int rank, size;

static void check(const char* what, int result) {
  if (result != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length;
    MPI_Error_string(result, text, &length);
    printf("rank %d: %s failed: %s\n", rank, what, text);
  }
}

static void setView(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                    const char* what) {
  check(what, MPI_File_set_view(fh, disp, etype, filetype, "external32", MPI_INFO_NULL));
}

// Contiguous types of one MPI_AINT nested `depth` deep.
static MPI_Datatype nestedAint(int depth) {
  MPI_Datatype type = MPI_AINT;
  for (int i = 0; i < depth; ++i) {
    MPI_Datatype outer;
    MPI_Type_contiguous(1, type, &outer);
    type = outer;
  }
  MPI_Type_commit(&type);
  return type;
}

static void nestedViews(MPI_File fh) {
  MPI_Datatype nested = nestedAint(60);
  MPI_Aint value = -77, back = 0;
  int setView = MPI_File_set_view(fh, 0, MPI_AINT, nested, "external32", MPI_INFO_NULL);
  int write = MPI_File_write_at(fh, 0, &value, 1, MPI_AINT, MPI_STATUS_IGNORE);
  int read = MPI_File_read_at(fh, 0, &back, 1, MPI_AINT, MPI_STATUS_IGNORE);
  printf("nested 60: set_view %d write %d read %d value %ld\n", setView, write, read, (long)back);
  nested = nestedAint(70);
  int errorClass;
  MPI_Error_class(MPI_File_set_view(fh, 0, MPI_AINT, nested, "external32", MPI_INFO_NULL),
                  &errorClass);
  printf("nested 70: set_view MPI_ERR_TYPE %d\n", errorClass == MPI_ERR_TYPE);
}

static void printAints(const char* what, const MPI_Aint* values, int n) {
  printf("rank %d: %s", rank, what);
  for (int i = 0; i < n; ++i) printf(" %lld", (long long)values[i]);
  printf("\n");
}

static void printExtent(MPI_File fh, const char* what, MPI_Datatype type) {
  MPI_Aint extent;
  check("get_type_extent", MPI_File_get_type_extent(fh, type, &extent));
  printf("rank %d: file extent of %s %ld\n", rank, what, (long)extent);
}

static void printByteOffset(MPI_File fh, const char* what, MPI_Offset offset) {
  MPI_Offset byte;
  check("get_byte_offset", MPI_File_get_byte_offset(fh, offset, &byte));
  printf("rank %d: %s: etype %lld at byte %lld\n", rank, what, (long long)offset, (long long)byte);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > kMaxRanks) {
    if (rank == 0) printf("at most %d ranks\n", kMaxRanks);
    MPI_Finalize();
    return 0;
  }
  char path[512];
  snprintf(path, sizeof path, "%s/external32-aint.dat", argc > 1 ? argv[1] : ".");
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  check("open",
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  if (argc > 2 && !strcmp(argv[2], "deep")) {
    nestedViews(fh);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
  }
  MPI_Status status;
  int count;

  // Contiguous: three MPI_AINTs at rank * 24, one negative.
  MPI_Aint contiguous[3] = {0x01020304 + rank, -5 - rank, 100000 * rank};
  setView(fh, kContiguousBase + rank * 24, MPI_AINT, MPI_AINT, "set_view contiguous");
  check("write contiguous", MPI_File_write_all(fh, contiguous, 3, MPI_AINT, &status));
  MPI_Get_count(&status, MPI_AINT, &count);
  MPI_Offset position;
  MPI_File_get_position(fh, &position);
  printf("rank %d: wrote %d, position %lld\n", rank, count, (long long)position);
  printByteOffset(fh, "contiguous", 2);
  printExtent(fh, "MPI_AINT", MPI_AINT);

  // Vector: rank r owns MPI_AINTs r and size + r.
  MPI_Datatype vector;
  MPI_Type_vector(2, 1, size, MPI_AINT, &vector);
  MPI_Type_commit(&vector);
  MPI_Aint strided[2] = {1000 + rank, -2000 - rank};
  setView(fh, kVectorBase + rank * 8, MPI_AINT, vector, "set_view vector");
  check("write vector", MPI_File_write_at_all(fh, 0, strided, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the vector", vector);
  printByteOffset(fh, "vector", 1);
  MPI_Offset disp;
  MPI_Datatype etype, filetype;
  char datarep[MPI_MAX_DATAREP_STRING];
  MPI_File_get_view(fh, &disp, &etype, &filetype, datarep);
  printf("rank %d: view disp %lld datarep %s etype MPI_AINT %d\n", rank, (long long)disp,
         datarep, etype == MPI_AINT);
  MPI_Type_free(&filetype);

  // Records of an int and an MPI_Aint, 12 bytes each in the file whatever
  // memory's padding, through a byte view.
  int lengths[2] = {1, 1};
  MPI_Aint offsets[2] = {offsetof(struct Record, id), offsetof(struct Record, where)};
  MPI_Datatype members[2] = {MPI_INT, MPI_AINT};
  MPI_Datatype record;
  MPI_Type_create_struct(2, lengths, offsets, members, &record);
  MPI_Type_commit(&record);
  struct Record records[2] = {{10 + rank, -(MPI_Aint)(70000 + rank)}, {20 + rank, 0x7fff0000 + rank}};
  setView(fh, kRecordBase + rank * 24, MPI_BYTE, MPI_BYTE, "set_view records");
  check("write records", MPI_File_write_all(fh, records, 2, record, &status));
  MPI_Get_count(&status, record, &count);
  int elements;
  MPI_Get_elements(&status, record, &elements);
  printf("rank %d: wrote %d records, %d elements\n", rank, count, elements);
  printExtent(fh, "a record in a byte view", record);

  // The same records through a struct filetype whose MPI_Aint sits at
  // byte 8 of the file's 16-byte tile, after a 4-byte hole.
  MPI_Aint fileOffsets[2] = {0, 8};
  MPI_Datatype withHole;
  MPI_Type_create_struct(2, lengths, fileOffsets, members, &withHole);
  MPI_Type_commit(&withHole);
  setView(fh, kHoleBase + rank * 32, MPI_BYTE, withHole, "set_view hole");
  check("write hole", MPI_File_write(fh, records, 2, record, MPI_STATUS_IGNORE));
  printExtent(fh, "the struct filetype", withHole);
  printByteOffset(fh, "hole", 13);

  // Indexed: elements 0, 3 and 4 of every 5-element tile.
  int blocks[2] = {1, 2}, displacements[2] = {0, 3};
  MPI_Datatype indexed;
  MPI_Type_indexed(2, blocks, displacements, MPI_AINT, &indexed);
  MPI_Type_commit(&indexed);
  MPI_Aint picked[3] = {300 + rank, -400 - rank, 500 + rank};
  setView(fh, kIndexedBase + rank * 40, MPI_AINT, indexed, "set_view indexed");
  check("write indexed", MPI_File_write(fh, picked, 3, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the indexed type", indexed);
  printByteOffset(fh, "indexed", 2);

  // Hvector: a byte stride, taken as the file's.
  MPI_Datatype hvector;
  MPI_Type_create_hvector(2, 1, 16, MPI_AINT, &hvector);
  MPI_Type_commit(&hvector);
  MPI_Aint spaced[2] = {-600 - rank, 700 + rank};
  setView(fh, kHvectorBase + rank * 32, MPI_AINT, hvector, "set_view hvector");
  check("write hvector", MPI_File_write(fh, spaced, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the hvector", hvector);

  // Subarray: column `rank` of a 4 x size array of MPI_AINTs.
  int sizes[2] = {4, size}, subsizes[2] = {4, 1}, starts[2] = {0, rank};
  MPI_Datatype column;
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_AINT, &column);
  MPI_Type_commit(&column);
  MPI_Aint columnValues[4] = {rank, -10 - rank, 20 + rank, -30 - rank};
  setView(fh, kSubarrayBase, MPI_AINT, column, "set_view subarray");
  check("write subarray", MPI_File_write_all(fh, columnValues, 4, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the subarray", column);
  printByteOffset(fh, "subarray", 3);

  // Darray: blocks of 2 dealt cyclically over 4 * size MPI_AINTs.
  int gsizes[1] = {4 * size}, distribs[1] = {MPI_DISTRIBUTE_CYCLIC}, dargs[1] = {2},
      psizes[1] = {size};
  MPI_Datatype dealt;
  MPI_Type_create_darray(size, rank, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_AINT,
                         &dealt);
  MPI_Type_commit(&dealt);
  MPI_Aint dealtValues[4] = {-(MPI_Aint)rank - 1, 40 + rank, -50 - rank, 60 + rank};
  setView(fh, kDarrayBase, MPI_AINT, dealt, "set_view darray");
  check("write darray", MPI_File_write_all(fh, dealtValues, 4, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the darray", dealt);
  printByteOffset(fh, "darray", 2);

  // Resized: elements 0 and 2 of an indexed block, in a tile whose bytes
  // are given.
  int blockDisplacements[2] = {0, 2};
  MPI_Datatype indexedBlock, resized;
  MPI_Type_create_indexed_block(2, 1, blockDisplacements, MPI_AINT, &indexedBlock);
  MPI_Type_create_resized(indexedBlock, 0, 40, &resized);
  MPI_Type_commit(&resized);
  MPI_Aint resizedValues[2] = {800 + rank, -900 - rank};
  setView(fh, kResizedBase + rank * 40, MPI_AINT, resized, "set_view resized");
  check("write resized", MPI_File_write(fh, resizedValues, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the resized type", resized);
  printByteOffset(fh, "resized", 1);

  // Hindexed block of a duplicate of MPI_AINT, at bytes 0 and 24.
  MPI_Aint byteDisplacements[2] = {0, 24};
  MPI_Datatype aintCopy, hindexedBlock;
  MPI_Type_dup(MPI_AINT, &aintCopy);
  MPI_Type_create_hindexed_block(2, 1, byteDisplacements, aintCopy, &hindexedBlock);
  MPI_Type_commit(&hindexedBlock);
  MPI_Aint blockValues[2] = {-1100 - rank, 1200 + rank};
  setView(fh, kBlocksBase + rank * 32, MPI_AINT, hindexedBlock, "set_view hindexed block");
  check("write hindexed block",
        MPI_File_write(fh, blockValues, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printExtent(fh, "the hindexed block", hindexedBlock);

  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(fh);

  // The file's bytes, as a native view of bytes sees them.
  check("set_view native", MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  if (rank == 0) {
    static unsigned char bytes[kFileBytes];
    check("read bytes", MPI_File_read_at(fh, 0, bytes, kFileBytes, MPI_BYTE, &status));
    MPI_Get_count(&status, MPI_BYTE, &count);
    printf("file: %d bytes\n", count);
    for (int line = 0; line < count; line += 16) {
      int nonzero = 0;
      for (int i = line; i < line + 16 && i < count; ++i) nonzero |= bytes[i];
      if (!nonzero) continue;
      printf("%4d:", line);
      for (int i = line; i < line + 16 && i < count; ++i) printf(" %02x", bytes[i]);
      printf("\n");
    }
  }

  // Everything back through the external32 views.
  MPI_Aint back[4];
  memset(back, 0, sizeof back);
  setView(fh, kContiguousBase + rank * 24, MPI_AINT, MPI_AINT, "set_view contiguous again");
  check("read contiguous", MPI_File_read_all(fh, back, 3, MPI_AINT, &status));
  MPI_Get_count(&status, MPI_AINT, &count);
  printf("rank %d: read %d contiguous\n", rank, count);
  printAints("contiguous", back, 3);
  memset(back, 0, sizeof back);
  setView(fh, kVectorBase + rank * 8, MPI_AINT, vector, "set_view vector again");
  check("read vector", MPI_File_read_at_all(fh, 0, back, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("vector", back, 2);
  struct Record recordsBack[2];
  memset(recordsBack, 0, sizeof recordsBack);
  setView(fh, kRecordBase + rank * 24, MPI_BYTE, MPI_BYTE, "set_view records again");
  check("read records", MPI_File_read_all(fh, recordsBack, 2, record, MPI_STATUS_IGNORE));
  printf("rank %d: records %d %lld %d %lld\n", rank, recordsBack[0].id,
         (long long)recordsBack[0].where, recordsBack[1].id, (long long)recordsBack[1].where);
  memset(recordsBack, 0, sizeof recordsBack);
  setView(fh, kHoleBase + rank * 32, MPI_BYTE, withHole, "set_view hole again");
  check("read hole", MPI_File_read_all(fh, recordsBack, 2, record, MPI_STATUS_IGNORE));
  printf("rank %d: records through the hole %d %lld %d %lld\n", rank, recordsBack[0].id,
         (long long)recordsBack[0].where, recordsBack[1].id, (long long)recordsBack[1].where);
  memset(back, 0, sizeof back);
  setView(fh, kIndexedBase + rank * 40, MPI_AINT, indexed, "set_view indexed again");
  check("read indexed", MPI_File_read_all(fh, back, 3, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("indexed", back, 3);
  memset(back, 0, sizeof back);
  setView(fh, kHvectorBase + rank * 32, MPI_AINT, hvector, "set_view hvector again");
  check("read hvector", MPI_File_read_all(fh, back, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("hvector", back, 2);
  memset(back, 0, sizeof back);
  setView(fh, kSubarrayBase, MPI_AINT, column, "set_view subarray again");
  check("read subarray", MPI_File_read_all(fh, back, 4, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("subarray", back, 4);
  memset(back, 0, sizeof back);
  setView(fh, kDarrayBase, MPI_AINT, dealt, "set_view darray again");
  check("read darray", MPI_File_read_all(fh, back, 4, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("darray", back, 4);
  memset(back, 0, sizeof back);
  setView(fh, kResizedBase + rank * 40, MPI_AINT, resized, "set_view resized again");
  check("read resized", MPI_File_read(fh, back, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("resized", back, 2);
  memset(back, 0, sizeof back);
  setView(fh, kBlocksBase + rank * 32, MPI_AINT, hindexedBlock, "set_view hindexed block again");
  check("read hindexed block", MPI_File_read(fh, back, 2, MPI_AINT, MPI_STATUS_IGNORE));
  printAints("hindexed block", back, 2);

  // Past the end: the last two MPI_AINTs of the file, then nothing; the
  // status counts MPI_AINTs, and the end is two etypes on.
  MPI_Offset fileSize;
  MPI_File_get_size(fh, &fileSize);
  memset(back, 0, sizeof back);
  setView(fh, fileSize - 16, MPI_AINT, MPI_AINT, "set_view end");
  check("read end", MPI_File_read(fh, back, 4, MPI_AINT, &status));
  MPI_Get_count(&status, MPI_AINT, &count);
  printf("rank %d: read %d at the end\n", rank, count);
  printAints("end", back, count);
  check("seek end", MPI_File_seek(fh, 0, MPI_SEEK_END));
  MPI_File_get_position(fh, &position);
  printf("rank %d: end at etype %lld\n", rank, (long long)position);

  // MPI_Pack_external of the records: the same 24 bytes.
  MPI_Aint packedSize, at = 0;
  unsigned char packed[64];
  MPI_Pack_external_size("external32", 2, record, &packedSize);
  check("pack_external",
        MPI_Pack_external("external32", records, 2, record, packed, sizeof packed, &at));
  printf("rank %d: packed %ld of %ld:", rank, (long)at, (long)packedSize);
  for (int i = 0; i < at; ++i) printf(" %02x", packed[i]);
  printf("\n");

  MPI_Type_free(&vector);
  MPI_Type_free(&record);
  MPI_Type_free(&withHole);
  MPI_Type_free(&indexed);
  MPI_Type_free(&hvector);
  MPI_Type_free(&column);
  MPI_Type_free(&dealt);
  MPI_Type_free(&indexedBlock);
  MPI_Type_free(&resized);
  MPI_Type_free(&aintCopy);
  MPI_Type_free(&hindexedBlock);
  check("close", MPI_File_close(&fh));
  MPI_Finalize();
  return 0;
}
