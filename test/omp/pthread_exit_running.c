// MODE: pthread
//===- pthread_exit_running.c - main returns while detached threads work --===//
//
// Returning from main ends the process even while detached threads still
// run: exit() takes them down wherever they are. Here every thread loops
// for ever taking a mutex, counting and broadcasting a condition variable,
// so when main returns some of them are inside pthread calls, between
// them or waiting for the mutex. The runtime must end the process there
// without tearing down what those threads still use (on a thread host,
// their proxies on the main host are mid-call too): the output is main's
// line and the exit status main's.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 6, ROUNDS = 50 };

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t progressed = PTHREAD_COND_INITIALIZER;
static long rounds[THREADS];

static void *churn(void *argument) {
  const int id = (int)(intptr_t)argument;
  for (;;) {
    pthread_mutex_lock(&mutex);
    rounds[id] += 1;
    pthread_cond_broadcast(&progressed);
    pthread_mutex_unlock(&mutex);
  }
  return NULL;
}

static int all_made_rounds(void) {
  for (int t = 0; t < THREADS; ++t)
    if (rounds[t] < ROUNDS)
      return 0;
  return 1;
}

int main(void) {
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  int create_failures = 0;
  for (int t = 0; t < THREADS; ++t) {
    pthread_t thread;
    create_failures += pthread_create(&thread, &detached, churn, (void *)(intptr_t)t) != 0;
  }
  pthread_attr_destroy(&detached);
  pthread_mutex_lock(&mutex);
  while (!create_failures && !all_made_rounds())
    pthread_cond_wait(&progressed, &mutex);
  const int made = all_made_rounds();
  pthread_mutex_unlock(&mutex);
  printf("every thread made %d rounds: %d, create failures %d\n", ROUNDS, made, create_failures);
  return 0;
}
