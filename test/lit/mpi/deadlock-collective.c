// Ranks that disagree on a collective: rank 1 waits in MPI_Bcast from rank
// 0 on a duplicate communicator that rank 0 never uses; the report names
// the call and the communicator, and the job's exit status is 1.
// RUN: %synergy-cc %s -o %t.wasm
// RUN: sh -c '%synergy-run -np 2 %t.wasm; echo "status $?"' > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: rank 0: blocked in MPI_Barrier on MPI_COMM_WORLD
// CHECK: rank 1: blocked in MPI_Bcast on my-comm
// CHECK: status 1
#include <mpi.h>

int main(int argc, char** argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_name(dup, "my-comm");
  if (rank == 1)
    MPI_Bcast(&x, 1, MPI_INT, 0, dup);
  else
    MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
