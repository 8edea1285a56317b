// MODE: pthread
//===- pthread_tls.c - _Thread_local variables in POSIX threads -----------===//
//
// Each thread starts with the initial values of the _Thread_local variables
// (a scalar, an array and a struct), not with whatever main or another
// thread left there; counts its own work in them; and finds its copies at
// addresses no other thread shares (compared, never printed).
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum { THREADS = 8 };

static _Thread_local int counter = 42;
static _Thread_local int history[4] = {1, 2, 3, 4};
static _Thread_local struct {
  long long total;
  char name[8];
} record = {1000, "init"};

typedef struct {
  int id;
  int started_right;
  int final_counter;
  long long final_total;
  uintptr_t address;
} Report;

static void *worker(void *argument) {
  Report *report = argument;
  report->started_right = counter == 42 && history[3] == 4 && record.total == 1000 &&
                          record.name[0] == 'i';
  for (int k = 0; k < 1000 * (report->id + 1); ++k) {
    counter += 1;
    history[k % 4] += k;
    record.total += report->id;
  }
  report->final_counter = counter;
  report->final_total = record.total + history[0] + history[1] + history[2] + history[3];
  report->address = (uintptr_t)&counter;
  return NULL;
}

int main(void) {
  counter = -5;
  history[3] = -1;
  record.total = -1;
  pthread_t threads[THREADS];
  Report reports[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    reports[t] = (Report){.id = t};
    pthread_create(&threads[t], NULL, worker, &reports[t]);
  }
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  int distinct = 1;
  for (int a = 0; a < THREADS; ++a) {
    distinct &= reports[a].address != (uintptr_t)&counter;
    for (int b = a + 1; b < THREADS; ++b)
      distinct &= reports[a].address != reports[b].address;
  }
  for (int t = 0; t < THREADS; ++t)
    printf("thread %d started right %d counter %d total %lld\n", t, reports[t].started_right,
           reports[t].final_counter, reports[t].final_total);
  printf("addresses distinct %s\n", distinct ? "yes" : "no");
  printf("main's copies kept %d %d %lld\n", counter, history[3], record.total);
  return 0;
}
