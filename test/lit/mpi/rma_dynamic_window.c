// One-sided operations on a window of MPI_Win_create_dynamic from every
// other rank, so that across hosts each kind of operation reaches attached
// memory of a rank on another host: MPI_Put of a strided datatype and
// MPI_Get under fences, MPI_Accumulate, MPI_Get_accumulate,
// MPI_Fetch_and_op and MPI_Compare_and_swap under locks, MPI_Rget under
// lock_all, and a region attached after another was detached, at a
// different address, named by an address published again.
// RUN: %mpi-diff %s %t 3 4 5
#include <mpi.h>
#include <stdio.h>

#define SLOTS 8

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  MPI_Win win;
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int slots[SLOTS], counters[4] = {0, 0, -1, 0};
  for (int i = 0; i < SLOTS; ++i) slots[i] = -1;
  MPI_Win_attach(win, slots, sizeof(slots));
  MPI_Win_attach(win, counters, sizeof(counters));
  MPI_Aint mine[2], addresses[2 * 16];
  MPI_Get_address(slots, &mine[0]);
  MPI_Get_address(counters, &mine[1]);
  MPI_Allgather(mine, 2, MPI_AINT, addresses, 2, MPI_AINT, MPI_COMM_WORLD);

  // Fences: every other slot of the right neighbour's array, by a vector
  // type at the target, then a get of the left neighbour's first slots.
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int values[4] = {rank * 100 + 1, rank * 100 + 2, rank * 100 + 3, rank * 100 + 4};
  MPI_Win_fence(0, win);
  MPI_Put(values, 4, MPI_INT, right, addresses[2 * right], 1, every_other, win);
  MPI_Win_fence(0, win);
  int got[3] = {0, 0, 0};
  MPI_Get(got, 3, MPI_INT, left, addresses[2 * left], 3, MPI_INT, win);
  MPI_Win_fence(0, win);
  printf("rank %d slots", rank);
  for (int i = 0; i < SLOTS; ++i) printf(" %d", slots[i]);
  printf(" got from left %d %d %d\n", got[0], got[1], got[2]);

  // Locks: every rank adds to rank 0's counters and swaps in its rank
  // where -1 still stands; exactly one swap succeeds.
  MPI_Aint counter0 = addresses[1];
  int one = 1, old = 0, before = 0, swapped_from = 0, minus_one = -1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, counter0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Fetch_and_op(&rank, &old, MPI_INT, 0, MPI_Aint_add(counter0, sizeof(int)), MPI_SUM, win);
  MPI_Win_flush(0, win);
  MPI_Get_accumulate(&one, 1, MPI_INT, &before, 1, MPI_INT, 0,
                     MPI_Aint_add(counter0, 3 * sizeof(int)), 1, MPI_INT, MPI_SUM, win);
  MPI_Compare_and_swap(&rank, &minus_one, &swapped_from, MPI_INT, 0,
                       MPI_Aint_add(counter0, 2 * sizeof(int)), win);
  MPI_Win_unlock(0, win);
  int won = swapped_from == -1, winners = 0;
  MPI_Reduce(&won, &winners, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("rank 0 counters: adds %d, rank sum %d, swap taken by a rank %d (winners %d), "
           "get-accumulates %d\n",
           counters[0], counters[1], counters[2] >= 0 && counters[2] < size, winners,
           counters[3]);

  // A new region in place of the first, at another address.
  MPI_Win_detach(win, slots);
  int fresh[2] = {0, 0};
  MPI_Win_attach(win, fresh, sizeof(fresh));
  MPI_Get_address(fresh, &mine[0]);
  MPI_Allgather(mine, 1, MPI_AINT, addresses, 1, MPI_AINT, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  int pair[2] = {rank, -rank};
  MPI_Put(pair, 2, MPI_INT, left, addresses[left], 2, MPI_INT, win);
  MPI_Win_flush_all(win);
  MPI_Request request;
  int back[2] = {0, 0};
  MPI_Rget(back, 2, MPI_INT, left, addresses[left], 2, MPI_INT, win, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d fresh %d %d, read back %d %d\n", rank, fresh[0], fresh[1], back[0], back[1]);

  MPI_Win_detach(win, fresh);
  MPI_Win_detach(win, counters);
  MPI_Type_free(&every_other);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
