// MODE: openmp
//===- omp_api.c - the OpenMP query routines in and out of regions --------===//
//
// What omp_get_thread_num, omp_get_num_threads, omp_get_max_threads,
// omp_in_parallel and omp_get_level return in serial code, in a team, and
// in an orphaned function called from both; and that omp_get_wtime never
// runs backwards (its values are compared, never printed).
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { MAX_THREADS = 64 };

typedef struct {
  int thread;
  int team;
  int level;
  int in_parallel;
} Where;

static Where where_am_i(void) {
  Where w = {omp_get_thread_num(), omp_get_num_threads(), omp_get_level(), omp_in_parallel()};
  return w;
}

static Where seen[MAX_THREADS];

int main(void) {
  Where outside = where_am_i();
  printf("serial: thread %d team %d level %d in parallel %d max threads %d\n", outside.thread,
         outside.team, outside.level, outside.in_parallel, omp_get_max_threads());

  int team = 0;
#pragma omp parallel
  {
    Where w = where_am_i();
    if (w.thread < MAX_THREADS)
      seen[w.thread] = w;
#pragma omp single
    team = w.team;
  }
  for (int t = 0; t < team && t < MAX_THREADS; ++t)
    printf("thread %d: thread %d team %d level %d in parallel %d\n", t, seen[t].thread, seen[t].team,
           seen[t].level, seen[t].in_parallel);

  int backwards = 0;
  double start = omp_get_wtime();
#pragma omp parallel reduction(+ : backwards)
  {
    double previous = omp_get_wtime();
    for (int k = 0; k < 1000; ++k) {
      double now = omp_get_wtime();
      backwards += now < previous;
      previous = now;
    }
  }
  double end = omp_get_wtime();
  printf("wtime went backwards %d times, overall forwards %s\n", backwards,
         end >= start ? "yes" : "no");
  return 0;
}
