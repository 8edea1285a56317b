// MODE: pthread
//===- pthread_cond_broadcast.c - a reusable barrier from a mutex and cond ===//
//
// A generation-counting barrier built on pthread_cond_broadcast takes six
// threads through many phases. In each phase every thread writes its slot,
// crosses the barrier, and checks both neighbours' slots for this phase's
// value; a lost wake-up deadlocks (and times out), a barrier that lets a
// thread through early shows as a stale read.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 6, PHASES = 500 };

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int waiting;
  unsigned generation;
} Barrier;

static Barrier barrier = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
static int slots[THREADS];
static int stale[THREADS];

static void barrier_wait(Barrier *b) {
  pthread_mutex_lock(&b->mutex);
  const unsigned generation = b->generation;
  if (++b->waiting == THREADS) {
    b->waiting = 0;
    b->generation += 1;
    pthread_cond_broadcast(&b->changed);
  } else {
    while (generation == b->generation)
      pthread_cond_wait(&b->changed, &b->mutex);
  }
  pthread_mutex_unlock(&b->mutex);
}

static void *phase_worker(void *argument) {
  const int me = (int)(intptr_t)argument;
  for (int phase = 0; phase < PHASES; ++phase) {
    slots[me] = phase * 100 + me;
    barrier_wait(&barrier);
    const int left = (me + THREADS - 1) % THREADS, right = (me + 1) % THREADS;
    stale[me] += slots[left] != phase * 100 + left;
    stale[me] += slots[right] != phase * 100 + right;
    barrier_wait(&barrier);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, phase_worker, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  int total_stale = 0;
  for (int t = 0; t < THREADS; ++t)
    total_stale += stale[t];
  printf("phases %d generations %u stale reads %d\n", PHASES, barrier.generation, total_stale);
  return 0;
}
