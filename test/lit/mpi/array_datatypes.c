// MPI_Type_create_subarray (C and Fortran order), MPI_Type_create_darray
// (block, cyclic(k) and none over a 2-D process grid) and
// MPI_Type_create_hindexed_block: each rank packs a numbered global array
// through its type and rank 0 prints every rank's elements in type-map
// order, with the types' size, extent and envelope; a subarray is
// also used to receive into a matrix. MPI_Type_set_name/get_name on
// predefined and derived types. Compared with OpenMPI at 2, 4 and 5 ranks.
// RUN: %mpi-diff %s %t 2 4 5
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { kMaxElements = 512, kMaxRanks = 8 };

static int rank, size;

// Packs `global` through `type` and prints, on rank 0, each rank's elements.
static void show(const char* label, MPI_Datatype type, const int* global) {
  int packedSize, position = 0, count;
  MPI_Aint lb, extent;
  int typeSize;
  int packed[kMaxElements];
  MPI_Type_size(type, &typeSize);
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Pack_size(1, type, MPI_COMM_WORLD, &packedSize);
  MPI_Pack(global, 1, type, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
  count = position / (int)sizeof(int);
  int all[kMaxElements * kMaxRanks];
  int counts[kMaxRanks];
  MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(packed, kMaxElements, MPI_INT, all, kMaxElements, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  printf("%s: size %d lb %ld extent %ld\n", label, typeSize, (long)lb, (long)extent);
  for (int r = 0; r < size; ++r) {
    printf("  rank %d:", r);
    for (int i = 0; i < counts[r]; ++i) printf(" %d", all[r * kMaxElements + i]);
    printf("\n");
  }
}

// The envelope: each MPI numbers its combiners its own way, so the combiner
// is compared with the constant. (OpenMPI 4.1 crashes in
// MPI_Type_get_contents on these types, so the contents are not compared.)
static void showEnvelope(const char* label, MPI_Datatype type, int expectedCombiner) {
  int ni, na, nt, combiner;
  MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner);
  if (rank == 0)
    printf("%s: expected combiner %d, %d integers %d addresses %d types\n", label,
           combiner == expectedCombiner, ni, na, nt);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > kMaxRanks) {  // the arrays below hold kMaxRanks ranks
    if (rank == 0) printf("run at most %d ranks\n", kMaxRanks);
    MPI_Finalize();
    return 0;
  }
  int global[kMaxElements];
  for (int i = 0; i < kMaxElements; ++i) global[i] = i;

  // A 3x4 box at (1, 2 + rank % 2) in a 6x8 array, both orders; and 3-D.
  int sizes[3] = {6, 8, 5}, subsizes[3] = {3, 4, 2}, starts[3] = {1, 2 + rank % 2, 3};
  MPI_Datatype boxC, boxF, box3;
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &boxC);
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &boxF);
  MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &box3);
  MPI_Type_commit(&boxC);
  MPI_Type_commit(&boxF);
  MPI_Type_commit(&box3);
  show("subarray C", boxC, global);
  show("subarray Fortran", boxF, global);
  show("subarray 3-D", box3, global);
  showEnvelope("subarray C", boxC, MPI_COMBINER_SUBARRAY);

  // Darrays over the grid MPI_Dims_create makes: size x 1, or 2 x 2 at 4.
  int psizes[2] = {0, 0};
  MPI_Dims_create(size, 2, psizes);
  int gsizes[2] = {7, 10};
  int blockBlock[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  int cyclicNone[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  int defaults[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  int cyclic2[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Datatype blocks, cyclic, blocksF;
  MPI_Type_create_darray(size, rank, 2, gsizes, blockBlock, defaults, psizes, MPI_ORDER_C,
                         MPI_INT, &blocks);
  MPI_Type_create_darray(size, rank, 2, gsizes, cyclicNone, cyclic2, psizes, MPI_ORDER_C,
                         MPI_INT, &cyclic);
  MPI_Type_create_darray(size, rank, 2, gsizes, blockBlock, defaults, psizes,
                         MPI_ORDER_FORTRAN, MPI_INT, &blocksF);
  MPI_Type_commit(&blocks);
  MPI_Type_commit(&cyclic);
  MPI_Type_commit(&blocksF);
  show("darray block-block C", blocks, global);
  show("darray cyclic(2)-block C", cyclic, global);
  show("darray block-block Fortran", blocksF, global);
  int none[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
  int one[2] = {1, size};
  MPI_Datatype columns;
  MPI_Type_create_darray(size, rank, 2, gsizes, none, defaults, one, MPI_ORDER_C, MPI_INT,
                         &columns);
  MPI_Type_commit(&columns);
  show("darray none-cyclic C", columns, global);
  showEnvelope("darray", columns, MPI_COMBINER_DARRAY);

  // Equal blocks at byte displacements.
  MPI_Aint displs[3] = {4 * (int)sizeof(int), 0, 11 * (int)sizeof(int)};
  MPI_Datatype hblocks;
  MPI_Type_create_hindexed_block(3, 2 + rank % 2, displs, MPI_INT, &hblocks);
  MPI_Type_commit(&hblocks);
  show("hindexed_block", hblocks, global);
  showEnvelope("hindexed_block", hblocks, MPI_COMBINER_HINDEXED_BLOCK);

  // Receive a row of 12 values into rank 0's box.
  if (size >= 2) {
    int matrix[48];
    memset(matrix, 0, sizeof matrix);
    if (rank == 1) MPI_Send(global + 100, 12, MPI_INT, 0, 7, MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Recv(matrix, 1, boxC, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int r = 0; r < 6; ++r) {
        printf("row %d:", r);
        for (int c = 0; c < 8; ++c) printf(" %3d", matrix[r * 8 + c]);
        printf("\n");
      }
    }
  }

  // Names.
  char name[MPI_MAX_OBJECT_NAME];
  int length;
  MPI_Type_get_name(MPI_DOUBLE, name, &length);
  if (rank == 0) printf("MPI_DOUBLE is named '%s' (%d)\n", name, length);
  MPI_Type_get_name(boxC, name, &length);
  if (rank == 0) printf("a new type is named '%s' (%d)\n", name, length);
  MPI_Type_set_name(boxC, "box");
  MPI_Type_get_name(boxC, name, &length);
  if (rank == 0) printf("renamed: '%s' (%d)\n", name, length);
  MPI_Type_set_name(MPI_INT, "integer");
  MPI_Type_get_name(MPI_INT, name, &length);
  if (rank == 0) printf("MPI_INT renamed: '%s' (%d)\n", name, length);

  MPI_Type_free(&boxC);
  MPI_Type_free(&boxF);
  MPI_Type_free(&box3);
  MPI_Type_free(&blocks);
  MPI_Type_free(&cyclic);
  MPI_Type_free(&blocksF);
  MPI_Type_free(&columns);
  MPI_Type_free(&hblocks);
  MPI_Finalize();
  return 0;
}
