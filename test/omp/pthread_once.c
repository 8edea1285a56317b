// MODE: pthread
//===- pthread_once.c - one initialisation raced by many threads ----------===//
//
// Eight threads are released together and all call pthread_once on the
// same control; the initialiser does slow, non-atomic work. It must run
// exactly once, and every caller must return only after it has finished,
// so each sees the complete table. A second once control, used from main
// only, checks the plain case.
//
//===----------------------------------------------------------------------===//
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 8, TABLE = 4096 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t main_once = PTHREAD_ONCE_INIT;
static int init_runs, main_init_runs;
static unsigned table[TABLE];

static pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;
static int open_gate;

static void fill_table(void) {
  init_runs += 1;
  unsigned x = 1;
  for (int i = 0; i < TABLE; ++i) {
    for (int k = 0; k < 50; ++k)
      x = x * 1103515245u + 12345u;
    table[i] = x;
  }
}

static void count_main_init(void) { main_init_runs += 1; }

static void *racer(void *argument) {
  unsigned *seen = argument;
  pthread_mutex_lock(&gate_mutex);
  while (!open_gate)
    pthread_cond_wait(&gate, &gate_mutex);
  pthread_mutex_unlock(&gate_mutex);
  pthread_once(&once, fill_table);
  unsigned sum = 0;
  for (int i = 0; i < TABLE; ++i)
    sum += table[i];
  *seen = sum;
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  unsigned seen[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, racer, &seen[t]);
  pthread_mutex_lock(&gate_mutex);
  open_gate = 1;
  pthread_cond_broadcast(&gate);
  pthread_mutex_unlock(&gate_mutex);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  int agree = 1;
  for (int t = 1; t < THREADS; ++t)
    agree &= seen[t] == seen[0];
  printf("initialiser ran %d times, all threads saw table sum %u: %s\n", init_runs, seen[0],
         agree ? "yes" : "no");
  for (int k = 0; k < 3; ++k)
    pthread_once(&main_once, count_main_init);
  printf("main once ran %d times\n", main_init_runs);
  return 0;
}
