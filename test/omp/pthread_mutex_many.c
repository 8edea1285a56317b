// MODE: pthread
//===- pthread_mutex_many.c - many threads incrementing under mutexes -----===//
//
// Sixteen threads each increment a plain counter many times under a
// statically initialised mutex, and a pair of fields under a dynamically
// initialised one, re-reading the pair to catch a torn update. Any lost
// increment shows in the totals.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 16, INCREMENTS = 20000 };

static pthread_mutex_t static_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t dynamic_mutex;
static long long counter;
static long long pair_low, pair_high;
static int torn;

static void *increment(void *argument) {
  (void)argument;
  for (int i = 0; i < INCREMENTS; ++i) {
    pthread_mutex_lock(&static_mutex);
    counter += 1;
    pthread_mutex_unlock(&static_mutex);

    pthread_mutex_lock(&dynamic_mutex);
    if (pair_high != 3 * pair_low)
      torn += 1;
    pair_low += 1;
    pair_high += 3;
    pthread_mutex_unlock(&dynamic_mutex);
  }
  return NULL;
}

int main(void) {
  pthread_mutex_init(&dynamic_mutex, NULL);
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, increment, NULL);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  pthread_mutex_destroy(&dynamic_mutex);
  printf("counter %lld (expected %d)\n", counter, THREADS * INCREMENTS);
  printf("pair %lld %lld torn %d\n", pair_low, pair_high, torn);
  return 0;
}
