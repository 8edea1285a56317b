// A control point where some rank's output ends mid-line is not a
// checkpoint: the checkpoint would forward the partial line to fix the
// output offset, and another rank's line would then land inside it. Rank 0
// writes half a line and flushes it, every rank passes a barrier and the
// others print, then rank 0 ends its line: both barriers before that are
// skipped with a note, the one after is taken, and the output is the
// unsuspended run's, whole lines only (before, rank 1's line was cut into
// rank 0's). OpenMPI forwards partial lines as they come, so the run
// without checkpoints is the reference here.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run -np 3 %t.wasm | sort > %t.plain
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 3 --checkpoint-every 0 \
// RUN:   --checkpoint-dir %t.dir %t.wasm 2> %t.err | sort > %t.checkpointed
// RUN: cmp %t.plain %t.checkpointed
// RUN: FileCheck --check-prefix=OUT %s < %t.checkpointed
// RUN: FileCheck %s < %t.err
// OUT: rank 0 begins a line and ends it
// OUT-NEXT: rank 1 prints a whole line
// OUT-NEXT: rank 2 prints a whole line
// CHECK-COUNT-2: synergy-run: note: checkpoint skipped at this control point (rank 0: its output ends mid-line (a checkpoint would cut the line))
// CHECK-NOT: note:
// CHECK: synergy-run: checkpoints: 1 taken, 2 skipped, {{[0-9]+}} bytes written
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("rank 0 begins a line");
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    printf("rank %d prints a whole line\n", rank);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf(" and ends it\n");
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
