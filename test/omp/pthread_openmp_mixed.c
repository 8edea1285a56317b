// MODE: openmp
//===- pthread_openmp_mixed.c - OpenMP teams inside and beside pthreads ---===//
//
// Pthreads that each fill a slice of a shared array with plain stores, then
// run parallel regions of their own (a reduction over the slice, and a team
// that takes a pthread mutex and bumps C11 atomics); the main thread then
// sums everything in a parallel region, and finally runs a team that
// contends for one mutex with a pthread running at the same time. Under
// synergy-run --dsm the teams' replicas and the pthreads' meet in one main
// copy, so the mutex and the atomics must order them all.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 4, SLICE = 3000, N = THREADS * SLICE, INCREMENTS = 2000 };

static long data[N];
static long sliceSums[THREADS];
static long counter;
static atomic_long atomicCounter;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void* fillAndSum(void* argument) {
  const int id = (int)(intptr_t)argument;
  long* slice = data + id * SLICE;
  for (int i = 0; i < SLICE; ++i) slice[i] = (long)(id * SLICE + i) % 1000 + 1;
  long sum = 0;
#pragma omp parallel for num_threads(3) reduction(+ : sum)
  for (int i = 0; i < SLICE; ++i) sum += slice[i];
  sliceSums[id] = sum;
#pragma omp parallel num_threads(2)
  {
    pthread_mutex_lock(&mutex);
    counter += 1;
    pthread_mutex_unlock(&mutex);
    atomic_fetch_add(&atomicCounter, 10);
  }
  return 0;
}

static void* contend(void* argument) {
  for (int i = 0; i < INCREMENTS; ++i) {
    pthread_mutex_lock(&mutex);
    counter += 1;
    pthread_mutex_unlock(&mutex);
    atomic_fetch_add(&atomicCounter, 1);
  }
  return argument;
}

int main(void) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], 0, fillAndSum, (void*)(intptr_t)t);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], 0);

  long total = 0, expected = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < N; ++i) total += data[i];
  for (int t = 0; t < THREADS; ++t) expected += sliceSums[t];
  printf("total %ld, slice sums %s\n", total, total == expected ? "agree" : "DISAGREE");

  pthread_t other;
  pthread_create(&other, 0, contend, 0);
#pragma omp parallel for
  for (int i = 0; i < INCREMENTS; ++i) {
    pthread_mutex_lock(&mutex);
    counter += 1;
    pthread_mutex_unlock(&mutex);
    atomic_fetch_add(&atomicCounter, 1);
  }
  pthread_join(other, 0);
  printf("counter %ld atomic %ld\n", counter, atomic_load(&atomicCounter));
  return 0;
}
