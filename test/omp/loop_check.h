//===- loop_check.h - record and judge how a worksharing loop ran ---------===//
//
// Shared by the schedule_*.c and collapse.c tests. Inside a loop each
// iteration calls record() with its logical iteration number (0, 1, ... in
// sequential order, whatever the loop variable's type or stride); after the
// loop, report() prints only what the OpenMP specification fixes: that every
// iteration ran exactly once, that each thread got its chunks in increasing
// order, and, per schedule, the chunk layout the spec prescribes. Which
// thread ran which dynamic chunk is left out because it is scheduling luck.
//
// Each thread writes its own slots of shared arrays, next to other
// threads' slots: a DSM that ships whole pages instead of byte-wise diffs
// loses some of these writes.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { MAX_ITERATIONS = 4096, MAX_THREADS = 64 };

static int hits[MAX_ITERATIONS];
static int owner[MAX_ITERATIONS];
static int last_seen[MAX_THREADS];
static int out_of_order[MAX_THREADS];
static int team_size;

static inline void loop_begin(void) {
  memset(hits, 0, sizeof hits);
  memset(owner, -1, sizeof owner);
  memset(out_of_order, 0, sizeof out_of_order);
  for (int t = 0; t < MAX_THREADS; ++t)
    last_seen[t] = -1;
  team_size = 0;
}

static inline void record(long long logical) {
  int thread = omp_get_thread_num();
  int k = (int)logical;
  if (k < 0 || k >= MAX_ITERATIONS || thread >= MAX_THREADS)
    return;
#pragma omp atomic
  hits[k] += 1;
  owner[k] = thread;
  if (k <= last_seen[thread])
    out_of_order[thread] = 1;
  last_seen[thread] = k;
  if (thread == 0)
    team_size = omp_get_num_threads();
}

enum Layout { ANY, CONTIGUOUS, ROUND_ROBIN, WHOLE_CHUNKS };

// `chunk` is the schedule's chunk size for ROUND_ROBIN and WHOLE_CHUNKS.
static inline int report(const char *name, int count, enum Layout layout, int chunk) {
  int executed = 0, once = 1, in_order = 1, layout_ok = 1;
  for (int k = 0; k < count; ++k) {
    executed += hits[k];
    once &= hits[k] == 1;
  }
  for (int k = count; k < MAX_ITERATIONS; ++k)
    once &= hits[k] == 0;
  for (int t = 0; t < MAX_THREADS; ++t)
    in_order &= !out_of_order[t];
  if (layout == CONTIGUOUS) {
    // At most one chunk per thread: no thread reappears after another's run.
    int finished[MAX_THREADS] = {0};
    for (int k = 0; k < count; ++k) {
      if (finished[owner[k]])
        layout_ok = 0;
      if (k + 1 == count || owner[k + 1] != owner[k])
        finished[owner[k]] = 1;
    }
  } else if (layout == ROUND_ROBIN) {
    int threads = team_size > 0 ? team_size : 1;
    for (int k = 0; k < count; ++k)
      layout_ok &= owner[k] == (k / chunk) % threads;
  } else if (layout == WHOLE_CHUNKS) {
    for (int k = 0; k < count; ++k)
      layout_ok &= owner[k] == owner[k - k % chunk];
  }
  int ok = executed == count && once && in_order && layout_ok;
  printf("%-28s count %4d executed %4d once %s in order %s layout %s\n", name, count, executed,
         once ? "yes" : "NO", in_order ? "yes" : "NO", layout_ok ? "yes" : "NO");
  return ok;
}

// The owner of each iteration, for short loops whose layout the spec fixes.
static inline void print_owners(int count) {
  printf("  owners");
  for (int k = 0; k < count; ++k)
    printf(" %d", owner[k]);
  printf("\n");
}
