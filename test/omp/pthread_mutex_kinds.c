// MODE: pthread
//===- pthread_mutex_kinds.c - trylock, recursive and error-checking mutexes ===//
//
// pthread_mutex_trylock returns EBUSY while another thread holds the mutex;
// a PTHREAD_MUTEX_RECURSIVE mutex can be re-locked by its owner and is free
// only after as many unlocks; a PTHREAD_MUTEX_ERRORCHECK mutex reports
// EDEADLK on a relock by its owner and EPERM on an unlock by a non-owner.
//
//===----------------------------------------------------------------------===//
// The mutex types are XSI; -std=c11 hides them without this.
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive, checking;

static int try_from_other_thread_result;

static void *try_plain(void *argument) {
  (void)argument;
  try_from_other_thread_result = pthread_mutex_trylock(&plain);
  if (try_from_other_thread_result == 0)
    pthread_mutex_unlock(&plain);
  return NULL;
}

static void *try_recursive(void *argument) {
  int *result = argument;
  *result = pthread_mutex_trylock(&recursive);
  if (*result == 0)
    pthread_mutex_unlock(&recursive);
  return NULL;
}

static void *unlock_checking(void *argument) {
  int *result = argument;
  *result = pthread_mutex_unlock(&checking);
  return NULL;
}

static const char *name(int code) {
  return code == 0 ? "0" : code == EBUSY ? "EBUSY" : code == EDEADLK ? "EDEADLK"
                                                   : code == EPERM   ? "EPERM"
                                                                     : "other";
}

static int run_in_thread(void *(*body)(void *), void *argument) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, body, argument) != 0)
    return -1;
  return pthread_join(thread, NULL);
}

int main(void) {
  pthread_mutex_lock(&plain);
  run_in_thread(try_plain, NULL);
  printf("trylock while held elsewhere: %s\n", name(try_from_other_thread_result));
  pthread_mutex_unlock(&plain);
  run_in_thread(try_plain, NULL);
  printf("trylock when free: %s\n", name(try_from_other_thread_result));

  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&recursive, &attributes);
  pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&checking, &attributes);
  pthread_mutexattr_destroy(&attributes);

  int relock = pthread_mutex_lock(&recursive);
  int relock2 = pthread_mutex_lock(&recursive);
  int relock3 = pthread_mutex_trylock(&recursive);
  int other = -1;
  run_in_thread(try_recursive, &other);
  printf("recursive: lock %s lock %s trylock %s, other thread %s\n", name(relock), name(relock2),
         name(relock3), name(other));
  pthread_mutex_unlock(&recursive);
  pthread_mutex_unlock(&recursive);
  run_in_thread(try_recursive, &other);
  printf("recursive after two of three unlocks, other thread %s\n", name(other));
  pthread_mutex_unlock(&recursive);
  run_in_thread(try_recursive, &other);
  printf("recursive after all unlocks, other thread %s\n", name(other));

  int first = pthread_mutex_lock(&checking);
  int again = pthread_mutex_lock(&checking);
  int foreign = -1;
  run_in_thread(unlock_checking, &foreign);
  int own = pthread_mutex_unlock(&checking);
  printf("errorcheck: lock %s relock %s unlock by other %s unlock by owner %s\n", name(first),
         name(again), name(foreign), name(own));
  pthread_mutex_destroy(&recursive);
  pthread_mutex_destroy(&checking);
  return 0;
}
