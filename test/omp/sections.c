// MODE: openmp
// sections: each section runs exactly once, whichever thread takes it;
// lastprivate takes the lexically last section's value, reductions combine,
// and nowait sections are done by the next barrier.
#include <omp.h>
#include <stdio.h>

static long long work(int seed) {
  long long x = seed;
  for (int i = 0; i < 1000; ++i) x = (x * 6364136223846793005ULL + 1442695040888963407ULL) % 1000003;
  return x;
}

int main(void) {
  long long r[5] = {0};
  int runs[5] = {0};
#pragma omp parallel sections
  {
#pragma omp section
    { r[0] = work(1); runs[0]++; }
#pragma omp section
    { r[1] = work(2); runs[1]++; }
#pragma omp section
    { r[2] = work(3); runs[2]++; }
#pragma omp section
    { r[3] = work(4); runs[3]++; }
#pragma omp section
    { r[4] = work(5); runs[4]++; }
  }
  for (int i = 0; i < 5; ++i) printf("section %d: %lld, ran %d time(s)\n", i, r[i], runs[i]);

  int last = -1;
  long long sum = 0;
#pragma omp parallel
  {
#pragma omp sections lastprivate(last) reduction(+: sum)
    {
#pragma omp section
      { last = 10; sum += 1; }
#pragma omp section
      { last = 20; sum += 10; }
#pragma omp section
      { last = 30; sum += 100; }
    }
  }
  printf("lastprivate %d, reduction %lld\n", last, sum);

  int a = 0, b = 0, seenAfterBarrier = 0;
#pragma omp parallel
  {
#pragma omp sections nowait
    {
#pragma omp section
      a = 7;
#pragma omp section
      b = 8;
    }
#pragma omp barrier
#pragma omp single
    seenAfterBarrier = a + b;
  }
  printf("nowait sections then barrier: %d\n", seenAfterBarrier);

  int single = 0;
#pragma omp parallel sections num_threads(1)
  {
#pragma omp section
    single += 1;
#pragma omp section
    single += 2;
  }
  printf("one thread: %d\n", single);
  return 0;
}
