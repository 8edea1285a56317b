// MODE: openmp
// A barrier completes every task of the team, whichever thread created it
// and whichever host that thread runs on when the team spans hosts: tasks
// that create more tasks, with no taskwait, fill a table, and right after
// the barrier other threads read what they wrote. Rows are owned round
// robin, so the result does not depend on the team's size.
#include <omp.h>
#include <stdio.h>

#define ROWS 12
#define COLS 12
#define ROUNDS 3

static long long tables[2][ROWS][COLS];
static long long readAcross[ROWS];
static int leaves;

static long long mix(long long x) {
  for (int i = 0; i < 40; ++i) x = (x * 1103515245 + 12345) % 1000003;
  return x;
}

// Splits [first, first + count) of `row` into tasks down to single cells;
// each cell is a function of the previous round's table.
static void fill(int round, int row, int first, int count) {
  if (count == 1) {
    const long long (*before)[COLS] = tables[(round + 1) % 2];
    tables[round % 2][row][first] =
        mix(before[(row + 1) % ROWS][first] + before[row][(first + 5) % COLS] + round);
#pragma omp atomic
    leaves++;
    return;
  }
  int half = count / 2;
#pragma omp task firstprivate(round, row, first, half)
  fill(round, row, first, half);
#pragma omp task firstprivate(round, row, first, half, count)
  fill(round, row, first + half, count - half);
}

static long long rowSum(const long long (*table)[COLS], int row) {
  long long sum = 0;
  for (int c = 0; c < COLS; ++c) sum += table[row][c];
  return sum;
}

int main(void) {
  for (int r = 0; r < ROWS; ++r)
    for (int c = 0; c < COLS; ++c) tables[1][r][c] = r * 100 + c;

  // Every thread fills its rows with tasks; after each barrier every
  // thread reads rows other threads' tasks wrote.
#pragma omp parallel
  {
    int me = omp_get_thread_num(), threads = omp_get_num_threads();
    for (int round = 0; round < ROUNDS; ++round) {
      for (int row = me; row < ROWS; row += threads) fill(round, row, 0, COLS);
#pragma omp barrier
      for (int row = me; row < ROWS; row += threads)
        readAcross[row] = rowSum(tables[round % 2], (row + 3) % ROWS);
#pragma omp barrier
    }
  }
  long long across = 0;
  for (int r = 0; r < ROWS; ++r) across += readAcross[r];
  printf("every thread's tasks: %d leaves, read across the team %lld\n", leaves, across);

  // The team's last thread alone creates every task; the barrier ending
  // the loop of thread 0's reads waits for them first.
  long long total = 0;
  leaves = 0;
#pragma omp parallel
  {
    if (omp_get_thread_num() == omp_get_num_threads() - 1)
      for (int row = 0; row < ROWS; ++row) fill(ROUNDS, row, 0, COLS);
#pragma omp barrier
#pragma omp master
    for (int row = 0; row < ROWS; ++row) total += rowSum(tables[ROUNDS % 2], row);
  }
  printf("the last thread's tasks: %d leaves, table sum %lld\n", leaves, total);

  // The same from a single, whose closing barrier completes the tasks
  // before the other threads go on.
  long long afterSingle[ROWS] = {0};
  leaves = 0;
#pragma omp parallel
  {
#pragma omp single
    for (int row = 0; row < ROWS; ++row) fill(ROUNDS + 1, row, 0, COLS);
#pragma omp for schedule(static)
    for (int row = 0; row < ROWS; ++row) afterSingle[row] = rowSum(tables[(ROUNDS + 1) % 2], row);
  }
  long long single = 0;
  for (int r = 0; r < ROWS; ++r) single += afterSingle[r];
  printf("a single's tasks: %d leaves, table sum %lld\n", leaves, single);
  return 0;
}
