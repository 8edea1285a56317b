// MODE: openmp
//===- nested_lock_order.c - nested threads lock independently -------------===//
//
// Outer thread 0 of a 6-thread team (on the main host when spread) takes
// lock b[k] for every other outer thread k and keeps it until each of them
// reported. Every other outer thread forks an inner team of 2: inner thread
// 1 asks for b[k] and waits for it; inner thread 0, holding a[k], lets its
// sibling's request go out first, then asks for c[k] (free), reports under
// it and releases both. Under libgomp the inner threads lock independently:
// thread 0 gets c[k] while its sibling waits for b[k], so outer thread 0
// sees every report and lets the b locks go. A runtime that lets the inner
// threads of one outer thread wait for the locks one at a time (or answers
// them in turn) deadlocks: c[k] waits behind b[k], which waits for the
// report. The output is fixed, whatever the schedule.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { OUTER = 6, INNER = 2 };

static omp_lock_t a[OUTER], b[OUTER], c[OUTER];
static int b_taken;
static int reported[OUTER];
static long under_b[OUTER], under_c[OUTER];

// Busy waits `seconds` (no sleep call: the corpus runs without one).
static void spin(double seconds) {
  double until = omp_get_wtime() + seconds;
  while (omp_get_wtime() < until) {
  }
}

static int read_flag(int* flag) {
  int value;
#pragma omp atomic read
  value = *flag;
  return value;
}

static void set_flag(int* flag) {
#pragma omp atomic write
  *flag = 1;
}

int main(void) {
  for (int k = 0; k < OUTER; ++k) {
    omp_init_lock(&a[k]);
    omp_init_lock(&b[k]);
    omp_init_lock(&c[k]);
  }
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(OUTER)
  {
    const int outer = omp_get_thread_num();
    if (outer == 0) {
      for (int k = 1; k < OUTER; ++k) omp_set_lock(&b[k]);
      set_flag(&b_taken);
      for (int k = 1; k < OUTER; ++k) {
        while (!read_flag(&reported[k])) spin(0.001);
        omp_unset_lock(&b[k]);
      }
    } else {
#pragma omp parallel num_threads(INNER)
      {
        if (omp_get_thread_num() == 1) {
          while (!read_flag(&b_taken)) spin(0.001);
          omp_set_lock(&b[outer]);
          under_b[outer] += 1;
          omp_unset_lock(&b[outer]);
        } else {
          omp_set_lock(&a[outer]);
          while (!read_flag(&b_taken)) spin(0.001);
          // Long enough for the sibling's request for b[outer] to be out.
          spin(0.2);
          omp_set_lock(&c[outer]);
          under_c[outer] += 1;
          set_flag(&reported[outer]);
          omp_unset_lock(&c[outer]);
          omp_unset_lock(&a[outer]);
        }
      }
    }
  }
  int ok = 1;
  for (int k = 0; k < OUTER; ++k) {
    printf("outer %d: under b %ld, under c %ld, reported %d\n", k, under_b[k], under_c[k],
           reported[k]);
    ok &= k == 0 ? under_b[k] == 0 && under_c[k] == 0
                 : under_b[k] == 1 && under_c[k] == 1 && reported[k] == 1;
    omp_destroy_lock(&a[k]);
    omp_destroy_lock(&b[k]);
    omp_destroy_lock(&c[k]);
  }
  printf("%s\n", ok ? "ok" : "WRONG");
  return !ok;
}
