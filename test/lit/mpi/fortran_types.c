// Fortran's and C++'s named datatypes used from C: their sizes and extents
// (4-byte default INTEGER, REAL and LOGICAL), reductions over them where MPI
// defines them (sums of INTEGERn, REALn and COMPLEX, logical ops over
// LOGICAL, MPI_MAXLOC over MPI_2INTEGER), point-to-point of CHARACTER, and
// MPI_Type_match_size, whose answers have the size asked for; a size no type
// has is MPI_ERR_ARG.
// RUN: %mpi-diff %s %t 2 3
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static void sizes(void) {
  struct named {
    const char* name;
    MPI_Datatype type;
  } types[] = {
      {"MPI_INTEGER", MPI_INTEGER},
      {"MPI_REAL", MPI_REAL},
      {"MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION},
      {"MPI_COMPLEX", MPI_COMPLEX},
      {"MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX},
      {"MPI_LOGICAL", MPI_LOGICAL},
      {"MPI_CHARACTER", MPI_CHARACTER},
      {"MPI_INTEGER1", MPI_INTEGER1},
      {"MPI_INTEGER2", MPI_INTEGER2},
      {"MPI_INTEGER4", MPI_INTEGER4},
      {"MPI_INTEGER8", MPI_INTEGER8},
      {"MPI_REAL4", MPI_REAL4},
      {"MPI_REAL8", MPI_REAL8},
      {"MPI_REAL16", MPI_REAL16},
      {"MPI_COMPLEX8", MPI_COMPLEX8},
      {"MPI_COMPLEX16", MPI_COMPLEX16},
      {"MPI_COMPLEX32", MPI_COMPLEX32},
      {"MPI_2INTEGER", MPI_2INTEGER},
      {"MPI_CXX_BOOL", MPI_CXX_BOOL},
      {"MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX},
      {"MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX},
      {"MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX},
  };
  for (unsigned i = 0; i < sizeof types / sizeof types[0]; ++i) {
    int size;
    MPI_Aint lb, extent;
    char name[MPI_MAX_OBJECT_NAME];
    int length;
    MPI_Type_size(types[i].type, &size);
    MPI_Type_get_extent(types[i].type, &lb, &extent);
    MPI_Type_get_name(types[i].type, name, &length);
    printf("%-24s size %2d lb %ld extent %2ld name %s\n", types[i].name, size, (long)lb,
           (long)extent, name);
  }
}

static void reductions(int rank, int size) {
  int32_t integer = rank + 1, integer_sum;
  MPI_Allreduce(&integer, &integer_sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
  int8_t small = (int8_t)(rank + 3), small_max;
  MPI_Allreduce(&small, &small_max, 1, MPI_INTEGER1, MPI_MAX, MPI_COMM_WORLD);
  int64_t wide = (int64_t)(rank + 1) << 40, wide_sum;
  MPI_Allreduce(&wide, &wide_sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
  float real = 0.5f * (rank + 1), real_sum;
  MPI_Allreduce(&real, &real_sum, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD);
  double precise = 0.25 * (rank + 1), precise_prod;
  MPI_Allreduce(&precise, &precise_prod, 1, MPI_DOUBLE_PRECISION, MPI_PROD, MPI_COMM_WORLD);
  float complex_value[2] = {(float)rank, 1.0f}, complex_sum[2];
  MPI_Allreduce(complex_value, complex_sum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  double cxx_value[2] = {1.0, (double)rank}, cxx_prod[2];
  MPI_Allreduce(cxx_value, cxx_prod, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  int32_t logical = rank != 0, all_true, any_true;
  MPI_Allreduce(&logical, &all_true, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&logical, &any_true, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
  int32_t pair[2] = {(rank * 7) % size, rank}, max_at[2];
  MPI_Allreduce(pair, max_at, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD);
  if (rank == 0)
    printf("INTEGER sum %d, INTEGER1 max %d, INTEGER8 sum %lld, REAL sum %g, "
           "DOUBLE_PRECISION prod %g, COMPLEX sum (%g,%g), CXX_DOUBLE_COMPLEX prod (%g,%g), "
           "LOGICAL and %d or %d, 2INTEGER maxloc (%d at %d)\n",
           integer_sum, small_max, (long long)wide_sum, real_sum, precise_prod, complex_sum[0],
           complex_sum[1], cxx_prod[0], cxx_prod[1], all_true, any_true, max_at[0], max_at[1]);
}

static void characters(int rank, int size) {
  char text[6] = "rank0";
  text[4] = (char)('0' + rank);
  char got[6] = {0};
  MPI_Sendrecv(text, 5, MPI_CHARACTER, (rank + 1) % size, 0, got, 5, MPI_CHARACTER,
               (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d got CHARACTER*5 '%s'\n", rank, got);
}

static void match_size(void) {
  struct {
    int typeclass, size;
  } asks[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 2}, {MPI_TYPECLASS_INTEGER, 4},
              {MPI_TYPECLASS_INTEGER, 8}, {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},
              {MPI_TYPECLASS_COMPLEX, 8}, {MPI_TYPECLASS_COMPLEX, 16}};
  for (unsigned i = 0; i < sizeof asks / sizeof asks[0]; ++i) {
    MPI_Datatype type;
    int size;
    MPI_Type_match_size(asks[i].typeclass, asks[i].size, &type);
    MPI_Type_size(type, &size);
    printf("match_size class %d size %2d: a type of size %d\n", asks[i].typeclass, asks[i].size,
           size);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype none;
  int code = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &none), class;
  MPI_Error_class(code, &class);
  printf("match_size of a 3-byte integer: MPI_ERR_ARG %d\n", class == MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) sizes();
  reductions(rank, size);
  characters(rank, size);
  if (rank == 0) match_size();
  MPI_Finalize();
  return 0;
}
