// MODE: pthread
//===- pthread_join_values.c - create, pass arguments, join return values ===//
//
// Each thread gets its own argument block, computes over its slice of a
// shared input and hands its result back three ways: as the pointer its
// start routine returns, through pthread_exit from a nested call, and by
// writing into its argument block. pthread_self inside the thread must
// equal the pthread_t pthread_create gave the parent.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 6, LENGTH = 60006 };

typedef struct {
  int index;
  int first, last;
  long long sum_of_squares;
  pthread_t self;
} Slice;

static int input[LENGTH];

static void *sum_slice(void *argument) {
  Slice *slice = argument;
  slice->self = pthread_self();
  long long sum = 0;
  for (int i = slice->first; i < slice->last; ++i)
    sum += (long long)input[i] * input[i];
  slice->sum_of_squares = sum;
  long long *result = malloc(sizeof *result);
  *result = sum % 1000003;
  return result;
}

static void finish_early(int code) { pthread_exit((void *)(intptr_t)code); }

static void *exits_from_nested_call(void *argument) {
  int code = (int)(intptr_t)argument;
  finish_early(code * 3);
  return NULL;
}

int main(void) {
  for (int i = 0; i < LENGTH; ++i)
    input[i] = (i * 7919) % 2003 - 1000;

  pthread_t threads[THREADS];
  Slice slices[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    slices[t] = (Slice){.index = t, .first = t * LENGTH / THREADS, .last = (t + 1) * LENGTH / THREADS};
    if (pthread_create(&threads[t], NULL, sum_slice, &slices[t]) != 0) {
      printf("pthread_create failed\n");
      return 1;
    }
  }
  long long total = 0;
  for (int t = 0; t < THREADS; ++t) {
    void *returned = NULL;
    int status = pthread_join(threads[t], &returned);
    long long value = returned ? *(long long *)returned : -1;
    free(returned);
    printf("thread %d join %d returned %lld wrote %lld self matches %d\n", t, status, value,
           slices[t].sum_of_squares, pthread_equal(slices[t].self, threads[t]) != 0);
    total += slices[t].sum_of_squares;
  }
  printf("total %lld\n", total);

  pthread_t exiting[4];
  for (int t = 0; t < 4; ++t)
    pthread_create(&exiting[t], NULL, exits_from_nested_call, (void *)(intptr_t)(t + 1));
  for (int t = 0; t < 4; ++t) {
    void *code = NULL;
    pthread_join(exiting[t], &code);
    printf("pthread_exit value %d\n", (int)(intptr_t)code);
  }
  printf("main is not a created thread: %d\n", pthread_equal(pthread_self(), threads[0]) == 0);
  return 0;
}
