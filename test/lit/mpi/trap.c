// A rank that traps ends the job with status 134 and the trap's reason,
// while the other ranks are blocked waiting for it.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run -np 3 %t.wasm; echo "status $?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: synergy-run: rank 2: trap: unreachable executed in __original_main
// CHECK: status 134
#include <mpi.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 2) __builtin_trap();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
