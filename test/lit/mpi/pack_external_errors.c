// Hostile arguments to the external32 calls: an unknown data
// representation, a pack or unpack running past the buffer (nothing is
// written, the position stays), a position outside the buffer, a size
// query whose answer leaves an MPI_Aint, and a datatype nested deeper than
// the runtime follows. Each is an MPI error with a clear reason, returned
// under MPI_ERRORS_RETURN and fatal with one line otherwise.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/errors.wasm
// RUN: %synergy-run %t/errors.wasm return | FileCheck %s --check-prefix=RETURN
// RUN: not %synergy-run %t/errors.wasm fatal 2>&1 | FileCheck %s --check-prefix=FATAL
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void expect(const char* what, int error) {
  char text[MPI_MAX_ERROR_STRING];
  int length, error_class;
  MPI_Error_class(error, &error_class);
  MPI_Error_string(error_class, text, &length);
  printf("%s: %s\n", what, error == MPI_SUCCESS ? "no error" : text);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && !strcmp(argv[1], "return")) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int values[4] = {1, 2, 3, 4};
  unsigned char buffer[16];
  memset(buffer, 0xee, sizeof buffer);
  MPI_Aint position = 8, size = -1;
  expect("native datarep", MPI_Pack_external("native", values, 1, MPI_INT, buffer, 16, &position));
  expect("past the end", MPI_Pack_external("external32", values, 4, MPI_INT, buffer, 16, &position));
  printf("position %ld, buffer untouched %d\n", (long)position, buffer[8] == 0xee && buffer[15] == 0xee);
  position = 20;
  expect("position outside", MPI_Unpack_external("external32", buffer, 16, &position, values, 1, MPI_INT));
  position = 12;
  expect("unpack past the end", MPI_Unpack_external("external32", buffer, 16, &position, values, 2, MPI_INT));
  printf("values untouched %d\n", values[0] == 1 && values[1] == 2);
  MPI_Datatype big;
  MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &big);
  expect("huge size", MPI_Pack_external_size("external32", 4, big, &size));
  printf("size untouched %d\n", size == -1);
  MPI_Datatype nested = MPI_INT;
  for (int i = 0; i < 80; ++i) {
    MPI_Datatype outer;
    MPI_Type_contiguous(1, nested, &outer);
    nested = outer;
  }
  MPI_Type_commit(&nested);
  expect("nested 80 deep", MPI_Pack_external_size("external32", 1, nested, &size));
  position = 0;
  expect("valid pack", MPI_Pack_external("external32", values, 1, MPI_INT, buffer, 16, &position));
  printf("position %ld\n", (long)position);
  MPI_Finalize();
  return 0;
}
// RETURN: native datarep: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-NEXT: past the end: MPI_ERR_TRUNCATE: message truncated
// RETURN-NEXT: position 8, buffer untouched 1
// RETURN-NEXT: position outside: MPI_ERR_ARG: invalid argument of some other kind
// RETURN-NEXT: unpack past the end: MPI_ERR_TRUNCATE: message truncated
// RETURN-NEXT: values untouched 1
// RETURN-NEXT: huge size: MPI_ERR_COUNT: invalid count argument
// RETURN-NEXT: size untouched 1
// RETURN-NEXT: nested 80 deep: MPI_ERR_TYPE: invalid datatype
// RETURN-NEXT: valid pack: no error
// RETURN-NEXT: position 4
// FATAL: synergy-run: rank 0: MPI_Pack_external: the data representation must be "external32" (MPI_ERR_ARG)
// FATAL-NOT: past the end
