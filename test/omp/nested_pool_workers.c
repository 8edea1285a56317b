// MODE: openmp
// Pooled workers outlive the region that made them: inner teams forked by
// outer threads 0 and 1 (the main host's, when the outer team spans hosts)
// get workers from the pool, and later regions, spread or not, give those
// workers to other teams, under other outer threads. Each inner thread
// writes its cell from values the encountering thread wrote just before the
// inner region, and every table is checked after its region.
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 3, OUTER = 6, INNER = 3 };

static int seeds[ROUNDS][OUTER];
static int cells[ROUNDS][OUTER][INNER];
static int local_cells[2][4];

static int mix(int x) {
  for (int i = 0; i < 20; ++i) x = (x * 1103 + 12345) % 100003;
  return x;
}

int main(void) {
  omp_set_max_active_levels(2);
  for (int round = 0; round < ROUNDS; ++round) {
    // The outer team's size changes from round to round, so the pool hands
    // a worker to a different outer thread's inner team than before.
#pragma omp parallel num_threads(OUTER - 2 * (round % 2))
    {
      const int outer = omp_get_thread_num();
      seeds[round][outer] = mix(round * 100 + outer);
#pragma omp parallel num_threads(INNER) if (outer < 2)
      {
        const int inner = omp_get_thread_num();
        cells[round][outer][inner] = mix(seeds[round][outer] + inner) * 10 + omp_get_level();
      }
    }
  }
  // An outer team that fits on one host, with inner teams of pooled workers.
#pragma omp parallel num_threads(2)
  {
    const int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
    local_cells[outer][omp_get_thread_num()] = mix(outer * 4 + omp_get_thread_num()) +
                                               omp_get_num_threads() * omp_get_level();
  }
  for (int round = 0; round < ROUNDS; ++round) {
    printf("round %d:", round);
    for (int outer = 0; outer < OUTER - 2 * (round % 2); ++outer) {
      int inner_threads = outer < 2 ? INNER : 1;
      for (int inner = 0; inner < inner_threads; ++inner)
        printf(" %d", cells[round][outer][inner]);
      printf(" |");
    }
    printf("\n");
  }
  for (int outer = 0; outer < 2; ++outer) {
    printf("local %d:", outer);
    for (int inner = 0; inner < 4; ++inner) printf(" %d", local_cells[outer][inner]);
    printf("\n");
  }
  return 0;
}
