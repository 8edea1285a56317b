//===- omp_spread.c - parallel regions whose threads span hosts -----------===//
//
// The shape issue 22's threads-across-hosts slice carries: outermost
// `parallel` and `parallel for` regions with static schedules and no
// synchronisation inside but reductions, run with their threads spread over hosts
// (synergy-run --threads-per-host). Each region reads what earlier regions
// and main() wrote, in data, on the heap and on main's stack, so a copy
// that lost an update, or a join that lost a thread's writes, shows in the
// printed sums; libgomp's run is the oracle. With the argument `barrier`
// it runs regions with barriers inside instead, where every thread reads
// what all others wrote before the barrier (their writes cross hosts at
// it). With `wait FILE` main() first waits (at most a minute) until
// FILE exists, so that a test can talk to the job's hosts meanwhile.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 100000, ROUNDS = 4 };

static int64_t values[N];
static int owner[N];
static int team_sizes[64];
static double scale = 1.0;  // data, changed by main between regions

int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "barrier")) {
    int seen[64] = {0};
    for (int round = 1; round <= 3; ++round) {
#pragma omp parallel
      {
        int me = omp_get_thread_num();
        team_sizes[me] = (me + 1) * round;
#pragma omp barrier
        int sum = 0;
        for (int thread = 0; thread < omp_get_num_threads(); ++thread) sum += team_sizes[thread];
#pragma omp barrier
        team_sizes[me] = 0;
        seen[me] += sum;
      }
    }
    for (int thread = 0; thread < omp_get_max_threads(); ++thread)
      printf("thread %d saw %d\n", thread, seen[thread]);
    return 0;
  }
  if (argc > 2 && !strcmp(argv[1], "wait"))
    for (int tries = 0; tries < 1200 && access(argv[2], F_OK) != 0; ++tries)
      usleep(50000);
  int64_t* heap = malloc(N * sizeof *heap);
  int local_base[8] = {3, 1, 4, 1, 5, 9, 2, 6};  // main's stack, read by every thread
#pragma omp parallel
  {
    int me = omp_get_thread_num();
    team_sizes[me] = omp_get_num_threads();
  }
  for (int round = 0; round < ROUNDS; ++round) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; ++i) {
      values[i] = values[i] * 3 + i + local_base[(i + round) % 8];
      owner[i] = omp_get_thread_num();
    }
#pragma omp parallel for schedule(static, 7)
    for (int i = 0; i < N; ++i)
      heap[i] = (round ? heap[i] : 0) + values[N - 1 - i] % 1000 + (int64_t)(scale * i);
    scale *= 1.5;
    local_base[round % 8] += round;
    int64_t sum = 0, heap_sum = 0, largest = 0;
    double mean = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum, heap_sum, mean) reduction(max : largest)
    for (int i = 0; i < N; ++i) {
      sum += values[i];
      heap_sum += heap[i];
      mean += (double)(heap[i] % 1024) / N;
      if (heap[i] > largest)
        largest = heap[i];
    }
    printf("round %d: sum %lld heap %lld largest %lld mean %.6f owners", round, (long long)sum,
           (long long)heap_sum, (long long)largest, mean);
    for (int i = 0; i < N; i += N / 10)
      printf(" %d", owner[i]);
    printf("\n");
  }
  printf("team sizes:");
  for (int i = 0; i < 64 && team_sizes[i]; ++i)
    printf(" %d", team_sizes[i]);
  printf("\n");
  free(heap);
  return 0;
}
