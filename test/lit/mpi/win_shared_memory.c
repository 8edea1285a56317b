// MPI_Win_allocate_shared and MPI_Win_shared_query: the parts of a
// shared-memory window are contiguous in rank order, and a pointer that
// MPI_Win_shared_query returns for any member is valid in every member,
// so plain loads and stores reach another member's part. Each member
// fills its own part, then every member reads all parts through the
// queried pointers and writes into its right neighbour's part directly;
// RMA calls (MPI_Put, MPI_Fetch_and_op) and direct loads see each other's
// updates. One member's part is empty, MPI_PROC_NULL names the first
// non-empty part, the heap still works after the window (malloc must
// never hand out the window's pages), and a second window made after the
// first is freed works the same. The window spans MPI_COMM_WORLD, so
// across hosts (test/cluster's mpi-corpus) it must be refused by name.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int elementsOf(int rank) { return rank == 1 ? 0 : 3 + rank; }

static void roundOf(MPI_Comm shm, int round) {
  int rank, size;
  MPI_Comm_rank(shm, &rank);
  MPI_Comm_size(shm, &size);
  int* mine;
  MPI_Win win;
  MPI_Win_allocate_shared(elementsOf(rank) * sizeof(int), sizeof(int), MPI_INFO_NULL, shm,
                          &mine, &win);
  int* parts[16];
  int contiguous = 1;
  for (int member = 0; member < size; ++member) {
    MPI_Aint bytes;
    int unit;
    MPI_Win_shared_query(win, member, &bytes, &unit, &parts[member]);
    if (bytes != (MPI_Aint)(elementsOf(member) * sizeof(int)) || unit != sizeof(int))
      printf("round %d rank %d: member %d has %ld bytes, unit %d\n", round, rank, member,
             (long)bytes, unit);
    if (member > 0 && parts[member] != parts[member - 1] + elementsOf(member - 1)) contiguous = 0;
  }
  int* first;
  MPI_Aint firstBytes;
  int firstUnit;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &firstBytes, &firstUnit, &first);
  printf("round %d rank %d: contiguous %d own part found %d proc_null is part 0 %d\n", round,
         rank, contiguous, parts[rank] == mine, first == parts[0]);

  MPI_Win_lock_all(0, win);
  for (int i = 0; i < elementsOf(rank); ++i) mine[i] = 1000 * round + 100 * rank + i;
  MPI_Win_sync(win);
  MPI_Barrier(shm);
  MPI_Win_sync(win);
  long sum = 0;
  for (int member = 0; member < size; ++member)
    for (int i = 0; i < elementsOf(member); ++i) sum += parts[member][i];
  printf("round %d rank %d: sum of all parts %ld\n", round, rank, sum);
  MPI_Barrier(shm);

  // Store straight into the right neighbour's first cell (if it has one),
  // then everyone adds 1 to part 0's last cell through MPI_Fetch_and_op.
  int right = (rank + 1) % size;
  if (elementsOf(right) > 0) parts[right][0] = -rank - 1;
  int one = 1, old;
  MPI_Fetch_and_op(&one, &old, MPI_INT, 0, elementsOf(0) - 1, MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Win_sync(win);
  MPI_Barrier(shm);
  MPI_Win_sync(win);
  printf("round %d rank %d: own first cell %d, part 0 last cell %d\n", round, rank,
         elementsOf(rank) > 0 ? mine[0] : 0, parts[0][elementsOf(0) - 1]);
  MPI_Win_unlock_all(win);

  // The heap grows past the window without touching it.
  size_t heapBytes = 3 << 20;
  unsigned char* heap = malloc(heapBytes);
  memset(heap, 0x5a + rank, heapBytes);
  MPI_Barrier(shm);
  int intact = 1;
  for (int member = 0; member < size; ++member)
    for (int i = 1; i < elementsOf(member); ++i)
      if (parts[member][i] != 1000 * round + 100 * member + i + (member == 0 && i == elementsOf(0) - 1 ? size : 0))
        intact = 0;
  printf("round %d rank %d: window intact after malloc %d heap %d\n", round, rank, intact,
         heap[heapBytes - 1] == 0x5a + rank);
  free(heap);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  roundOf(MPI_COMM_WORLD, 0);
  roundOf(MPI_COMM_WORLD, 1);
  MPI_Finalize();
  return 0;
}
