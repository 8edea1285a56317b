// A window error handler is a guest function the runtime calls through the
// function table. One whose wasm type is not MPI_Win_errhandler_function's
// (here a one-argument function cast to one) is refused when the handler
// is made, as a bad indirect call: the rank traps there and nothing after
// it runs.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: not %synergy-run -np 2 %t.wasm > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// CHECK: trap: indirect call type mismatch or null entry
// OUT: before
// OUT-NOT: after
#include <mpi.h>
#include <stdio.h>

static int one_argument(int x) { return x + 1; }

int main(int argc, char** argv) {
  int rank;
  MPI_Errhandler handler;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("before\n");
  fflush(stdout);
  MPI_Win_create_errhandler((MPI_Win_errhandler_function*)(void*)one_argument, &handler);
  printf("after\n");
  MPI_Finalize();
  return 0;
}
