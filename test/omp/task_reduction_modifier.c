// MODE: openmp
// reduction(task, ...) on parallel and worksharing loops: tasks created by
// any member join the construct's reduction with in_reduction, alongside the
// members' own contributions to their private copies.
#include <omp.h>
#include <stdio.h>

#define ITEMS 200

int main(void) {
  // parallel: one thread creates the tasks, every member adds its own part.
  long sum = 5;
  int members = 0;
#pragma omp parallel reduction(task, +: sum) reduction(+: members)
  {
    members += 1;
    sum += 1000;
#pragma omp single
    for (int i = 0; i < ITEMS; ++i) {
#pragma omp task in_reduction(+: sum) firstprivate(i)
      sum += i;
    }
  }
  printf("parallel: sum - 1000*members = %ld\n", sum - 1000L * members);

  // for: every iteration's owner creates a task, nested tasks join too.
  long long total = 0;
  double product = 1.0;
  unsigned bits = 0;
#pragma omp parallel
  {
#pragma omp for reduction(task, +: total) reduction(task, *: product) reduction(task, |: bits)
    for (int i = 0; i < ITEMS; ++i) {
#pragma omp task in_reduction(+: total) in_reduction(*: product) in_reduction(|: bits) \
    firstprivate(i)
      {
        total += (long long)i * i;
        if (i % 50 == 0) product *= 2.0;
        bits |= 1u << (i % 29);
#pragma omp task in_reduction(+: total) firstprivate(i)
        total += 1;
      }
    }
#pragma omp single
    printf("for: total %lld product %.1f bits %08x\n", total, product, bits);
  }

  // Two constructs in a row on one team, the second after a nowait-free loop.
  int first = 0, second = 0;
#pragma omp parallel
  for (int round = 0; round < 3; ++round) {
#pragma omp for reduction(task, +: first)
    for (int i = 0; i < 17; ++i) {
#pragma omp task in_reduction(+: first) firstprivate(i)
      first += i + round;
    }
#pragma omp for reduction(task, +: second)
    for (int i = 0; i < 5; ++i) {
#pragma omp task in_reduction(+: second) firstprivate(i)
      second += 10 * i;
    }
  }
  printf("rounds: first %d second %d\n", first, second);

  // sections: each section's tasks, and the section itself, contribute.
  int fromSections = 0;
#pragma omp parallel sections reduction(task, +: fromSections)
  {
#pragma omp section
    for (int i = 0; i < 10; ++i) {
#pragma omp task in_reduction(+: fromSections) firstprivate(i)
      fromSections += i;
    }
#pragma omp section
    {
      fromSections += 100;
#pragma omp task in_reduction(+: fromSections)
      fromSections += 1000;
    }
  }
  printf("sections: %d\n", fromSections);
  return 0;
}
