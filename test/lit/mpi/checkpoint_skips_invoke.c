// A barrier reached inside an invoke_* call (the setjmp/longjmp emulation
// calls step() through a host trampoline, which Asyncify cannot unwind)
// cannot be a checkpoint: it is skipped with a note and the run goes on,
// with OpenMPI's output. The barrier outside any setjmp caller is taken.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t 2 3
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck %s
// CHECK-COUNT-3: synergy-run: note: checkpoint skipped at this control point (rank {{[0-9]+}}: the control point was reached inside an invoke_* call (setjmp/longjmp and C++ exception emulation), whose host frame cannot be unwound)
// CHECK-NOT: note:
// CHECK: synergy-run: checkpoints: 1 taken, 3 skipped, 0 bytes written
#include <mpi.h>
#include <setjmp.h>
#include <stdio.h>

static jmp_buf recovery;
static int steps;

// Not inlined: guarded() calls it through invoke_vi, and step() calls
// MPI_Barrier directly, inside that invoke.
__attribute__((noinline)) static void step(int i) {
  MPI_Barrier(MPI_COMM_WORLD);
  ++steps;
  if (i == 2) longjmp(recovery, 1);
}

static int guarded(void) {
  volatile int i = 0;
  if (setjmp(recovery) == 0) {
    for (; i < 5; ++i) step(i);
    return 0;
  }
  return 1;
}

static void settle(int rank) {
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d settled after %d steps\n", rank, steps);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int recovered = guarded();
  printf("rank %d recovered %d\n", rank, recovered);
  settle(rank);
  MPI_Finalize();
  return 0;
}
