// MODE: openmp
// Task reductions: `taskloop reduction(...)`, and `taskgroup
// task_reduction(...)` with `in_reduction` tasks, including tasks that
// create more in_reduction tasks. Integer operators, so the result does not
// depend on which thread's private copy a task used.
#include <omp.h>
#include <stdio.h>

static long long tree;

// Orphaned in_reduction tasks: the taskgroup is in the caller.
static void walk(int depth) {
#pragma omp task in_reduction(+: tree) firstprivate(depth)
  {
    tree += depth;
    if (depth > 0) {
      walk(depth - 1);
      walk(depth - 1);
    }
  }
}

int main(void) {
  long long sum = 0;
  int maximum = -1, minimum = 1 << 30;
  unsigned bits = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(16) reduction(+: sum) reduction(max: maximum) reduction(min: minimum) \
    reduction(|: bits)
    for (int i = 0; i < 500; ++i) {
      sum += i;
      int v = (i * 7919) % 1009;
      if (v > maximum) maximum = v;
      if (v < minimum) minimum = v;
      bits |= 1u << (i % 32);
    }
  }
  printf("taskloop reduction: sum %lld max %d min %d bits %x\n", sum, maximum, minimum, bits);

  long long counted = 0, product = 1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+: counted) task_reduction(*: product)
    {
      for (int i = 1; i <= 20; ++i) {
#pragma omp task in_reduction(+: counted) in_reduction(*: product) firstprivate(i)
        {
          counted += i;
          if (i % 5 == 0) product *= i;
        }
      }
    }
  }
  printf("taskgroup task_reduction: %lld %lld\n", counted, product);

#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+: tree)
    walk(6);
  }
  printf("recursive in_reduction: %lld\n", tree);

  long long solo = 0;
#pragma omp taskloop num_tasks(5) reduction(+: solo)
  for (int i = 0; i < 100; ++i) solo += i * i;
  printf("outside a region: %lld\n", solo);
  return 0;
}
