// MODE: openmp
// THREADS: 1,3,9
//===- locks_shared_page.c - locks and criticals on a page also written freely
//
// One small struct, so one page, holds counters behind one omp lock per
// slot, counts merged under a named critical, a sum under another named
// critical, and per-thread tallies. In the first phase two threads of
// every three (1, 2, 4, 5 ...) only bump their own tallies, with no
// synchronisation (disjoint bytes: no race) but an atomic read now and then
// of how many of the others (0, 3, 6 ...) are done taking and releasing the
// slot locks. Spread over hosts (three a host at 9 threads), a thread
// host's two writers are then writing the page whenever its locker's
// release takes the host's dirty pages: when that take raced with a
// writer's write fault, the page stayed writable but untracked, and the
// host's later writes to it (tallies, counters, merges) never reached the
// main host. Then private counts are merged under a named critical after a
// nowait dynamic loop, and a guided loop adds under a named critical per
// item. Every total is known exactly and printed against the serial one.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { ITEMS = 12000, SLOTS = 9, MAX_THREADS = 64, BURST = 100000 };

static struct {
  int locked[SLOTS];
  int merged[SLOTS];
  long long critical;
  unsigned long long tally[MAX_THREADS];
} page;

static int lockersDone;
static unsigned long long written;

static int serial[SLOTS];
static omp_lock_t locks[SLOTS];

static unsigned slotOf(unsigned i) {
  unsigned x = i * 2654435761u;
  x ^= x >> 15;
  // Skewed towards the low slots, the contended case; at most SLOTS - 1.
  return (x % (SLOTS - 1)) * (x % 3 == 0) + (x % 5 == 0);
}

static unsigned long long tallies(void) {
  unsigned long long sum = 0;
  for (int t = 0; t < MAX_THREADS; ++t)
    sum += page.tally[t];
  return sum;
}

static int report(const char *how, const int *counts) {
  int same = memcmp(counts, serial, sizeof serial) == 0;
  printf("%-8s matches serial %s\n", how, same ? "yes" : "no");
  return same;
}

int main(void) {
  long long serialCritical = 0;
  for (unsigned i = 0; i < ITEMS; ++i) {
    serial[slotOf(i)] += 1;
    serialCritical += i % 97;
  }
  for (int s = 0; s < SLOTS; ++s)
    omp_init_lock(&locks[s]);

#pragma omp parallel
  {
    int me = omp_get_thread_num(), threads = omp_get_num_threads();
    // Threads 0, 3, 6 ... lock, the others write.
    int lockers = (threads + 2) / 3;
    volatile unsigned long long *tally = &page.tally[me % MAX_THREADS];
    if (me % 3 != 0) {
      unsigned long long mine = 0;
      for (;;) {
        int done;
#pragma omp atomic read
        done = lockersDone;
        if (done == lockers)
          break;
        for (unsigned i = 0; i < BURST; ++i)
          *tally += 1;
        mine += BURST;
      }
#pragma omp atomic
      written += mine;
    } else {
      for (unsigned i = (unsigned)(me / 3); i < ITEMS; i += (unsigned)lockers) {
        unsigned slot = slotOf(i);
        omp_set_lock(&locks[slot]);
        page.locked[slot] += 1;
        omp_unset_lock(&locks[slot]);
        *tally += 1;
      }
#pragma omp atomic
      lockersDone += 1;
    }
  }
  for (int s = 0; s < SLOTS; ++s)
    omp_destroy_lock(&locks[s]);

#pragma omp parallel
  {
    int mine[SLOTS] = {0};
#pragma omp for schedule(dynamic, 7) nowait
    for (unsigned i = 0; i < ITEMS; ++i)
      mine[slotOf(i)] += 1;
#pragma omp critical(merge)
    for (int s = 0; s < SLOTS; ++s)
      page.merged[s] += mine[s];
  }

#pragma omp parallel for schedule(guided)
  for (unsigned i = 0; i < ITEMS; ++i) {
#pragma omp critical(count)
    page.critical += i % 97;
  }

  printf("serial");
  for (int s = 0; s < SLOTS; ++s)
    printf(" %d", serial[s]);
  printf("\n");
  int ok = report("locks", page.locked);
  ok &= report("merged", page.merged);
  printf("critical %lld (serial %lld)\n", page.critical, serialCritical);
  printf("tallies %s\n", tallies() == written + ITEMS ? "complete" : "MISSING");
  return !(ok && page.critical == serialCritical && tallies() == written + ITEMS);
}
