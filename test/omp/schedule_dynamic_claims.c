// MODE: openmp
//===- schedule_dynamic_claims.c - long dynamic loops, many chunks a thread ===//
//
// Dynamic loops of thousands of chunks, where a thread on a thread host
// takes several chunks of the main host's per round trip
// (claimSharedChunks): every iteration must still run once, each thread's
// chunks in increasing order and each chunk whole; lastprivate must be the
// last iteration's value, nowait loops must not take each other's
// iterations, and an ordered dynamic loop must log its iterations in order.
// Which thread ran what is left out: it is scheduling luck. Iterations are
// recorded with plain stores (each iteration writes only its own slots), not
// atomics, so that spread over hosts the loops' own round trips dominate.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { COUNT = 4000, ORDERED_COUNT = 300, MAX_THREADS = 64 };

static int hits[COUNT];
static int owner[COUNT];
// Per iteration, the iteration the same thread ran before it (-1: none).
static int previous[COUNT];
static int last_seen[MAX_THREADS];

static void loop_begin(void) {
  memset(hits, 0, sizeof hits);
  for (int t = 0; t < MAX_THREADS; ++t)
    last_seen[t] = -1;
}

static void record(int k) {
  int thread = omp_get_thread_num();
  hits[k] += 1;
  owner[k] = thread;
  previous[k] = last_seen[thread];
  last_seen[thread] = k;
}

// Every iteration once, each thread's iterations in increasing order, and
// each chunk of `chunk` iterations run by one thread.
static int report(const char *name, int chunk) {
  int once = 1, in_order = 1, whole = 1;
  for (int k = 0; k < COUNT; ++k) {
    once &= hits[k] == 1;
    in_order &= previous[k] < k;
    whole &= owner[k] == owner[k - k % chunk];
  }
  printf("%-28s once %s in order %s whole chunks %s\n", name, once ? "yes" : "NO",
         in_order ? "yes" : "NO", whole ? "yes" : "NO");
  return once && in_order && whole;
}

static unsigned work(int i) {
  unsigned x = (unsigned)i;
  for (int k = 0; k < (i * 37) % 64; ++k)
    x = x * 1103515245u + 12345u;
  return x;
}

static int second_hits[COUNT];
static int ordered_log[ORDERED_COUNT];

int main(void) {
  int failures = 0;
  static const int chunks[] = {1, 3, 7, 64};
  for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; ++c) {
    const int chunk = chunks[c];
    unsigned long long sum = 0;
    loop_begin();
#pragma omp parallel for schedule(dynamic, chunk) reduction(+ : sum)
    for (int i = 0; i < COUNT; ++i) {
      record(i);
      sum += work(i);
    }
    char name[40];
    snprintf(name, sizeof name, "dynamic,%d", chunk);
    failures += !report(name, chunk);
    printf("  sum %llu\n", sum);
  }

  // An odd stride downwards, with lastprivate: the last iteration's value.
  int last = -1;
  loop_begin();
#pragma omp parallel for schedule(dynamic, 5) lastprivate(last)
  for (int i = 3 * COUNT - 1; i >= 0; i -= 3) {
    record((3 * COUNT - 1 - i) / 3);
    last = i;
  }
  failures += !report("dynamic,5 down lastprivate", 5);
  printf("  last %d\n", last);

  // Two nowait loops in one region: a thread that finishes the first takes
  // chunks of the second while others still run the first.
  loop_begin();
  memset(second_hits, 0, sizeof second_hits);
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 2) nowait
    for (int i = 0; i < COUNT; ++i)
      record(i);
#pragma omp for schedule(dynamic, 9) nowait
    for (int i = 0; i < COUNT; ++i)
      second_hits[i] += 1;
  }
  failures += !report("dynamic,2 nowait", 2);
  int once = 1;
  for (int i = 0; i < COUNT; ++i)
    once &= second_hits[i] == 1;
  printf("%-28s once %s\n", "dynamic,9 nowait", once ? "yes" : "NO");
  failures += !once;

  // Ordered: the ordered blocks run in iteration order whoever holds them.
  int logged = 0;
  unsigned long long ordered_sum = 0;
#pragma omp parallel for schedule(dynamic, 1) ordered reduction(+ : ordered_sum)
  for (int i = 0; i < ORDERED_COUNT; ++i) {
    ordered_sum += work(i);
#pragma omp ordered
    ordered_log[logged++] = i;
  }
  int in_order = logged == ORDERED_COUNT;
  for (int i = 0; i < logged && in_order; ++i)
    in_order = ordered_log[i] == i;
  printf("%-28s logged %d in order %s sum %llu\n", "dynamic,1 ordered", logged,
         in_order ? "yes" : "NO", ordered_sum);
  failures += !in_order;

  printf("failures %d\n", failures);
  return failures != 0;
}
