// Where no checkpoint falls due, a rank passes a barrier control point
// without its state being looked at: whether it could be unwound (its
// requests, windows and MPI objects, the module's exports) is asked only
// where the ranks meet (BarrierControlPoint::agreeToSuspend). The first
// such question also grows the rank's memory by the unwind buffer, which
// the program sees: at --checkpoint-every 3600 its memory keeps its size
// over a thousand control points, while at --checkpoint-every 0 (every
// control point a checkpoint's) it grows at the first one. The sums are
// the same in all three runs.
// RUN: rm -rf %t && mkdir -p %t/never %t/every
// RUN: %synergy-cc -O2 %s -o %t/prog.wasm
// RUN: %synergy-run -np 3 %t/prog.wasm | sort | FileCheck --check-prefix=KEPT %s
// RUN: %synergy-run -np 3 --checkpoint-every 3600 --checkpoint-dir %t/never %t/prog.wasm \
// RUN:   | sort | FileCheck --check-prefix=KEPT %s
// RUN: %synergy-run -np 3 --checkpoint-every 0 --checkpoint-dir %t/every %t/prog.wasm \
// RUN:   | sort | FileCheck --check-prefix=GREW %s
// KEPT: rank 0: sum 3000, memory kept its size
// KEPT: rank 1: sum 3000, memory kept its size
// KEPT: rank 2: sum 3000, memory kept its size
// GREW: rank 0: sum 3000, memory grew
// GREW: rank 1: sum 3000, memory grew
// GREW: rank 2: sum 3000, memory grew
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Whatever stdio allocates for its first line is allocated before the
  // memory is measured.
  printf("%s", "");
  fflush(stdout);
  size_t before = __builtin_wasm_memory_size(0);
  int one = 1, sum = 0, total = 0;
  for (int i = 0; i < 1000; ++i) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  size_t after = __builtin_wasm_memory_size(0);
  printf("rank %d: sum %d, memory %s\n", rank, total,
         after == before ? "kept its size" : "grew");
  MPI_Finalize();
  return 0;
}
