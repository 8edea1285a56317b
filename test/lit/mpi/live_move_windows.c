// A live move of a rank that holds RMA windows (issue 22): a window of
// MPI_Win_create and one of MPI_Win_allocate on MPI_COMM_WORLD, and one of
// MPI_Win_create on each of two communicators MPI_Comm_split made (every
// rank but 0, and ranks 0 and 1: over two hosts of two ranks, that pair's
// window lies wholly on one host until rank 1 moves; OpenMPI refuses a
// window on a communicator of one rank, and a window on each of two
// disjoint communicators of one split hangs its fences now and then), all
// live at every barrier control point. Each phase opens a fence
// epoch on every window before the barrier (the control point, where the
// last rank moves at the second) and, after it, in that same epoch, puts
// to the next rank, gets from the previous one and accumulates into rank 0
// and into the last rank, so the operations cross the moved rank both
// ways; a fence closes the epoch. The moved rank carries its windows
// (checkpoint/RankMove.h): its part is rebuilt in its fresh instance and
// the other members address it there. OpenMPI's output is the same with
// no move. Every rank prints as many lines (cluster_test.py
// live-move-windows counts them).
// RUN: %mpi-diff --live-move 2 %s %t/moved 3 4
#include <mpi.h>
#include <stdio.h>

enum { kCount = 64, kPhases = 3 };

static long long checksum(const int* values, int count) {
  long long sum = 0;
  for (int i = 0; i < count; ++i) sum = sum * 31 % 1000000007 + values[i];
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, previous = (rank + size - 1) % size, last = size - 1;

  static int created[kCount], parity_memory[kCount], pair_memory[kCount];
  int* allocated;
  MPI_Win create_win, allocate_win, parity_win, pair_win;
  MPI_Win_create(created, sizeof created, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                 &create_win);
  MPI_Win_allocate(kCount * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &allocated,
                   &allocate_win);
  MPI_Comm parity;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &parity);
  int parity_rank = 0, parity_size = 1;
  if (parity != MPI_COMM_NULL) {
    MPI_Comm_rank(parity, &parity_rank);
    MPI_Comm_size(parity, &parity_size);
    MPI_Win_create(parity_memory, sizeof parity_memory, sizeof(int), MPI_INFO_NULL, parity,
                   &parity_win);
    MPI_Win_set_name(parity_win, "parity");
  }
  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  if (pair != MPI_COMM_NULL)
    MPI_Win_create(pair_memory, sizeof pair_memory, sizeof(int), MPI_INFO_NULL, pair, &pair_win);
  for (int i = 0; i < kCount; ++i) {
    created[i] = rank * 1000 + i;
    allocated[i] = rank * 2000 + i;
    parity_memory[i] = rank * 3000 + i;
    pair_memory[i] = rank * 4000 + i;
  }
  MPI_Barrier(MPI_COMM_WORLD);  // control point 1

  int got[kCount], fetched[kCount], parity_got[kCount] = {0}, pair_got[kCount] = {0}, ones[kCount], values[kCount];
  for (int i = 0; i < kCount; ++i) ones[i] = 1;
  for (int phase = 0; phase < kPhases; ++phase) {
    MPI_Win_fence(0, create_win);
    MPI_Win_fence(0, allocate_win);
    if (parity != MPI_COMM_NULL) MPI_Win_fence(0, parity_win);
    if (pair != MPI_COMM_NULL) MPI_Win_fence(0, pair_win);
    MPI_Barrier(MPI_COMM_WORLD);  // control point 2 + phase: every window in a fence epoch
    for (int i = 0; i < kCount; ++i) values[i] = rank * 100000 + phase * 1000 + i;
    // Each rank puts to the first half of the next rank's window, and
    // reads the second half of the previous rank's.
    MPI_Put(values, kCount / 2, MPI_INT, next, 0, kCount / 2, MPI_INT, create_win);
    MPI_Get(got, kCount / 2, MPI_INT, previous, kCount / 2, kCount / 2, MPI_INT, create_win);
    MPI_Accumulate(ones, kCount, MPI_INT, 0, 0, kCount, MPI_INT, MPI_SUM, allocate_win);
    if (last != 0)
      MPI_Accumulate(values, kCount, MPI_INT, last, 0, kCount, MPI_INT, MPI_MAX, allocate_win);
    int parity_next = (parity_rank + 1) % parity_size;
    if (parity != MPI_COMM_NULL) {
      MPI_Put(values, kCount / 4, MPI_INT, parity_next, phase, kCount / 4, MPI_INT, parity_win);
      MPI_Get(parity_got, kCount / 4, MPI_INT, parity_next, kCount / 2, kCount / 4, MPI_INT,
              parity_win);
    }
    if (pair != MPI_COMM_NULL) {
      // The partner's first quarter gets this rank's values, and its last
      // quarter is read, plus one into every element of the middle.
      MPI_Put(values, kCount / 4, MPI_INT, 1 - rank % 2, 0, kCount / 4, MPI_INT, pair_win);
      MPI_Get(pair_got, kCount / 4, MPI_INT, 1 - rank % 2, 3 * kCount / 4, kCount / 4, MPI_INT,
              pair_win);
      MPI_Accumulate(ones, kCount / 2, MPI_INT, 1 - rank % 2, kCount / 4, kCount / 2, MPI_INT,
                     MPI_SUM, pair_win);
    }
    MPI_Win_fence(0, create_win);
    MPI_Win_fence(0, allocate_win);
    if (parity != MPI_COMM_NULL) MPI_Win_fence(0, parity_win);
    if (pair != MPI_COMM_NULL) MPI_Win_fence(0, pair_win);
    // After the epoch: fetched while no one writes the allocated window.
    MPI_Win_fence(0, allocate_win);
    MPI_Get(fetched, kCount, MPI_INT, last, 0, kCount, MPI_INT, allocate_win);
    MPI_Win_fence(0, allocate_win);
    printf("rank %d phase %d: created %lld, got %lld, allocated %lld, fetched from %d %lld, "
           "parity %lld, parity got %lld, pair %lld, pair got %lld\n",
           rank, phase, checksum(created, kCount), checksum(got, kCount / 2),
           checksum(allocated, kCount), last, checksum(fetched, kCount),
           checksum(parity_memory, kCount), checksum(parity_got, kCount / 4),
           checksum(pair_memory, kCount), checksum(pair_got, kCount / 4));
  }
  if (parity != MPI_COMM_NULL) {
    char name[MPI_MAX_OBJECT_NAME];
    int length;
    MPI_Win_get_name(parity_win, name, &length);
    printf("rank %d: parity window named %s\n", rank, name);
    MPI_Win_free(&parity_win);
    MPI_Comm_free(&parity);
  } else {
    printf("rank %d: no parity window\n", rank);
  }
  if (pair != MPI_COMM_NULL) {
    MPI_Win_free(&pair_win);
    MPI_Comm_free(&pair);
  }
  MPI_Win_free(&allocate_win);
  MPI_Win_free(&create_win);
  MPI_Finalize();
  return 0;
}
