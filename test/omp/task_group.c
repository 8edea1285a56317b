// MODE: openmp
// taskgroup waits for descendants, not only children: tasks spawn
// grandchildren without taskwait, and after the taskgroup every one of them
// must have run. Also nested taskgroups, one taskgroup per thread, and
// taskyield.
#include <omp.h>
#include <stdio.h>

#define N 24

static int done[N][N];

static void spawnTree(int depth, int* counter) {
  if (depth == 0) return;
  for (int i = 0; i < 2; ++i) {
#pragma omp task firstprivate(depth)
    {
#pragma omp atomic
      (*counter)++;
      spawnTree(depth - 1, counter);
    }
  }
}

int main(void) {
  int afterGroup = -1, treeNodes = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
      for (int i = 0; i < N; ++i) {
#pragma omp task firstprivate(i)
        for (int j = 0; j < N; ++j) {
#pragma omp task firstprivate(i, j)
          done[i][j] = i * N + j + 1;
        }
      }
    }
    afterGroup = 0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) afterGroup += done[i][j] == i * N + j + 1;
  }
  printf("taskgroup: %d of %d grandchildren done\n", afterGroup, N * N);

  int outer = 0, inner = 0, innerSeenByOuter = -1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task
      {
#pragma omp taskgroup
        {
          spawnTree(5, &inner);
        }
        innerSeenByOuter = inner;
      }
      spawnTree(4, &outer);
    }
    treeNodes = outer + inner;
  }
  printf("nested taskgroups: inner %d (seen %d), outer %d, total %d\n", inner, innerSeenByOuter,
         outer, treeNodes);

  // A taskgroup in every thread, each over its own tree.
  int perThread[64] = {0};
  int threads = 1;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
    int me = omp_get_thread_num();
#pragma omp taskgroup
    spawnTree(3 + me % 3, &perThread[me]);
  }
  int ok = 1;
  for (int t = 0; t < threads; ++t) ok &= perThread[t] == (1 << (4 + t % 3)) - 2;
  printf("per-thread taskgroups: %s\n", ok ? "ok" : "WRONG");

  // taskyield is only a scheduling point: whatever runs there, the
  // taskwait after it still sees every task done.
  int yielded[32] = {0};
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < 32; ++i) {
#pragma omp task firstprivate(i)
      yielded[i] = i + 1;
#pragma omp taskyield
    }
#pragma omp taskwait
  }
  int yieldSum = 0;
  for (int i = 0; i < 32; ++i) yieldSum += yielded[i];
  printf("taskyield: %d\n", yieldSum);
  return 0;
}
