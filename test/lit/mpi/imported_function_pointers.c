// MPI functions reached through the function table: a call through a pointer
// to an imported function (call_indirect), and calls made by a function that
// calls setjmp, which the setjmp/longjmp lowering routes through invoke_*
// trampolines and the table. wasm2c 1.0.32 gave such table entries the
// address of the instance's import field instead of the host object, and
// the host crashed with SIGSEGV on the first of these calls.
// RUN: %mpi-diff %s %t 1 2
#include <mpi.h>
#include <setjmp.h>
#include <stdio.h>

static jmp_buf recovery;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  volatile int rounds = 0;
  if (setjmp(recovery) == 0) {
    for (int i = 0; i < 3; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      ++rounds;
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: sum %d after %d barriers\n", rank, size, sum, rounds);
    longjmp(recovery, 1);
  }
  int (*volatile barrier)(MPI_Comm) = MPI_Barrier;
  int (*volatile rankOf)(MPI_Comm, int*) = MPI_Comm_rank;
  int again = -1;
  barrier(MPI_COMM_WORLD);
  rankOf(MPI_COMM_WORLD, &again);
  printf("rank %d: through pointers rank %d, %d rounds\n", rank, again, rounds);
  MPI_Finalize();
  return 0;
}
