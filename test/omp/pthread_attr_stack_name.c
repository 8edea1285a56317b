// MODE: pthread
//===- pthread_attr_stack_name.c - stack size, thread names, barrier attrs -===//
//
// A thread created with pthread_attr_setstacksize(16 MiB) recurses through
// 8 MiB of stack frames (more than a default thread stack holds, so an
// ignored size overruns it and the checksums go wrong); setstacksize below
// the minimum gives EINVAL. pthread_setname_np/getname_np round-trip names
// of the main thread and of a child, refuse a 16-byte name and a short
// buffer (ERANGE). A barrier made with a pthread_barrierattr_t runs four
// threads through three phases with exactly one serial thread per phase.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { FRAME_BYTES = 32 * 1024, DEPTH = 256, PARTIES = 4, PHASES = 3 };

static uint64_t __attribute__((noinline)) descend(int depth, unsigned seed) {
  volatile unsigned char frame[FRAME_BYTES];
  for (int i = 0; i < FRAME_BYTES; i += 512) frame[i] = (unsigned char)(seed + i / 512 + depth);
  uint64_t below = depth > 0 ? descend(depth - 1, seed * 33 + 1) : 0;
  uint64_t sum = below;
  for (int i = 0; i < FRAME_BYTES; i += 512) sum = sum * 31 + frame[i];
  return sum;
}

static void *deep(void *arg) {
  static uint64_t result;
  result = descend(DEPTH, (unsigned)(unsigned long)arg);
  return &result;
}

static pthread_t named_child;
static pthread_barrier_t child_named, child_may_end;

static void *named(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "child-self");
  pthread_barrier_wait(&child_named);
  pthread_barrier_wait(&child_may_end);
  return NULL;
}

static pthread_barrier_t phases;
static int serial_count[PHASES];
static int phase_cell[PARTIES][PHASES];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *phase_worker(void *arg) {
  long me = (long)arg;
  for (int p = 0; p < PHASES; ++p) {
    phase_cell[me][p] = (int)(me * 10 + p);
    int status = pthread_barrier_wait(&phases);
    if (status == PTHREAD_BARRIER_SERIAL_THREAD) {
      pthread_mutex_lock(&count_lock);
      ++serial_count[p];
      pthread_mutex_unlock(&count_lock);
    } else if (status != 0) {
      printf("barrier wait returned %d\n", status);
    }
    int sum = 0;
    for (int t = 0; t < PARTIES; ++t) sum += phase_cell[t][p];
    if (sum != 10 * (0 + 1 + 2 + 3) + PARTIES * p) printf("phase %d saw sum %d\n", p, sum);
    pthread_barrier_wait(&phases);
  }
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  size_t size = 0;
  pthread_attr_init(&attr);
  printf("setstacksize(1) %s\n", pthread_attr_setstacksize(&attr, 1) == EINVAL ? "EINVAL" : "?");
  printf("setstacksize(16 MiB) %d\n", pthread_attr_setstacksize(&attr, 16u << 20));
  pthread_attr_getstacksize(&attr, &size);
  printf("getstacksize %zu\n", size);
  pthread_t thread;
  void *result;
  pthread_create(&thread, &attr, deep, (void *)7);
  pthread_join(thread, &result);
  printf("deep recursion checksum %llu\n", (unsigned long long)*(uint64_t *)result);
  pthread_attr_destroy(&attr);

  char name[32];
  printf("setname main %d\n", pthread_setname_np(pthread_self(), "main-renamed"));
  pthread_getname_np(pthread_self(), name, sizeof name);
  printf("main name %s\n", name);
  printf("16-byte name %s\n",
         pthread_setname_np(pthread_self(), "0123456789abcdef") == ERANGE ? "ERANGE" : "?");
  printf("short buffer %s\n", pthread_getname_np(pthread_self(), name, 8) == ERANGE ? "ERANGE" : "?");
  pthread_barrier_init(&child_named, NULL, 2);
  pthread_barrier_init(&child_may_end, NULL, 2);
  pthread_create(&named_child, NULL, named, NULL);
  pthread_barrier_wait(&child_named);
  pthread_getname_np(named_child, name, sizeof name);
  printf("child named itself %s\n", name);
  printf("setname child %d\n", pthread_setname_np(named_child, "by-main"));
  pthread_getname_np(named_child, name, sizeof name);
  printf("child name %s\n", name);
  pthread_barrier_wait(&child_may_end);
  pthread_join(named_child, NULL);
  pthread_barrier_destroy(&child_named);
  pthread_barrier_destroy(&child_may_end);

  pthread_barrierattr_t battr;
  int shared = -1;
  pthread_barrierattr_init(&battr);
  pthread_barrierattr_getpshared(&battr, &shared);
  printf("barrierattr pshared %d", shared);
  pthread_barrierattr_setpshared(&battr, PTHREAD_PROCESS_SHARED);
  pthread_barrierattr_getpshared(&battr, &shared);
  printf(" then %d\n", shared);
  pthread_barrierattr_setpshared(&battr, PTHREAD_PROCESS_PRIVATE);
  printf("barrier init %d\n", pthread_barrier_init(&phases, &battr, PARTIES));
  pthread_barrierattr_destroy(&battr);
  pthread_t workers[PARTIES];
  for (long t = 0; t < PARTIES; ++t) pthread_create(&workers[t], NULL, phase_worker, (void *)t);
  for (int t = 0; t < PARTIES; ++t) pthread_join(workers[t], NULL);
  printf("serial threads per phase %d %d %d\n", serial_count[0], serial_count[1], serial_count[2]);
  printf("barrier destroy %d\n", pthread_barrier_destroy(&phases));
  return 0;
}
