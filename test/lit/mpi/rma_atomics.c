// Atomic one-sided operations: MPI_Fetch_and_op with every predefined op
// that applies to int (MPI_REPLACE and MPI_NO_OP included), a ticket
// counter every rank draws from (each ticket handed out once),
// MPI_Compare_and_swap electing one winner, MPI_Get_accumulate on a
// vector and on doubles, and the request-based MPI_Rput, MPI_Rget,
// MPI_Raccumulate and MPI_Rget_accumulate completed by MPI_Wait/Waitall.
// RUN: %mpi-diff %s %t 2 3 4
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kCells = 16, kTickets = 5 };

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* cells;
  MPI_Win win;
  MPI_Win_allocate(kCells * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cells,
                   &win);
  for (int i = 0; i < kCells; ++i) cells[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  // Tickets: every rank takes kTickets numbers from rank 0's cell 0.
  int tickets[kTickets];
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < kTickets; ++i) {
    int one = 1;
    MPI_Fetch_and_op(&one, &tickets[i], MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
  }
  MPI_Win_unlock_all(win);
  int* all = malloc(sizeof(int) * kTickets * size);
  MPI_Gather(tickets, kTickets, MPI_INT, all, kTickets, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int* seen = calloc(kTickets * size, sizeof(int));
    int bad = 0;
    for (int i = 0; i < kTickets * size; ++i) {
      if (all[i] < 0 || all[i] >= kTickets * size || seen[all[i]]++) bad = 1;
    }
    printf("tickets: counter %d, each handed out once %d\n", cells[0], !bad);
    free(seen);
  }
  free(all);

  // Each predefined op, applied by rank 1 to a fresh cell of rank 0.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD,    MPI_LAND,
                                 MPI_BAND, MPI_LOR, MPI_BOR,  MPI_LXOR,    MPI_BXOR,
                                 MPI_REPLACE, MPI_NO_OP};
    static const char* names[] = {"max", "min", "sum", "prod", "land", "band",
                                  "lor", "bor", "lxor", "bxor", "replace", "no_op"};
    for (int i = 0; i < 12; ++i) {
      int start = 12, operand = 10, old = -1, now = -1;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Put(&start, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
      MPI_Win_flush(0, win);
      MPI_Fetch_and_op(&operand, &old, MPI_INT, 0, 1, ops[i], win);
      MPI_Win_flush(0, win);
      MPI_Get(&now, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
      MPI_Win_unlock(0, win);
      printf("fetch_and_op %s: old %d new %d\n", names[i], old, now);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Compare-and-swap: only the first rank to find -1 installs its rank.
  if (rank == 0) cells[2] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  int minus_one = -1, previous;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Compare_and_swap(&rank, &minus_one, &previous, MPI_INT, 0, 2, win);
  MPI_Win_unlock(0, win);
  int won = previous == -1, winners;
  MPI_Reduce(&won, &winners, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("compare_and_swap: %d winner, cell holds a rank %d\n", winners,
                        cells[2] >= 0 && cells[2] < size);
  // A swap that does not match leaves the cell alone.
  if (rank == 0) {
    int other = 99, wrong = 12345, seen;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Compare_and_swap(&other, &wrong, &seen, MPI_INT, 0, 2, win);
    MPI_Win_unlock(0, win);
    printf("compare_and_swap mismatch: unchanged %d\n", seen == cells[2]);
  }

  // Get_accumulate of a vector: everyone adds (rank+1)*[1,2,3] into rank
  // 0's cells 4..6 and fetches what was there, in rank order.
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      int add[3] = {rank + 1, 2 * (rank + 1), 3 * (rank + 1)}, before[3];
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Get_accumulate(add, 3, MPI_INT, before, 3, MPI_INT, 0, 4, 3, MPI_INT, MPI_SUM, win);
      MPI_Win_unlock(0, win);
      printf("rank %d get_accumulate before %d %d %d\n", rank, before[0], before[1], before[2]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) printf("get_accumulate total %d %d %d\n", cells[4], cells[5], cells[6]);

  // Request-based operations on the right neighbour.
  int right = (rank + 1) % size;
  MPI_Win_lock_all(0, win);
  MPI_Request requests[4];
  int put[2] = {rank, rank * rank}, got[2] = {0, 0}, acc = rank + 1, before = -1;
  MPI_Rput(put, 2, MPI_INT, right, 8, 2, MPI_INT, win, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Win_flush(right, win);
  MPI_Rget(got, 2, MPI_INT, right, 8, 2, MPI_INT, win, &requests[1]);
  MPI_Raccumulate(&acc, 1, MPI_INT, right, 10, 1, MPI_INT, MPI_SUM, win, &requests[2]);
  MPI_Waitall(2, &requests[1], MPI_STATUSES_IGNORE);
  MPI_Win_flush(right, win);
  MPI_Rget_accumulate(NULL, 0, MPI_INT, &before, 1, MPI_INT, right, 10, 1, MPI_INT, MPI_NO_OP,
                      win, &requests[3]);
  MPI_Wait(&requests[3], MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  printf("rank %d rget %d %d rget_accumulate %d request null %d\n", rank, got[0], got[1],
         before, requests[0] == MPI_REQUEST_NULL && requests[3] == MPI_REQUEST_NULL);
  MPI_Win_free(&win);

  // Doubles: Get_accumulate with MPI_MAX and MPI_REPLACE.
  double* values;
  MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &values,
                   &win);
  values[0] = 0.25;
  values[1] = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  double mine = 1.5 * rank, old;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Get_accumulate(&mine, 1, MPI_DOUBLE, &old, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_MAX,
                     win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("double max %.2f\n", values[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    double replacement = 7.75;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get_accumulate(&replacement, 1, MPI_DOUBLE, &old, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE,
                       MPI_REPLACE, win);
    MPI_Win_unlock(0, win);
    printf("double replace old %.2f\n", old);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("double replaced %.2f\n", values[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
