// MODE: openmp
//===- parallel_shares_40.c - a region that shares 40 local variables ------===//
//
// clang outlines a parallel region into a function taking one argument per
// variable it shares, and __kmpc_fork_call passes them through varargs. This
// region shares 40 locals of mixed types (ints, doubles, arrays, a struct)
// plus one firstprivate scalar, so the runtime must call an outlined function
// of 43 parameters with every argument in its place: a swapped or dropped
// argument changes the printed sums. Each thread adds its number times a
// per-variable weight, so the totals depend on the team size only.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

typedef struct {
  long long count;
  double scaled;
} Tally;

#define INTS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
  X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27)
#define DOUBLES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

int main(void) {
#define DECLARE_INT(k) int i##k = (k) * 1000;
  INTS(DECLARE_INT)
#define DECLARE_DOUBLE(k) double d##k = (k) + 0.5;
  DOUBLES(DECLARE_DOUBLE)
  int column[4] = {0, 0, 0, 0};
  long long wide[3] = {1, 2, 3};
  Tally tally = {0, 0.0};
  int team = 0;
  int seed = 7;

#pragma omp parallel firstprivate(seed)
  {
    int me = omp_get_thread_num();
#pragma omp critical
    {
#define BUMP_INT(k) i##k += (me + 1) * ((k) + 1) + seed;
      INTS(BUMP_INT)
#define BUMP_DOUBLE(k) d##k += (me + 1) * 0.25 * ((k) + 1);
      DOUBLES(BUMP_DOUBLE)
      column[me % 4] += me + 1;
      wide[me % 3] *= 2;
      tally.count += 1;
      tally.scaled += 0.5 * (me + 1);
    }
#pragma omp single
    team = omp_get_num_threads();
    seed = -1;
  }

  printf("team %d seed %d\n", team, seed);
#define PRINT_INT(k) printf("i%d %d\n", k, i##k);
  INTS(PRINT_INT)
#define PRINT_DOUBLE(k) printf("d%d %.2f\n", k, d##k);
  DOUBLES(PRINT_DOUBLE)
  printf("column %d %d %d %d\n", column[0], column[1], column[2], column[3]);
  printf("wide %lld %lld %lld\n", wide[0], wide[1], wide[2]);
  printf("tally %lld %.2f\n", tally.count, tally.scaled);
  return 0;
}
