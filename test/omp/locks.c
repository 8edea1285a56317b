// MODE: openmp
//===- locks.c - omp_lock_t and omp_nest_lock_t ---------------------------===//
//
// A simple lock guards a non-atomic two-field update; omp_test_lock must
// fail on a lock the caller's team mate holds and succeed once it is free.
// A nestable lock is taken recursively by its owner (omp_test_nest_lock
// returns the new nesting depth) while excluding every other thread.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { ROUNDS = 3000 };

static omp_nest_lock_t nest;
static long long nested_total;
static int max_depth_seen;

static void add_recursively(int depth, int value) {
  omp_set_nest_lock(&nest);
  nested_total += value;
  if (depth > max_depth_seen)
    max_depth_seen = depth;
  if (depth < 3)
    add_recursively(depth + 1, value);
  omp_unset_nest_lock(&nest);
}

int main(void) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  long long sum = 0, count = 0;
  int acquired_by_test = 0;

#pragma omp parallel for schedule(dynamic, 5) reduction(+ : acquired_by_test)
  for (int i = 0; i < ROUNDS; ++i) {
    if (i % 3 == 0) {
      while (!omp_test_lock(&lock)) {
      }
      acquired_by_test += 1;
    } else {
      omp_set_lock(&lock);
    }
    long long s = sum, c = count;
    sum = s + i;
    count = c + 1;
    omp_unset_lock(&lock);
  }
  printf("sum %lld count %lld acquired by test %d\n", sum, count, acquired_by_test);

  // A held lock: test from another thread must fail, then succeed after release.
  int refused = -1, granted = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() == 2) {
      if (omp_get_thread_num() == 0)
        omp_set_lock(&lock);
#pragma omp barrier
      if (omp_get_thread_num() == 1) {
        refused = !omp_test_lock(&lock);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 0)
        omp_unset_lock(&lock);
#pragma omp barrier
      if (omp_get_thread_num() == 1) {
        granted = omp_test_lock(&lock);
        if (granted)
          omp_unset_lock(&lock);
      }
    }
  }
  printf("test of held lock refused %d, after release granted %d\n", refused, granted);
  omp_destroy_lock(&lock);

  omp_init_nest_lock(&nest);
  int depths[4] = {0};
  depths[0] = omp_test_nest_lock(&nest);
  depths[1] = omp_test_nest_lock(&nest);
  omp_set_nest_lock(&nest);
  depths[2] = omp_test_nest_lock(&nest);
  for (int k = 0; k < 4; ++k)
    omp_unset_nest_lock(&nest);
  printf("nest depths %d %d %d\n", depths[0], depths[1], depths[2]);

#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < ROUNDS; ++i)
    add_recursively(0, i % 10);
  printf("nested total %lld max depth %d\n", nested_total, max_depth_seen);

  // The owner holds the nest lock twice; the other thread's test must fail.
  int other_refused = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() == 2) {
      if (omp_get_thread_num() == 0) {
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 1)
        other_refused = omp_test_nest_lock(&nest) == 0;
#pragma omp barrier
      if (omp_get_thread_num() == 0) {
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
      }
    }
  }
  printf("nest lock held by other refused %d\n", other_refused);
  omp_destroy_nest_lock(&nest);
  return 0;
}
