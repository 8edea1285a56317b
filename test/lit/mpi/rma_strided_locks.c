// One-sided operations through strided target datatypes and under
// contended locks, the two things a window spanning hosts has to carry
// beyond plain bytes: MPI_Put, MPI_Get and MPI_Accumulate whose target type
// is an MPI_Type_vector (every other int), then a counter that every rank
// increments 10 times by get, flush and put under an exclusive lock on rank
// 0 (a lost update shows in the total), reads under shared locks, and
// MPI_Win_lock_all with MPI_Get_accumulate(MPI_NO_OP). In the cluster
// corpus this runs one rank a host, so every neighbour is on another host.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>

enum { kInts = 16, kCounter = 15, kRounds = 10 };

static void show(int rank, const char* what, const int* values) {
  printf("rank %d %s:", rank, what);
  for (int i = 0; i < kInts; ++i) printf(" %d", values[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* window;
  MPI_Win win;
  MPI_Win_allocate(kInts * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &window,
                   &win);
  for (int i = 0; i < kInts; ++i) window[i] = rank * 100 + i;
  window[kCounter] = 0;
  MPI_Datatype everyOther;
  MPI_Type_vector(4, 1, 2, MPI_INT, &everyOther);
  MPI_Type_commit(&everyOther);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  MPI_Win_fence(0, win);
  int mine[4] = {-rank, -rank - 1, -rank - 2, -rank - 3};
  MPI_Put(mine, 4, MPI_INT, right, 1, 1, everyOther, win);
  MPI_Win_fence(0, win);
  show(rank, "after strided put", window);

  int fetched[4] = {0, 0, 0, 0};
  MPI_Get(fetched, 4, MPI_INT, left, 0, 1, everyOther, win);
  MPI_Win_fence(0, win);
  printf("rank %d strided get from %d: %d %d %d %d\n", rank, left, fetched[0], fetched[1],
         fetched[2], fetched[3]);

  int ones[4] = {1, 1, 1, 1};
  MPI_Accumulate(ones, 4, MPI_INT, 0, 8, 1, everyOther, MPI_SUM, win);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (rank == 0) show(rank, "after strided accumulate", window);
  MPI_Barrier(MPI_COMM_WORLD);

  for (int round = 0; round < kRounds; ++round) {
    int counter;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&counter, 1, MPI_INT, 0, kCounter, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    counter += 1;
    MPI_Put(&counter, 1, MPI_INT, 0, kCounter, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  int total = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&total, 1, MPI_INT, 0, kCounter, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  printf("rank %d counter after %d exclusive increments each: %d (expected %d)\n", rank, kRounds,
         total, size * kRounds);

  int seen = -1;
  MPI_Win_lock_all(0, win);
  MPI_Get_accumulate(NULL, 0, MPI_INT, &seen, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_NO_OP, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  printf("rank %d reads %d at rank %d\n", rank, seen, right);

  MPI_Type_free(&everyOther);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
