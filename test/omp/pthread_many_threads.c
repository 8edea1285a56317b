// MODE: pthread
//===- pthread_many_threads.c - hundreds of short-lived threads -----------===//
//
// Creates 256 threads in waves of 32, each alive only long enough to do a
// little work, and joins them all: thread start-up and tear-down in the
// runtime must neither leak nor mix up arguments and results.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { TOTAL = 256, WAVE = 32 };

static void *square(void *argument) {
  const intptr_t n = (intptr_t)argument;
  return (void *)(n * n % 65521);
}

int main(void) {
  long long sum = 0;
  int failures = 0, wrong = 0;
  for (int base = 0; base < TOTAL; base += WAVE) {
    pthread_t threads[WAVE];
    int created[WAVE];
    for (int t = 0; t < WAVE; ++t)
      created[t] = pthread_create(&threads[t], NULL, square, (void *)(intptr_t)(base + t)) == 0;
    for (int t = 0; t < WAVE; ++t) {
      if (!created[t]) {
        failures += 1;
        continue;
      }
      void *result = NULL;
      pthread_join(threads[t], &result);
      const intptr_t n = base + t;
      wrong += (intptr_t)result != n * n % 65521;
      sum += (intptr_t)result;
    }
  }
  printf("threads %d sum %lld wrong results %d create failures %d\n", TOTAL, sum, wrong, failures);
  return 0;
}
