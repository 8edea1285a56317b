// MODE: openmp
// Inner teams that synchronise among themselves and with the whole job:
// every thread of a 6-thread outer team (spread over hosts, most of them on
// thread hosts) forks an active inner team of 3 that runs a dynamic loop
// with a reduction, a barrier between writes and a sibling's read, a single,
// malloc and free (libc's lock), and an atomic on a counter of the whole
// job; each records omp_get_ancestor_thread_num and omp_get_team_size at
// both levels. Results go into a table printed afterwards in order.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { OUTER = 6, INNER = 3, ITEMS = 40 };

typedef struct {
  int ancestor, outer_size, inner_size, level, active_level;
  long sum;
  int neighbour, single_winners, block_ok;
} Cell;

static Cell cells[OUTER][INNER];
static int written[OUTER][INNER];
static int job_counter;

int main(void) {
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(OUTER)
  {
    const int outer = omp_get_thread_num();
    int single_winners = 0;
    long sum = 0;
#pragma omp parallel num_threads(INNER)
    {
      const int inner = omp_get_thread_num();
#pragma omp for schedule(dynamic, 3) reduction(+ : sum)
      for (int i = 0; i < ITEMS; ++i) sum += (long)(outer + 1) * i;
      written[outer][inner] = outer * 100 + inner;
#pragma omp barrier
      const int neighbour = written[outer][(inner + 1) % INNER];
#pragma omp single
      {
#pragma omp atomic
        single_winners += 1;
      }
      int *block = malloc(64 * sizeof *block);
      int block_ok = block != NULL;
      if (block) {
        for (int i = 0; i < 64; ++i) block[i] = outer * inner + i;
        for (int i = 0; i < 64; ++i) block_ok &= block[i] == outer * inner + i;
        free(block);
      }
#pragma omp atomic
      job_counter += inner + 1;
      Cell *cell = &cells[outer][inner];
      cell->ancestor = omp_get_ancestor_thread_num(1);
      cell->outer_size = omp_get_team_size(1);
      cell->inner_size = omp_get_team_size(2);
      cell->level = omp_get_level();
      cell->active_level = omp_get_active_level();
      cell->sum = sum;
      cell->neighbour = neighbour;
      cell->block_ok = block_ok;
    }
    for (int inner = 0; inner < INNER; ++inner) cells[outer][inner].single_winners = single_winners;
  }
  for (int outer = 0; outer < OUTER; ++outer)
    for (int inner = 0; inner < INNER; ++inner) {
      const Cell *c = &cells[outer][inner];
      printf("outer %d inner %d: ancestor %d sizes %d/%d level %d/%d sum %ld neighbour %d "
             "single %d block %d\n",
             outer, inner, c->ancestor, c->outer_size, c->inner_size, c->level, c->active_level,
             c->sum, c->neighbour, c->single_winners, c->block_ok);
    }
  printf("job counter %d\n", job_counter);
  return 0;
}
