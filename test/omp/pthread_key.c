// MODE: pthread
//===- pthread_key.c - thread-specific data and key destructors -----------===//
//
// Every thread stores its own heap block under a key with a destructor and
// reads it back after the others have stored theirs. When a thread exits,
// the destructor runs once per non-NULL value; NULL values and keys without
// destructors are left alone. Main's own value is untouched by the other
// threads, and a new key starts out NULL in every thread.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 6 };

static pthread_key_t key_with_destructor, key_without_destructor;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int destructor_calls;
static long long destroyed_sum;

static pthread_mutex_t phase_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t phase_cond = PTHREAD_COND_INITIALIZER;
static int stored;

static void destroy(void *value) {
  pthread_mutex_lock(&mutex);
  destructor_calls += 1;
  destroyed_sum += *(int *)value;
  pthread_mutex_unlock(&mutex);
  free(value);
}

typedef struct {
  int id;
  int started_null;
  int read_back;
  int plain_read_back;
} Report;

static void *worker(void *argument) {
  Report *report = argument;
  report->started_null = pthread_getspecific(key_with_destructor) == NULL &&
                         pthread_getspecific(key_without_destructor) == NULL;
  // Odd threads store NULL: no destructor call for them.
  if (report->id % 2 == 0) {
    int *mine = malloc(sizeof *mine);
    *mine = 100 + report->id;
    pthread_setspecific(key_with_destructor, mine);
  } else {
    pthread_setspecific(key_with_destructor, NULL);
  }
  pthread_setspecific(key_without_destructor, &report->plain_read_back);

  // Wait until every thread has stored, so a shared slot would be overwritten.
  pthread_mutex_lock(&phase_mutex);
  stored += 1;
  pthread_cond_broadcast(&phase_cond);
  while (stored < THREADS)
    pthread_cond_wait(&phase_cond, &phase_mutex);
  pthread_mutex_unlock(&phase_mutex);

  int *value = pthread_getspecific(key_with_destructor);
  report->read_back = value ? *value : -1;
  int *plain = pthread_getspecific(key_without_destructor);
  report->plain_read_back = plain == &report->plain_read_back ? report->id : -1;
  return NULL;
}

int main(void) {
  pthread_key_create(&key_with_destructor, destroy);
  pthread_key_create(&key_without_destructor, NULL);
  int main_value = 7;
  pthread_setspecific(key_with_destructor, &main_value);

  pthread_t threads[THREADS];
  Report reports[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    reports[t] = (Report){.id = t};
    pthread_create(&threads[t], NULL, worker, &reports[t]);
  }
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; ++t)
    printf("thread %d started null %d read back %d plain %d\n", t, reports[t].started_null,
           reports[t].read_back, reports[t].plain_read_back);
  printf("destructor calls %d sum %lld\n", destructor_calls, destroyed_sum);
  int *main_read = pthread_getspecific(key_with_destructor);
  printf("main's value %d\n", main_read ? *main_read : -1);
  pthread_setspecific(key_with_destructor, NULL);
  pthread_key_delete(key_with_destructor);
  pthread_key_delete(key_without_destructor);
  return 0;
}
