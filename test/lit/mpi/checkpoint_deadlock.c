// An erroneous program under --checkpoint-every: rank 2 waits for a message
// that rank 1 sends only after its MPI_Reduce, while rank 2's own
// contribution to that Reduce is still missing. A rank that has left a
// rooted collective waits at the barrier control point for the others, so
// the job cannot go on; that wait must count as blocked, so the job is
// stopped with the deadlock report naming every rank's wait, not left
// waiting forever (timeout bounds a regression, whose exit 124 the last
// check refuses). No rank gets past the Reduce.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c 'timeout 120 %synergy-run -np 3 --checkpoint-every 0 %t.wasm; echo "exit=$?"' \
// RUN:   > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK-NOT: passed
// CHECK: synergy-run: deadlock: every running rank is blocked and no message can arrive
// CHECK-DAG: rank 0: blocked in MPI_Reduce on MPI_COMM_WORLD
// CHECK-DAG: rank 1: blocked in a barrier control point's agreement
// CHECK-DAG: rank 2: blocked in MPI_Recv (source 1, tag 5) on MPI_COMM_WORLD
// CHECK-NOT: passed
// CHECK: exit=1
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, x = 0, one = 1, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 2) MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 1) MPI_Send(&one, 1, MPI_INT, 2, 5, MPI_COMM_WORLD);
  printf("rank %d passed the reduce\n", rank);
  MPI_Finalize();
  return 0;
}
