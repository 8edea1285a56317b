// Hostile arguments to the array datatype constructors and the added error
// codes. Under MPI_ERRORS_RETURN each is refused with its error class before
// anything is built (a subarray of 2^24 separate rows is not flattened; a
// darray whose grid does not match the communicator is not guessed at) and
// the rank goes on; under the default MPI_ERRORS_ARE_FATAL the first one
// ends the job with one line naming the call and the reason.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/errors.wasm
// RUN: %synergy-run -np 1 %t/errors.wasm return | FileCheck %s --check-prefix=RETURN
// RETURN: subarray outside the array: MPI_ERR_ARG
// RETURN-NEXT: subarray of 2^24 rows: MPI_ERR_COUNT
// RETURN-NEXT: zero dimensions: MPI_ERR_ARG
// RETURN-NEXT: bad order: MPI_ERR_ARG
// RETURN-NEXT: darray grid of 4 for 1 process: MPI_ERR_ARG
// RETURN-NEXT: darray block too small: MPI_ERR_ARG
// RETURN-NEXT: darray of 2^30 columns: MPI_ERR_COUNT
// RETURN-NEXT: hindexed_block negative count: MPI_ERR_COUNT
// RETURN-NEXT: string for a code never added: MPI_ERR_ARG
// RETURN-NEXT: name of MPI_DATATYPE_NULL: MPI_ERR_TYPE
// RETURN-NEXT: done
// RUN: not %synergy-run -np 1 %t/errors.wasm fatal > %t/out 2> %t/err
// RUN: FileCheck %s --check-prefix=FATAL < %t/err
// RUN: not grep -q "not reached" %t/out
// FATAL: MPI_Type_create_subarray: dimension 1: the subarray [3, +6) does not fit in size 8 (MPI_ERR_ARG)
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void report(const char* what, int code) {
  int errorClass = MPI_SUCCESS;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &errorClass);
  const char* name = errorClass == MPI_SUCCESS    ? "MPI_SUCCESS"
                     : errorClass == MPI_ERR_COUNT ? "MPI_ERR_COUNT"
                     : errorClass == MPI_ERR_TYPE  ? "MPI_ERR_TYPE"
                     : errorClass == MPI_ERR_ARG   ? "MPI_ERR_ARG"
                                                   : "another class";
  printf("%s: %s\n", what, name);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t;

  int sizes[3] = {6, 8, 4}, subsizes[3] = {2, 6, 4}, starts[3] = {0, 3, 0};
  report("subarray outside the array",
         MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
  if (fatal) printf("not reached\n");
  int big[3] = {4096, 4096, 4096}, zero[3] = {0, 0, 0};
  report("subarray of 2^24 rows",
         MPI_Type_create_subarray(3, big, big, zero, MPI_ORDER_C, MPI_INT, &t));
  report("zero dimensions",
         MPI_Type_create_subarray(0, sizes, subsizes, zero, MPI_ORDER_C, MPI_INT, &t));
  report("bad order", MPI_Type_create_subarray(2, sizes, sizes, zero, 7, MPI_INT, &t));

  int gsizes[2] = {8, 1 << 30};
  int block[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  int grid4[2] = {2, 2}, grid1[2] = {1, 1}, small[2] = {1, MPI_DISTRIBUTE_DFLT_DARG};
  int four[2] = {4, 1};
  report("darray grid of 4 for 1 process",
         MPI_Type_create_darray(1, 0, 2, gsizes, block, dflt, grid4, MPI_ORDER_C, MPI_INT, &t));
  report("darray block too small",
         MPI_Type_create_darray(4, 0, 2, gsizes, block, small, four, MPI_ORDER_C, MPI_INT, &t));
  report("darray of 2^30 columns",
         MPI_Type_create_darray(1, 0, 2, gsizes, block, dflt, grid1, MPI_ORDER_C, MPI_INT, &t));

  MPI_Aint displs[1] = {0};
  report("hindexed_block negative count",
         MPI_Type_create_hindexed_block(-1, 1, displs, MPI_INT, &t));
  report("string for a code never added", MPI_Add_error_string(MPI_ERR_LASTCODE + 1000, "x"));
  char name[MPI_MAX_OBJECT_NAME];
  int length;
  report("name of MPI_DATATYPE_NULL", MPI_Type_get_name(MPI_DATATYPE_NULL, name, &length));
  printf("done\n");
  MPI_Finalize();
  return 0;
}
