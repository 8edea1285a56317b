// MODE: openmp
//===- nested_parallel.c - nested teams under max-active-levels -----------===//
//
// Outer and inner teams record their level, team sizes and thread numbers
// into a table indexed by (outer thread, inner thread), printed afterwards
// in that order, so the output does not depend on which thread ran first.
// With omp_set_max_active_levels(2) two levels are active and a third
// runs with a team of one (but still counts as a level); with 1 only the
// outer team is active; omp_set_nested(0) and (1) switch nesting off and on.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { OUTER = 3, INNER = 4 };

typedef struct {
  int ran;
  int level;
  int outer_team;
  int inner_team;
  int innermost_team;
  int innermost_level;
  int in_parallel;
} Cell;

static Cell cells[OUTER][INNER];

static void run_nest(const char *label, int inner_threads) {
  memset(cells, 0, sizeof cells);
#pragma omp parallel num_threads(OUTER)
  {
    const int outer = omp_get_thread_num();
    const int outer_team = omp_get_num_threads();
#pragma omp parallel num_threads(inner_threads)
    {
      const int inner = omp_get_thread_num();
      int innermost_team = 0, innermost_level = 0;
#pragma omp parallel num_threads(2)
      {
#pragma omp master
        {
          innermost_team = omp_get_num_threads();
          innermost_level = omp_get_level();
        }
      }
      if (outer < OUTER && inner < INNER) {
        Cell *cell = &cells[outer][inner];
        cell->ran = 1;
        cell->level = omp_get_level();
        cell->outer_team = outer_team;
        cell->inner_team = omp_get_num_threads();
        cell->innermost_team = innermost_team;
        cell->innermost_level = innermost_level;
        cell->in_parallel = omp_in_parallel();
      }
    }
  }
  printf("%s\n", label);
  for (int o = 0; o < OUTER; ++o)
    for (int i = 0; i < INNER; ++i) {
      const Cell *c = &cells[o][i];
      if (c->ran)
        printf("  outer %d inner %d level %d teams %d/%d in parallel %d innermost team %d level %d\n",
               o, i, c->level, c->outer_team, c->inner_team, c->in_parallel, c->innermost_team,
               c->innermost_level);
    }
}

int main(void) {
  printf("level outside %d\n", omp_get_level());
  omp_set_max_active_levels(2);
  run_nest("max active levels 2, inner num_threads 4", 4);
  run_nest("max active levels 2, inner num_threads 1", 1);
  omp_set_max_active_levels(1);
  run_nest("max active levels 1", 4);
  omp_set_max_active_levels(2);
  omp_set_nested(0);
  run_nest("nested off", 4);

  // Inner teams of the default size: every thread of every team counted.
  omp_set_max_active_levels(2);
  omp_set_nested(1);
  int total = 0, inner_sizes_ok = 1;
  const int default_size = omp_get_max_threads();
#pragma omp parallel num_threads(2) reduction(+ : total) reduction(&& : inner_sizes_ok)
  {
#pragma omp parallel reduction(+ : total) reduction(&& : inner_sizes_ok)
    {
      total += 1;
      inner_sizes_ok = omp_get_num_threads() == default_size && omp_get_level() == 2;
    }
  }
  printf("default inner teams: %d threads in all, sizes right %d\n", total, inner_sizes_ok);
  return 0;
}
