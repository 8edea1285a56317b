// Datatype constructors whose result would be absurdly large. A layout lists
// every byte segment of one instance, so before these checks
// MPI_Type_create_hvector(1 << 28, 1, 0, MPI_INT) grew the host to 7 GB
// and ran for minutes, and nested vectors with huge strides overflowed the
// 64-bit bounds. Each is now refused with its error class under
// MPI_ERRORS_RETURN, before anything is built, and the rank goes on; a type
// of one large run of bytes (contiguous over a gap-free type) is still fine
// and is built without a loop over its elements. Under the default
// MPI_ERRORS_ARE_FATAL the first refusal ends the job with one line.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %synergy-cc -O2 %s -o %t/sizes.wasm
// RUN: %synergy-run -np 1 %t/sizes.wasm return | FileCheck %s --check-prefix=RETURN
// RETURN: many blocks: MPI_ERR_COUNT
// RETURN-NEXT: many pieces: MPI_ERR_TYPE
// RETURN-NEXT: overflowing bounds: MPI_ERR_TYPE
// RETURN-NEXT: one large run: MPI_SUCCESS size 4294967296
// RETURN-NEXT: negative count: MPI_ERR_COUNT
// RETURN-NEXT: done
// RUN: not %synergy-run -np 1 %t/sizes.wasm fatal > %t/out 2> %t/err
// RUN: FileCheck %s --check-prefix=FATAL < %t/err
// RUN: not grep -q "not reached" %t/out
// FATAL: MPI_Type_create_hvector: 8388608 blocks: at most 4194304 are supported (MPI_ERR_COUNT)
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void report(const char* what, int code, const char* detail) {
  int errorClass = MPI_SUCCESS;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &errorClass);
  const char* name = errorClass == MPI_SUCCESS    ? "MPI_SUCCESS"
                     : errorClass == MPI_ERR_COUNT ? "MPI_ERR_COUNT"
                     : errorClass == MPI_ERR_TYPE  ? "MPI_ERR_TYPE"
                                                   : "another class";
  printf("%s: %s%s\n", what, name, detail);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Datatype t;
  report("many blocks", MPI_Type_create_hvector(1 << 23, 1, 0, MPI_INT, &t), "");
  if (fatal) printf("not reached\n");

  // Four separate ints per instance, 2^21 instances at one address: 2^23
  // segments, twice the bound.
  MPI_Datatype four;
  MPI_Type_vector(4, 1, 2, MPI_INT, &four);
  report("many pieces", MPI_Type_create_hvector(1 << 21, 1, 0, four, &t), "");

  // Each level multiplies the extent by about 2^31.
  MPI_Datatype level1, level2;
  MPI_Type_create_hvector(2, 1, 0x7fffffff, MPI_BYTE, &level1);
  MPI_Type_vector(2, 1, 0x7fffffff, level1, &level2);
  report("overflowing bounds", MPI_Type_vector(2, 1, 0x7fffffff, level2, &t), "");

  MPI_Datatype large;
  int code = MPI_Type_contiguous(1 << 30, MPI_INT, &large);
  MPI_Count size = 0;
  if (code == MPI_SUCCESS) MPI_Type_size_x(large, &size);
  char detail[64];
  snprintf(detail, sizeof detail, " size %lld", (long long)size);
  report("one large run", code, detail);

  report("negative count", MPI_Type_contiguous(-1, MPI_INT, &t), "");
  printf("done\n");
  MPI_Finalize();
  return 0;
}
