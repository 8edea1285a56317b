// Every rank receives before anyone sends: OpenMPI hangs here, synergy-run
// stops the job and reports what each rank waits for. Rank 2 has already
// finished, which the report says too.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: not %synergy-run -np 3 %t.wasm > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: synergy-run: deadlock: every running rank is blocked and no message can arrive
// CHECK-DAG: rank 0: blocked in MPI_Recv (source 1, tag 4) on MPI_COMM_WORLD
// CHECK-DAG: rank 1: blocked in MPI_Recv (source MPI_ANY_SOURCE, tag MPI_ANY_TAG) on MPI_COMM_WORLD
// CHECK-DAG: rank 2: finished
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, x;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MPI_Recv(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1)
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return 0;
}
