// MODE: openmp
// Task dependences between siblings: results that are only right if the
// runtime orders the tasks as their in/out/inout clauses say.
#include <omp.h>
#include <stdio.h>

#define STAGES 40
#define BLOCKS 8

static long long grid[BLOCKS][BLOCKS];

int main(void) {
  // A chain of inout tasks on one variable: x = 3x + i is order-sensitive.
  long long chain = 1;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < STAGES; ++i) {
#pragma omp task depend(inout: chain) firstprivate(i)
    chain = (chain * 3 + i) % 1000000007;
  }
  long long expected = 1;
  for (int i = 0; i < STAGES; ++i) expected = (expected * 3 + i) % 1000000007;
  printf("inout chain: %lld (%s)\n", chain, chain == expected ? "ok" : "WRONG");

  // A pipeline: stage s of item k needs stage s-1 of item k (out->in) and
  // stage s of item k-1 (a stage keeps state across items).
  enum { ITEMS = 12, PIPE = 4 };
  int value[ITEMS][PIPE + 1];
  int state[PIPE];
  char log[PIPE][ITEMS * 4 + 1];
  int logLength[PIPE] = {0};
  for (int s = 0; s < PIPE; ++s) state[s] = s + 1;
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < ITEMS; ++k) {
#pragma omp task depend(out: value[k][0]) firstprivate(k)
    value[k][0] = k;
    for (int s = 0; s < PIPE; ++s) {
#pragma omp task depend(in: value[k][s]) depend(out: value[k][s + 1]) depend(inout: state[s]) \
    firstprivate(k, s)
      {
        state[s] = (state[s] * 7 + value[k][s]) % 97;
        value[k][s + 1] = state[s];
        logLength[s] += sprintf(log[s] + logLength[s], "%d,", k);
      }
    }
  }
  for (int s = 0; s < PIPE; ++s) printf("stage %d saw items %s final state %d\n", s, log[s], state[s]);
  for (int k = 0; k < ITEMS; ++k) printf("%d ", value[k][PIPE]);
  printf("\n");

  // Readers between two writers: every reader sees the first value, the
  // second writer waits for all of them.
  int shared = 0, seen[16];
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out: shared)
    shared = 41;
    for (int r = 0; r < 16; ++r) {
#pragma omp task depend(in: shared) firstprivate(r)
      seen[r] = shared + r;
    }
#pragma omp task depend(out: shared)
    shared = -1;
#pragma omp taskwait
  }
  int readersOk = 1;
  for (int r = 0; r < 16; ++r) readersOk &= seen[r] == 41 + r;
  printf("readers: %s, final %d\n", readersOk ? "ok" : "WRONG", shared);

  // A wavefront over blocks: (i,j) needs (i-1,j) and (i,j-1).
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < BLOCKS; ++i)
    for (int j = 0; j < BLOCKS; ++j) {
#pragma omp task depend(in: grid[i > 0 ? i - 1 : i][j], grid[i][j > 0 ? j - 1 : j]) \
    depend(out: grid[i][j]) firstprivate(i, j)
      {
        long long up = i > 0 ? grid[i - 1][j] : 1;
        long long left = j > 0 ? grid[i][j - 1] : 1;
        grid[i][j] = (up * 31 + left * 17 + i + j) % 1000003;
      }
    }
  printf("wavefront corner %lld\n", grid[BLOCKS - 1][BLOCKS - 1]);

  // taskwait depend, and an undeferred task with dependences.
  int a = 0, b = 0, fromA = -1, fromB = -1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task depend(out: a)
    a = 5;
#pragma omp task depend(out: b)
    b = 6;
#pragma omp taskwait depend(in: a)
    fromA = a;
#pragma omp task depend(in: b) if(0)
    fromB = b;
  }
  printf("taskwait depend: %d, undeferred with depend: %d\n", fromA, fromB);

  // mutexinoutset: the order is free but the updates must not overlap.
  long long sum = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 1; i <= 50; ++i) {
#pragma omp task depend(mutexinoutset: sum) firstprivate(i)
      sum += i * i;
    }
#pragma omp task depend(in: sum)
    sum *= 2;
  }
  printf("mutexinoutset sum %lld\n", sum);
  return 0;
}
