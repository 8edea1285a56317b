// A rank with a live MPI window cannot be suspended: the window addresses
// its members' memory from the host, and a suspension rewinds every rank
// in a fresh instance. Every control point while the window lives is
// skipped with a note (before, the job was suspended anyway and crashed or
// read stale memory after the rewind); the one after MPI_Win_free is
// taken, and the output is OpenMPI's.
// RUN: %mpi-diff --run-option=--checkpoint-every --run-option=0 %s %t 2 3
// RUN: env SYNERGY_CHECKPOINT_STATS=1 %synergy-run -np 2 --checkpoint-every 0 %t/granule.wasm \
// RUN:   2>&1 >/dev/null | FileCheck %s
// CHECK-COUNT-5: synergy-run: note: checkpoint skipped at this control point (rank {{[0-9]+}}: an MPI window is live (one-sided windows cannot be suspended))
// CHECK-NOT: note:
// CHECK: synergy-run: checkpoints: 1 taken, 5 skipped, 0 bytes written
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* cells;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cells, &win);
  for (int i = 0; i < 4; ++i) cells[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  // Each round every rank adds to its right neighbour's cells, then reads
  // its own between two barriers: a rewind into other memory shows here.
  for (int round = 1; round <= 2; ++round) {
    int right = (rank + 1) % size;
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    int add[4] = {round, round * (rank + 1), 1, rank};
    MPI_Accumulate(add, 4, MPI_INT, right, 0, 4, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    printf("rank %d round %d cells %d %d %d %d\n", rank, round, cells[0], cells[1], cells[2],
           cells[3]);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_free(&win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d done\n", rank);
  MPI_Finalize();
  return 0;
}
