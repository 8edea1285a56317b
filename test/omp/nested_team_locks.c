// MODE: openmp
//===- nested_team_locks.c - locks and criticals taken in nested teams -----===//
//
// Every thread of a 6-thread outer team (spread over hosts, most of them on
// thread hosts) forks an active inner team of 3, whose threads all take a
// critical section, a named critical, an OpenMP lock, a nestable lock twice
// over and omp_test_lock in a retry loop, updating shared counters
// non-atomically under each: a lock that two threads hold at once loses
// updates. On a thread host the inner threads of one outer thread ask the
// main host as that thread, so the host must let one of them at a time hold
// a lock. Each count is fixed, whatever the schedule.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { OUTER = 6, INNER = 3, ROUNDS = 20 };

static long critical_count, named_count, lock_count, nest_count, test_count;
static long nest_depth_sum;
static long per_outer[OUTER];

int main(void) {
  omp_lock_t lock, test_lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_lock(&test_lock);
  omp_init_nest_lock(&nest);
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(OUTER)
  {
    const int outer = omp_get_thread_num();
#pragma omp parallel num_threads(INNER)
    {
      for (int round = 0; round < ROUNDS; ++round) {
#pragma omp critical
        {
          long seen = critical_count;
          per_outer[outer] += 1;
          critical_count = seen + 1;
        }
#pragma omp critical(named)
        named_count += 2;

        omp_set_lock(&lock);
        long seen = lock_count;
        lock_count = seen + 3;
        omp_unset_lock(&lock);

        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        nest_count += 1;
        nest_depth_sum += omp_test_nest_lock(&nest);  // depth 3: held already
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);

        while (!omp_test_lock(&test_lock)) {
        }
        test_count += 1;
        omp_unset_lock(&test_lock);
      }
    }
  }
  omp_destroy_lock(&lock);
  omp_destroy_lock(&test_lock);
  omp_destroy_nest_lock(&nest);
  printf("critical %ld named %ld lock %ld nest %ld depths %ld test %ld\n", critical_count,
         named_count, lock_count, nest_count, nest_depth_sum, test_count);
  int ok = 1;
  for (int outer = 0; outer < OUTER; ++outer) {
    printf("outer %d: %ld\n", outer, per_outer[outer]);
    ok &= per_outer[outer] == INNER * ROUNDS;
  }
  const long all = (long)OUTER * INNER * ROUNDS;
  ok &= critical_count == all && named_count == 2 * all && lock_count == 3 * all &&
        nest_count == all && nest_depth_sum == 3 * all && test_count == all;
  printf("%s\n", ok ? "ok" : "WRONG");
  return !ok;
}
