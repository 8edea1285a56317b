// MODE: openmp
// Undeferred tasks: with if(0) the encountering thread runs the task before
// it goes on, so its writes are visible right after the construct; child
// tasks of an undeferred task are still ordinary tasks.
#include <omp.h>
#include <stdio.h>

static int undeferred(int n) {
  int value = -1;
#pragma omp task if(0) shared(value) firstprivate(n)
  value = n * n;
  return value;  // no taskwait needed
}

int main(void) {
  int results[64], threads = 1;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
    results[omp_get_thread_num()] = undeferred(omp_get_thread_num() + 3);
  }
  int ok = 1;
  for (int t = 0; t < threads; ++t) ok &= results[t] == (t + 3) * (t + 3);
  printf("if(0) per thread: %s\n", ok ? "ok" : "WRONG");

  int sequence[10], length = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 10; ++i) {
#pragma omp task if(i % 2 == 0) shared(sequence, length) firstprivate(i)
    {
      if (i % 2 != 0) sequence[length++] = i;  // undeferred: length is ours
    }
    if (i % 2 != 0 && sequence[length - 1] != i) printf("undeferred task %d did not run\n", i);
  }
  printf("undeferred count %d\n", length);

  int children = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task if(0) shared(children)
    {
      for (int i = 0; i < 20; ++i) {
#pragma omp task shared(children)
        {
#pragma omp atomic
          children++;
        }
      }
#pragma omp taskwait
    }
  }
  printf("children of an undeferred task: %d\n", children);

  printf("outside a region: %d\n", undeferred(9));
  return 0;
}
