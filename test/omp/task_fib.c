// MODE: openmp
// Recursive Fibonacci with explicit tasks and taskwait: from one thread of
// the team (single), from every thread at once, outside any parallel region,
// with final/mergeable/untied clauses, and an omp_in_final census.
#include <omp.h>
#include <stdio.h>

static int fib(int n) {
  int a, b;
  if (n < 2) return n;
#pragma omp task shared(a) firstprivate(n)
  a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static int fibUntied(int n) {
  int a, b;
  if (n < 2) return n;
#pragma omp task shared(a) untied
  a = fibUntied(n - 1);
#pragma omp task shared(b) untied mergeable
  b = fibUntied(n - 2);
#pragma omp taskwait
  return a + b;
}

static int finalTasks;

static int fibFinal(int n, int cutoff) {
  int a, b;
  if (n < 2) return n;
  if (omp_in_final()) {
#pragma omp atomic
    finalTasks++;
  }
#pragma omp task shared(a) final(n <= cutoff)
  a = fibFinal(n - 1, cutoff);
#pragma omp task shared(b) final(n <= cutoff)
  b = fibFinal(n - 2, cutoff);
#pragma omp taskwait
  return a + b;
}

static long long serialFib(int n) { return n < 2 ? n : serialFib(n - 1) + serialFib(n - 2); }

int main(void) {
  int single = 0;
#pragma omp parallel
#pragma omp single
  single = fib(17);
  printf("single fib(17) = %d (serial %lld)\n", single, serialFib(17));

  int each[64] = {0};
  int threads = 0;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
    each[omp_get_thread_num()] = fib(10 + omp_get_thread_num() % 4);
  }
  int ok = 1;
  for (int t = 0; t < threads; ++t) ok &= each[t] == serialFib(10 + t % 4);
  printf("every thread's fib: %s\n", ok ? "ok" : "WRONG");

  printf("outside a region fib(15) = %d\n", fib(15));

  int untied = 0;
#pragma omp parallel
#pragma omp master
  untied = fibUntied(15);
  printf("untied fib(15) = %d\n", untied);

  int final = 0;
#pragma omp parallel
#pragma omp single
  final = fibFinal(16, 8);
  printf("final fib(16) = %d, calls inside final tasks: %d\n", final, finalTasks);
  return 0;
}
