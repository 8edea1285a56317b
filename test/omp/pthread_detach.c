// MODE: pthread
//===- pthread_detach.c - detached threads report through a condition -----===//
//
// Threads made detached both ways (pthread_detach after creation, and a
// PTHREAD_CREATE_DETACHED attribute) cannot be joined, so each reports its
// result under a mutex and signals a condition variable; main waits until
// all have reported. Waves of them check that detached threads' resources
// are reclaimed well enough to keep creating more.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { WAVES = 10, PER_WAVE = 8 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reported = PTHREAD_COND_INITIALIZER;
static int finished;
static long long results;

static void *work(void *argument) {
  const int id = (int)(intptr_t)argument;
  long long value = 0;
  for (int k = 0; k <= id; ++k)
    value += k * k;
  pthread_mutex_lock(&mutex);
  results += value;
  finished += 1;
  pthread_cond_signal(&reported);
  pthread_mutex_unlock(&mutex);
  return NULL;
}

int main(void) {
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  int state = -1;
  pthread_attr_getdetachstate(&detached, &state);
  printf("attribute detached %d\n", state == PTHREAD_CREATE_DETACHED);

  int create_failures = 0;
  for (int wave = 0; wave < WAVES; ++wave) {
    for (int t = 0; t < PER_WAVE; ++t) {
      const int id = wave * PER_WAVE + t;
      pthread_t thread;
      if (t % 2 == 0) {
        create_failures += pthread_create(&thread, &detached, work, (void *)(intptr_t)id) != 0;
      } else if (pthread_create(&thread, NULL, work, (void *)(intptr_t)id) == 0) {
        create_failures += pthread_detach(thread) != 0;
      } else {
        create_failures += 1;
      }
    }
    pthread_mutex_lock(&mutex);
    while (finished < (wave + 1) * PER_WAVE)
      pthread_cond_wait(&reported, &mutex);
    pthread_mutex_unlock(&mutex);
  }
  pthread_attr_destroy(&detached);
  printf("finished %d results %lld create failures %d\n", finished, results, create_failures);
  return 0;
}
