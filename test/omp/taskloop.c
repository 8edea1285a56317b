// MODE: openmp
// taskloop with grainsize and num_tasks, reductions done with atomics and
// with per-chunk partial sums, firstprivate/lastprivate, nogroup, negative
// strides, a 64-bit loop and an if(0) taskloop.
#include <omp.h>
#include <stdio.h>

#define N 1000

static long long partial[N];

int main(void) {
  long long atomicSum = 0;
  int covered[N] = {0};
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(37)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic
      atomicSum += i;
      covered[i]++;
    }
  }
  int once = 1;
  for (int i = 0; i < N; ++i) once &= covered[i] == 1;
  printf("grainsize: sum %lld, each iteration once: %s\n", atomicSum, once ? "yes" : "no");

  // Per-iteration partials summed after the taskloop's implicit taskgroup.
  long long total = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop num_tasks(7)
    for (int i = 0; i < N; ++i) partial[i] = (long long)i * i;
    for (int i = 0; i < N; ++i) total += partial[i];
  }
  printf("num_tasks: sum of squares %lld\n", total);

  int offset = 5, last = -1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop firstprivate(offset) lastprivate(last) grainsize(10)
    for (int i = 0; i < 95; ++i) {
      partial[i] = i + offset;
      offset++;  // private per task: does not leak between chunks
      last = i * 2;
    }
  }
  int firstOk = 1;
  for (int i = 0; i < 95; ++i) firstOk &= partial[i] >= i + 5;
  printf("firstprivate ok: %d, lastprivate %d\n", firstOk, last);

  long long down = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop num_tasks(4) nogroup
    for (int i = 300; i > 0; i -= 3) {
#pragma omp atomic
      down += i;
    }
#pragma omp taskwait
  }
  printf("negative stride, nogroup: %lld\n", down);

  long long big = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(1000)
    for (long long i = 5000000000LL; i < 5000010000LL; ++i) {
#pragma omp atomic
      big += i - 5000000000LL;
    }
  }
  printf("64-bit bounds: %lld\n", big);

  int order[20], position = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop if(0) grainsize(5)
    for (int i = 0; i < 20; ++i) order[i] = i;
    position = 20;
  }
  int ifOk = 1;
  for (int i = 0; i < 20; ++i) ifOk &= order[i] == i;
  printf("if(0) taskloop: %s (%d)\n", ifOk ? "ok" : "WRONG", position);

  // From every thread, and outside any parallel region.
  long long everyone = 0;
#pragma omp parallel
  {
#pragma omp taskloop num_tasks(3)
    for (int i = 0; i < 100; ++i) {
#pragma omp atomic
      everyone += i;
    }
  }
  printf("every thread: %lld per thread\n", everyone / omp_get_max_threads());
  long long solo = 0;
#pragma omp taskloop grainsize(8)
  for (int i = 0; i < 50; ++i) {
#pragma omp atomic
    solo += i;
  }
  printf("outside a region: %lld\n", solo);
  return 0;
}
