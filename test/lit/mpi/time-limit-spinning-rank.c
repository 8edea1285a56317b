// --time-limit with -np: rank 1 spins in a loop without calls while rank 0
// waits in MPI_Recv for a message that never comes. The spinning rank traps,
// the waiting one is woken and unwound, the trap is reported once, and the
// job ends with status 134. No rank gets past its wait or its loop.
// `timeout 120` only keeps a broken build from hanging the suite; no test
// checks how long anything took.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: sh -c 'timeout 120 %synergy-run -np 2 --time-limit 0.3 %t.wasm; echo "exit=$?"' > %t.out 2>&1
// RUN: FileCheck %s --implicit-check-not=trap --implicit-check-not=received < %t.out
// CHECK-DAG: rank 0 started
// CHECK-DAG: rank 1 started
// CHECK-DAG: synergy-run: rank 1: trap: time limit exceeded in spin
// CHECK: exit=134
#include <mpi.h>
#include <stdio.h>

unsigned counter;

__attribute__((noinline)) void spin(void) {
  for (;;) counter++;
}

int main(int argc, char** argv) {
  int rank, value = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d started\n", rank);
  fflush(stdout);
  if (rank == 1) spin();
  MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d received %d\n", rank, value);
  MPI_Finalize();
  return 0;
}
