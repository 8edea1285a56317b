// MPI_Pack and MPI_Unpack that would run past the buffer the program names
// are MPI_ERR_TRUNCATE (as under OpenMPI) and move nothing: the bytes after
// the buffer and the position are unchanged. A position outside the buffer
// is refused the same way before anything is read.
// RUN: %mpi-diff %s %t 1
// RUN: not %synergy-run -np 1 %t/granule.wasm fatal 2>&1 | FileCheck %s
// CHECK: synergy-run: rank 0: MPI_Unpack: 8 bytes at position 4 run past the buffer of 8 bytes (MPI_ERR_TRUNCATE)
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ints[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
  unsigned char packed[16];
  memset(packed, 0xee, sizeof packed);
  int position = 4;
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_Unpack(packed, 8, &position, out, 2, MPI_INT, MPI_COMM_WORLD);
    printf("not reached\n");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int code = MPI_Pack(ints, 2, MPI_INT, packed, 8, &position, MPI_COMM_WORLD);
  int cls;
  MPI_Error_class(code, &cls);
  int untouched = 1;
  for (int i = 0; i < 16; ++i) untouched &= packed[i] == 0xee;
  printf("pack past the end: class %d, position %d, buffer untouched %d\n", cls, position,
         untouched);
  code = MPI_Unpack(packed, 8, &position, out, 2, MPI_INT, MPI_COMM_WORLD);
  MPI_Error_class(code, &cls);
  printf("unpack past the end: class %d, position %d, output untouched %d\n", cls, position,
         out[0] == 0 && out[1] == 0);
  position = 0;
  MPI_Pack(ints, 2, MPI_INT, packed, 8, &position, MPI_COMM_WORLD);
  printf("pack that fits: position %d\n", position);
  MPI_Finalize();
  return 0;
}
