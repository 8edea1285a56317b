// MODE: openmp
// The task scheduling constraint: a thread waiting in a taskwait or at the
// end of a taskgroup starts only tasks that descend from the task it waits
// in. Thread 0 holds a lock across the wait while other tasks that want the
// lock are queued ahead of its child; a runtime that let thread 0 start one
// of those would deadlock on its own lock.
#include <omp.h>
#include <stdio.h>

#define CONTENDERS 32

static omp_lock_t held, go, created;
static int counter, ticketSum, childSaw, grandchildSaw;

static void contend(void) {
  for (int k = 0; k < CONTENDERS; ++k) {
#pragma omp task
    {
      omp_set_lock(&held);
      ticketSum += counter++;
      omp_unset_lock(&held);
    }
  }
}

// Thread 0 takes `held` before the team's last thread queues the contenders,
// and waits (with `held` still taken) until they are all queued. `go` keeps
// the contenders back until thread 0 has left the barrier, where it could
// legally start one of them.
static void scenario(int useTaskgroup) {
  counter = ticketSum = 0;
  childSaw = grandchildSaw = -1;
#pragma omp parallel
  {
    int threads = omp_get_num_threads(), me = omp_get_thread_num();
    int contended = threads > 1;
    if (me == 0 && contended) {
      omp_set_lock(&held);
      omp_set_lock(&go);
    }
    if (me == threads - 1 && contended) omp_set_lock(&created);
#pragma omp barrier
    if (me == threads - 1) {
      if (contended) {
        omp_set_lock(&go);
        omp_unset_lock(&go);
      }
      contend();
      if (contended) omp_unset_lock(&created);
    }
    if (me == 0) {
      if (contended) {
        omp_unset_lock(&go);
        omp_set_lock(&created);
        omp_unset_lock(&created);
      }
      if (useTaskgroup) {
#pragma omp taskgroup
        {
#pragma omp task
          {
            childSaw = contended ? counter : 0;
#pragma omp task
            grandchildSaw = contended ? counter : 0;
#pragma omp taskwait
          }
        }
      } else {
#pragma omp task
        childSaw = contended ? counter : 0;
#pragma omp taskwait
      }
      if (contended) omp_unset_lock(&held);
    }
  }
  printf("%s: contenders ran %d times, ticket sum %d, child saw %d",
         useTaskgroup ? "taskgroup" : "taskwait", counter, ticketSum, childSaw);
  if (useTaskgroup) printf(", grandchild saw %d", grandchildSaw);
  printf("\n");
}

int main(void) {
  omp_init_lock(&held);
  omp_init_lock(&go);
  omp_init_lock(&created);
  scenario(0);
  scenario(1);
  omp_destroy_lock(&held);
  omp_destroy_lock(&go);
  omp_destroy_lock(&created);
  return 0;
}
