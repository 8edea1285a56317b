// MODE: openmp
// Detached tasks (OpenMP 5.0): a `task detach(event)` completes only once
// its body has run and omp_fulfill_event(event) has been called, in either
// order; dependences and taskwait wait for that completion.
#include <omp.h>
#include <stdio.h>

#define EVENTS 8

int main(void) {
  int x = 0, y = 0, z = 0;
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t event;
#pragma omp task detach(event) depend(out: x) shared(x)
    x = 1;
    // Runs only after the event: sees what the fulfilling task wrote first.
#pragma omp task depend(in: x) shared(x, y, z)
    z = x * 10 + y;
#pragma omp task shared(y) firstprivate(event)
    {
      y = 5;
      omp_fulfill_event(event);
    }
  }
  printf("fulfilled by a task: x %d y %d z %d\n", x, y, z);

  int value = 0, seen = -1;
#pragma omp parallel
#pragma omp single
  {
    omp_event_handle_t event;
#pragma omp task detach(event) shared(value)
    value = 7;
    omp_fulfill_event(event);  // possibly before the task has run
#pragma omp taskwait
    seen = value;
  }
  printf("fulfilled by the creator: %d\n", seen);

  // A chain of detached stages, each fulfilled by a task that also depends
  // on the previous stage: stage i may only finish after stage i-1.
  int stage[EVENTS + 1] = {1};
  omp_event_handle_t events[EVENTS];
#pragma omp parallel
#pragma omp single
  {
    for (int i = 1; i <= EVENTS; ++i) {
      omp_event_handle_t event;
#pragma omp task detach(event) depend(in: stage[i - 1]) depend(out: stage[i]) firstprivate(i) \
    shared(stage)
      stage[i] = stage[i - 1] * 3 + i;
      events[i - 1] = event;
    }
    for (int i = EVENTS; i >= 1; --i) {
#pragma omp task firstprivate(i) shared(events)
      omp_fulfill_event(events[i - 1]);
    }
#pragma omp taskwait
  }
  printf("detached chain:");
  for (int i = 0; i <= EVENTS; ++i) printf(" %d", stage[i]);
  printf("\n");
  return 0;
}
