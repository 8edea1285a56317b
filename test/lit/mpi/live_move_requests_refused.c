// A live move postponed by a request it does not carry (issue 22): at
// control point 2 rank 0 holds a synchronous send to rank 1 that rank 1
// receives only after it, so rank 0's request is a send still under way.
// The note names that request, and the move is taken at control point 3,
// where no request is pending; the output equals OpenMPI's.
// RUN: %mpi-diff --live-move 2 %s %t/moved 2
// RUN: %synergy-cc -O2 %s -o %t/refused.wasm
// RUN: env SYNERGY_TEST_LIVE_MOVE=1@2 SYNERGY_LIVE_MOVE_STATS=1 %synergy-run -np 2 \
// RUN:   %t/refused.wasm 2>&1 | FileCheck %s
// CHECK: synergy-run: note: live move of rank 1 postponed (rank 0: a nonblocking request is still pending (request 2 is a send still under way: a live move does not carry it))
// CHECK-DAG: live move: rank 1 arrived
// CHECK-DAG: rank 0: sent 42
// CHECK-DAG: rank 1: received 42
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int value = 42;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Barrier(MPI_COMM_WORLD);  // control point 1
  if (rank == 0) MPI_Issend(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &request);
  MPI_Barrier(MPI_COMM_WORLD);  // control point 2: rank 0's send is under way
  if (rank == 1) {
    MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank 1: received %d\n", value);
  } else {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    printf("rank 0: sent %d\n", value);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // control point 3: nothing pending
  MPI_Finalize();
  return 0;
}
