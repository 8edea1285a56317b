// A barrier called inside a try block is an invoke of the MPI_Barrier import
// as compiled (mpi.h cannot promise clang that it never throws), but the
// import never unwinds guest frames, so the direct-invokes pass makes it a
// plain call: every barrier is a checkpoint, none is skipped for being
// inside an invoke (checkpoint_skips_try.cpp keeps one whose callee throws).
// The exception thrown afterwards still reaches its handler, after the
// guard's destructor.
// RUN: %synergy-c++ -O2 %s -o %t.wasm
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 %t.wasm \
// RUN:   > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=NOTES < %t.err
// RUN: FileCheck %s < %t.out
// NOTES-NOT: note:
// NOTES: synergy-run: checkpoints: 3 taken, 0 skipped
// CHECK-DAG: rank 0 caught after barriers, 1 destroyed
// CHECK-DAG: rank 1 caught after barriers, 1 destroyed
#include <mpi.h>

#include <cstdio>
#include <stdexcept>

static int destroyed;

struct Guard {
  ~Guard() { ++destroyed; }
};

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    Guard guard;
    for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD);
    if (rank >= 0) throw std::runtime_error("after barriers");
  } catch (const std::runtime_error& e) {
    std::printf("rank %d caught %s, %d destroyed\n", rank, e.what(), destroyed);
  }
  MPI_Finalize();
  return 0;
}
