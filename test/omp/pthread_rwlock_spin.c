// MODE: pthread
//===- pthread_rwlock_spin.c - read-write locks and spinlocks --------------===//
//
// Readers and writers share a table under a pthread_rwlock_t: writers move
// amounts between cells, so the total never changes, and every reader checks
// the total of a consistent snapshot. Then the error results that do not
// depend on timing: tryrdlock/trywrlock on a lock held by another thread
// (EBUSY), a thread re-locking a lock it holds for writing (EDEADLK), a timed
// lock whose deadline has already passed (ETIMEDOUT), and a static
// PTHREAD_RWLOCK_INITIALIZER lock. Spinlocks guard a counter raced by four
// threads, and trylock on a held spinlock gives EBUSY.
//
//===----------------------------------------------------------------------===//
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

enum { CELLS = 16, READERS = 4, WRITERS = 2, ROUNDS = 2000, SPINNERS = 4, SPINS = 5000 };

static pthread_rwlock_t table_lock;
static pthread_rwlock_t static_lock = PTHREAD_RWLOCK_INITIALIZER;
static long table[CELLS];
static long bad_totals;
static long reads_done;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  long id = (long)arg;
  for (int r = 0; r < ROUNDS; ++r) {
    pthread_rwlock_wrlock(&table_lock);
    int from = (int)((r * 7 + id * 3) % CELLS), to = (int)((r * 5 + id + 1) % CELLS);
    table[from] -= r % 9 + 1;
    table[to] += r % 9 + 1;
    pthread_rwlock_unlock(&table_lock);
  }
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  long bad = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    pthread_rwlock_rdlock(&table_lock);
    long total = 0;
    for (int c = 0; c < CELLS; ++c) total += table[c];
    pthread_rwlock_unlock(&table_lock);
    bad += total != CELLS * 100;
  }
  pthread_mutex_lock(&stats_lock);
  bad_totals += bad;
  reads_done += ROUNDS;
  pthread_mutex_unlock(&stats_lock);
  return NULL;
}

static int try_results[4];

static void *try_while_written(void *arg) {
  (void)arg;
  struct timespec past = {0, 0};
  try_results[0] = pthread_rwlock_tryrdlock(&table_lock);
  try_results[1] = pthread_rwlock_trywrlock(&table_lock);
  try_results[2] = pthread_rwlock_timedrdlock(&table_lock, &past);
  try_results[3] = pthread_rwlock_timedwrlock(&table_lock, &past);
  return NULL;
}

static int write_try_while_read;

static void *try_write_while_read(void *arg) {
  (void)arg;
  write_try_while_read = pthread_rwlock_trywrlock(&table_lock);
  return NULL;
}

static pthread_spinlock_t spin;
static long spun;

static void *spinner(void *arg) {
  (void)arg;
  for (int k = 0; k < SPINS; ++k) {
    pthread_spin_lock(&spin);
    ++spun;
    pthread_spin_unlock(&spin);
  }
  return NULL;
}

static int spin_try_result;

static void *try_spin(void *arg) {
  (void)arg;
  spin_try_result = pthread_spin_trylock(&spin);
  return NULL;
}

static const char *name_of(int error) {
  switch (error) {
    case 0: return "0";
    case EBUSY: return "EBUSY";
    case EDEADLK: return "EDEADLK";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EINVAL: return "EINVAL";
    default: return "other";
  }
}

int main(void) {
  pthread_rwlockattr_t attr;
  int shared = -1;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_getpshared(&attr, &shared);
  printf("rwlockattr pshared %d\n", shared);
  printf("rwlock init %d\n", pthread_rwlock_init(&table_lock, &attr));
  pthread_rwlockattr_destroy(&attr);
  for (int c = 0; c < CELLS; ++c) table[c] = 100;

  pthread_t threads[READERS + WRITERS];
  for (long t = 0; t < WRITERS; ++t) pthread_create(&threads[t], NULL, writer, (void *)t);
  for (long t = 0; t < READERS; ++t) pthread_create(&threads[WRITERS + t], NULL, reader, NULL);
  for (int t = 0; t < READERS + WRITERS; ++t) pthread_join(threads[t], NULL);
  long total = 0;
  for (int c = 0; c < CELLS; ++c) total += table[c];
  printf("reads %ld inconsistent %ld total %ld\n", reads_done, bad_totals, total);
  for (int c = 0; c < CELLS; ++c) printf("%ld%c", table[c], c + 1 < CELLS ? ' ' : '\n');

  pthread_t other;
  pthread_rwlock_wrlock(&table_lock);
  printf("rdlock by the writer %s\n", name_of(pthread_rwlock_rdlock(&table_lock)));
  printf("wrlock by the writer %s\n", name_of(pthread_rwlock_wrlock(&table_lock)));
  pthread_create(&other, NULL, try_while_written, NULL);
  pthread_join(other, NULL);
  printf("while written: tryrd %s trywr %s timedrd %s timedwr %s\n", name_of(try_results[0]),
         name_of(try_results[1]), name_of(try_results[2]), name_of(try_results[3]));
  pthread_rwlock_unlock(&table_lock);

  pthread_rwlock_rdlock(&table_lock);
  printf("second read hold %s\n", name_of(pthread_rwlock_tryrdlock(&table_lock)));
  pthread_create(&other, NULL, try_write_while_read, NULL);
  pthread_join(other, NULL);
  printf("trywr while read %s\n", name_of(write_try_while_read));
  pthread_rwlock_unlock(&table_lock);
  pthread_rwlock_unlock(&table_lock);
  printf("trywr when free %s\n", name_of(pthread_rwlock_trywrlock(&table_lock)));
  pthread_rwlock_unlock(&table_lock);
  printf("destroy %d\n", pthread_rwlock_destroy(&table_lock));

  printf("static rdlock %s\n", name_of(pthread_rwlock_rdlock(&static_lock)));
  pthread_rwlock_unlock(&static_lock);

  printf("spin init %d\n", pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE));
  pthread_t spinners[SPINNERS];
  for (int t = 0; t < SPINNERS; ++t) pthread_create(&spinners[t], NULL, spinner, NULL);
  for (int t = 0; t < SPINNERS; ++t) pthread_join(spinners[t], NULL);
  printf("spun %ld\n", spun);
  pthread_spin_lock(&spin);
  pthread_create(&other, NULL, try_spin, NULL);
  pthread_join(other, NULL);
  pthread_spin_unlock(&spin);
  printf("spin trylock while held %s, when free %s\n", name_of(spin_try_result),
         name_of(pthread_spin_trylock(&spin)));
  pthread_spin_unlock(&spin);
  printf("spin destroy %d\n", pthread_spin_destroy(&spin));
  return 0;
}
