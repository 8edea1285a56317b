// MPI_Type_get_envelope and MPI_Type_get_contents for every constructor:
// the combiner, the integers, addresses and old types each was built from,
// walked recursively through derived old types. (OpenMPI 4.1 writes past
// the arrays when the maxima exceed the envelope's counts, so the test
// passes them exactly.)
// RUN: %mpi-diff %s %t 1
// A predefined type has no contents: erroneous in MPI, refused by name here
// (OpenMPI's class is MPI_ERR_INTERN), and nothing after the call runs.
// RUN: not %synergy-run -np 1 %t/granule.wasm predefined > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: synergy-run: rank 0: MPI_Type_get_contents: a predefined datatype has no contents (MPI_ERR_TYPE)
// CHECK-NOT: not reached
#include <mpi.h>
#include <stdio.h>
#include <string.h>

// Combiner values differ between implementations; their names do not.
static const char* combiner_name(int combiner) {
  switch (combiner) {
    case MPI_COMBINER_NAMED: return "named";
    case MPI_COMBINER_DUP: return "dup";
    case MPI_COMBINER_CONTIGUOUS: return "contiguous";
    case MPI_COMBINER_VECTOR: return "vector";
    case MPI_COMBINER_HVECTOR: return "hvector";
    case MPI_COMBINER_INDEXED: return "indexed";
    case MPI_COMBINER_HINDEXED: return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
    case MPI_COMBINER_STRUCT: return "struct";
    case MPI_COMBINER_RESIZED: return "resized";
    default: return "other";
  }
}

static void describe(MPI_Datatype type, int depth) {
  int ni, na, nd, combiner;
  MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  printf("%*s%s, %d integers, %d addresses, %d types\n", 2 * depth, "", combiner_name(combiner),
         ni, na, nd);
  if (combiner == MPI_COMBINER_NAMED) {
    printf("%*snamed: int %d double %d char %d\n", 2 * depth, "", type == MPI_INT,
           type == MPI_DOUBLE, type == MPI_CHAR);
    return;
  }
  int ints[16];
  MPI_Aint addrs[16];
  MPI_Datatype types[16];
  MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types);
  printf("%*sintegers", 2 * depth, "");
  for (int i = 0; i < ni; ++i) printf(" %d", ints[i]);
  printf(", addresses");
  for (int i = 0; i < na; ++i) printf(" %ld", (long)addrs[i]);
  printf("\n");
  for (int i = 0; i < nd; ++i) describe(types[i], depth + 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype contiguous, vector, hvector, indexed, hindexed, block, structure, resized, dup;
  MPI_Type_contiguous(3, MPI_INT, &contiguous);
  MPI_Type_vector(2, 3, 5, contiguous, &vector);
  MPI_Type_create_hvector(4, 1, 24, MPI_DOUBLE, &hvector);
  int lengths[3] = {1, 2, 3}, displs[3] = {0, 4, 9};
  MPI_Type_indexed(3, lengths, displs, MPI_INT, &indexed);
  MPI_Aint hdispls[3] = {0, 16, 40};
  MPI_Type_create_hindexed(3, lengths, hdispls, MPI_DOUBLE, &hindexed);
  MPI_Type_create_indexed_block(3, 2, displs, MPI_CHAR, &block);
  MPI_Datatype members[3] = {MPI_CHAR, vector, MPI_DOUBLE};
  MPI_Type_create_struct(3, lengths, hdispls, members, &structure);
  MPI_Type_create_resized(indexed, -4, 64, &resized);
  MPI_Type_dup(structure, &dup);
  MPI_Type_commit(&dup);
  MPI_Datatype all[9] = {contiguous, vector, hvector, indexed, hindexed, block, structure,
                         resized, dup};
  for (int i = 0; i < 9; ++i) MPI_Type_commit(&all[i]);
  for (int i = 0; i < 9; ++i) {
    printf("type %d:\n", i);
    describe(all[i], 1);
  }
  describe(MPI_INT, 0);
  if (argc > 1 && strcmp(argv[1], "predefined") == 0) {
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_Type_get_contents(MPI_INT, 1, 1, 1, ints, addrs, types);
    printf("not reached\n");
  }
  for (int i = 0; i < 9; ++i) MPI_Type_free(&all[i]);
  MPI_Finalize();
  return 0;
}
