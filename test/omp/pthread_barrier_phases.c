// MODE: pthread
//===- pthread_barrier_phases.c - plain data handed on at barriers --------===//
//
// Threads run phases separated by a pthread barrier: in each phase every
// thread writes its own cell of a plain array and, after the barrier, reads
// its neighbours' cells from that phase, so the barrier must publish every
// write before it and show each thread all of them after it (under
// synergy-run --dsm each thread works on its own replica). One waiter per
// phase gets PTHREAD_BARRIER_SERIAL_THREAD. Then a timed condition wait with
// a far deadline is woken by a signal and must see what the signaller wrote
// before it.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum { THREADS = 5, PHASES = 40 };

static pthread_barrier_t barrier;
static long cells[THREADS];
static long checksums[THREADS];
static int serialCount[PHASES];
static pthread_mutex_t serialLock = PTHREAD_MUTEX_INITIALIZER;

static void* phases(void* argument) {
  const int id = (int)(intptr_t)argument;
  long checksum = 0;
  for (int phase = 0; phase < PHASES; ++phase) {
    cells[id] = (long)phase * 100 + id;
    if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
      pthread_mutex_lock(&serialLock);
      serialCount[phase] += 1;
      pthread_mutex_unlock(&serialLock);
    }
    long left = cells[(id + THREADS - 1) % THREADS], right = cells[(id + 1) % THREADS];
    if (left / 100 != phase || right / 100 != phase) checksum -= 1000000;
    checksum += left + right;
    // Nobody writes the next phase's cells before everyone read these.
    pthread_barrier_wait(&barrier);
  }
  checksums[id] = checksum;
  return 0;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;
static long message;

static void* timedWaiter(void* argument) {
  (void)argument;
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 3600;
  int status = 0;
  pthread_mutex_lock(&mutex);
  while (!ready && status == 0) status = pthread_cond_timedwait(&cond, &mutex, &deadline);
  long seen = message;
  pthread_mutex_unlock(&mutex);
  return (void*)(intptr_t)(status == 0 ? seen : -1);
}

int main(void) {
  pthread_barrier_init(&barrier, 0, THREADS);
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) pthread_create(&threads[t], 0, phases, (void*)(intptr_t)t);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], 0);
  pthread_barrier_destroy(&barrier);
  for (int t = 0; t < THREADS; ++t) printf("thread %d checksum %ld\n", t, checksums[t]);
  int badSerial = 0;
  for (int phase = 0; phase < PHASES; ++phase) badSerial += serialCount[phase] != 1;
  printf("phases with other than one serial thread: %d\n", badSerial);

  pthread_t waiter;
  pthread_create(&waiter, 0, timedWaiter, 0);
  pthread_mutex_lock(&mutex);
  message = 4242;
  ready = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&mutex);
  void* seen;
  pthread_join(waiter, &seen);
  printf("timed waiter saw %ld\n", (long)(intptr_t)seen);
  return 0;
}
