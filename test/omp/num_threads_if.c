// MODE: openmp
//===- num_threads_if.c - num_threads and if clauses, omp_set_num_threads ===//
//
// The team size a region gets from num_threads (literal and computed), from
// if(false) (a team of one, inactive, though still a level), and from
// omp_set_num_threads, which changes later regions only. Each team's size
// is checked by counting the threads that actually ran.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

static void team(const char *label, int requested) {
  int counted = 0, reported = 0;
#pragma omp parallel num_threads(requested) reduction(+ : counted)
  {
    counted += 1;
#pragma omp master
    reported = omp_get_num_threads();
  }
  printf("%s: num_threads(%d) gives %d, %d ran\n", label, requested, reported, counted);
}

int main(void) {
  const int initial = omp_get_max_threads();
  printf("max threads %d\n", initial);
  for (int n = 1; n <= 6; ++n)
    team("computed", n);

  int counted = 0;
#pragma omp parallel num_threads(5) reduction(+ : counted)
  counted += 1;
  printf("literal num_threads(5): %d ran\n", counted);

  for (int size = 50; size <= 150; size += 100) {
    int team_size = 0, in_parallel = -1, level = -1;
#pragma omp parallel if (size > 100)
    {
#pragma omp master
      {
        team_size = omp_get_num_threads();
        in_parallel = omp_in_parallel();
        level = omp_get_level();
      }
    }
    printf("if(%d > 100): team %d in parallel %d level %d\n", size, team_size, in_parallel, level);
  }

  int zero_team = 0;
#pragma omp parallel if (0) num_threads(4) reduction(+ : zero_team)
  zero_team += 1;
  printf("if(0) num_threads(4): %d ran\n", zero_team);

  omp_set_num_threads(3);
  printf("after omp_set_num_threads(3): max threads %d\n", omp_get_max_threads());
  int default_team = 0, inner_max = 0;
#pragma omp parallel reduction(+ : default_team)
  {
    default_team += 1;
#pragma omp master
    inner_max = omp_get_max_threads();
  }
  printf("default team %d, max threads inside %d\n", default_team, inner_max);
  team("after set", 2);

  int loop_team = 0;
#pragma omp parallel for num_threads(7) reduction(max : loop_team)
  for (int i = 0; i < 100; ++i)
    loop_team = omp_get_num_threads();
  printf("parallel for num_threads(7): team %d\n", loop_team);
  return 0;
}
