// A live move postponed by a window it does not carry (issue 22): at
// control point 2 rank 1 holds a shared lock on its own part of the window
// (a passive target epoch, whose lock a move does not hand over). The note
// names the window and the lock, and the move is taken at control point
// 3, where only a fence epoch is open; after it, rank 0 puts into the moved
// rank's memory in a passive target epoch and the moved rank reads it. The
// output equals OpenMPI's.
// RUN: %mpi-diff --live-move 2 %s %t/moved 2
// RUN: %synergy-cc -O2 %s -o %t/refused.wasm
// RUN: env SYNERGY_TEST_LIVE_MOVE=1@2 SYNERGY_LIVE_MOVE_STATS=1 %synergy-run -np 2 \
// RUN:   %t/refused.wasm 2>&1 | FileCheck %s
// CHECK: synergy-run: note: live move of rank 1 postponed (rank 1: an MPI window is live (one-sided windows cannot be suspended) (window 1 holds a lock on rank 1 (MPI_Win_lock): a live move does not carry it))
// CHECK-DAG: live move: rank 1 arrived
// CHECK-DAG: rank 1: read 7 at 0, 107 at 1 after the move
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int memory[2] = {rank, rank};
  MPI_Win win;
  MPI_Win_create(memory, sizeof memory, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);  // control point 1
  if (rank == 1) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
  MPI_Barrier(MPI_COMM_WORLD);  // control point 2: rank 1 holds a lock
  if (rank == 1) MPI_Win_unlock(1, win);
  MPI_Win_fence(0, win);
  MPI_Barrier(MPI_COMM_WORLD);  // control point 3: a fence epoch only
  MPI_Win_fence(0, win);
  if (rank == 0) {
    int values[2] = {7, 107};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(values, 2, MPI_INT, 1, 0, 2, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    printf("rank 1: read %d at 0, %d at 1 after the move\n", memory[0], memory[1]);
    MPI_Win_unlock(1, win);
  } else {
    printf("rank 0: put into rank 1\n");
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
