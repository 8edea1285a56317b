// A barrier reached inside a try block's call (C++ exceptions are lowered to
// invoke_* calls through a host trampoline, which Asyncify cannot unwind)
// cannot be a checkpoint: it is skipped with a note, and exceptions thrown
// after it still reach their handlers. The barrier outside any try is taken.
// RUN: %synergy-c++ -O2 %s -o %t.wasm
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 %t.wasm \
// RUN:   > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=NOTES < %t.err
// RUN: FileCheck %s < %t.out
// NOTES-COUNT-3: synergy-run: note: checkpoint skipped at this control point (rank {{[0-9]+}}: the control point was reached inside an invoke_* call (setjmp/longjmp and C++ exception emulation), whose host frame cannot be unwound)
// NOTES-NOT: note:
// NOTES: synergy-run: checkpoints: 1 taken, 3 skipped, 0 bytes written
// CHECK-DAG: rank 0 caught step 2 after 3 steps
// CHECK-DAG: rank 1 caught step 2 after 3 steps
// CHECK-DAG: rank 0 settled
// CHECK-DAG: rank 1 settled
#include <mpi.h>

#include <cstdio>
#include <stdexcept>

static int steps;

struct StepFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Not inlined: guarded() calls it through an invoke (it may throw into the
// handler), and step() calls MPI_Barrier directly, inside that invoke.
__attribute__((noinline)) static void step(int i) {
  MPI_Barrier(MPI_COMM_WORLD);
  ++steps;
  if (i == 2) throw StepFailed("step 2");
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    for (int i = 0; i < 5; ++i) step(i);
  } catch (const StepFailed& e) {
    std::printf("rank %d caught %s after %d steps\n", rank, e.what(), steps);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::printf("rank %d settled\n", rank);
  MPI_Finalize();
  return 0;
}
