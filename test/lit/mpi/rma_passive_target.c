// Passive-target RMA: MPI_Win_lock/unlock (shared, exclusive and under
// MPI_MODE_NOCHECK), lock_all/unlock_all, the four flushes and
// MPI_Win_sync. Every rank adds 1 to a counter on rank 0 kRounds times by
// get, flush, pause, put under an exclusive lock: the lock must really
// exclude, or updates are lost and the total falls short of size * kRounds
// (as it does when the lock is taken with MPI_MODE_NOCHECK).
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

enum { kRounds = 200 };

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* cells;
  MPI_Win win;
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cells, &win);
  for (int i = 0; i < 8; ++i) cells[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  for (int round = 0; round < kRounds; ++round) {
    int value;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    // A pause between the read and the write, in which another rank would
    // slip in if the lock let it.
    usleep(20);
    value += 1;
    MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("exclusive counter %d expected %d\n", cells[0], size * kRounds);

  // Each rank writes its slot on its right neighbour under a shared lock.
  int right = (rank + 1) % size, stamp = 100 + rank;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Put(&stamp, 1, MPI_INT, right, 1, 1, MPI_INT, win);
  MPI_Win_flush_local(right, win);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d got stamp %d\n", rank, cells[1]);

  // lock_all: everyone adds into every rank's cell 2 and reads cell 1.
  MPI_Win_lock_all(0, win);
  int got[64];
  for (int target = 0; target < size; ++target) {
    int one = rank + 1;
    MPI_Accumulate(&one, 1, MPI_INT, target, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Get(&got[target], 1, MPI_INT, target, 1, 1, MPI_INT, win);
  }
  MPI_Win_flush_all(win);
  MPI_Win_flush_local_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  MPI_Win_sync(win);
  printf("rank %d cell2 %d first stamp read %d last %d\n", rank, cells[2], got[0],
         got[size - 1]);
  MPI_Win_unlock(rank, win);

  // MPI_MODE_NOCHECK: the program promises no conflicting lock.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    int mark = 7;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, MPI_MODE_NOCHECK, win);
    MPI_Put(&mark, 1, MPI_INT, 0, 3, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("nocheck mark %d\n", cells[3]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
