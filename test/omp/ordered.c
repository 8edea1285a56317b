// MODE: openmp
//===- ordered.c - ordered regions inside dynamic and static loops --------===//
//
// The ordered region of each iteration must run in sequential iteration
// order even though the loop bodies run concurrently and finish in any
// order: appending to a shared log inside it must give 0, 1, 2, ... .
// Also printing from inside an ordered region, which is deterministic.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { COUNT = 503 };

static int log_entries[COUNT];
static int log_length;

static unsigned work(int i) {
  unsigned x = (unsigned)i;
  for (int k = 0; k < (i * 37) % 200; ++k)
    x = x * 1103515245u + 12345u;
  return x;
}

static int check_log(int count, int first, int step) {
  int ok = log_length == count;
  for (int k = 0; k < count && ok; ++k)
    ok = log_entries[k] == first + k * step;
  return ok;
}

int main(void) {
  unsigned mix = 0;
  log_length = 0;
#pragma omp parallel for ordered schedule(dynamic, 3) reduction(^ : mix)
  for (int i = 0; i < COUNT; ++i) {
    mix ^= work(i);
#pragma omp ordered
    log_entries[log_length++] = i;
  }
  printf("dynamic,3 ordered log in order %s mix %u\n", check_log(COUNT, 0, 1) ? "yes" : "no", mix);

  log_length = 0;
  mix = 0;
#pragma omp parallel for ordered schedule(static, 1) reduction(+ : mix)
  for (int i = COUNT - 1; i >= 0; i -= 2) {
    mix += work(i);
#pragma omp ordered
    log_entries[log_length++] = i;
  }
  printf("static,1 ordered descending log in order %s mix %u\n",
         check_log((COUNT + 1) / 2, COUNT - 1, -2) ? "yes" : "no", mix);

  log_length = 0;
#pragma omp parallel for ordered
  for (long long i = 0; i < COUNT; ++i) {
#pragma omp ordered
    log_entries[log_length++] = (int)i;
  }
  printf("default schedule ordered log in order %s\n", check_log(COUNT, 0, 1) ? "yes" : "no");

#pragma omp parallel for ordered schedule(guided)
  for (int i = 0; i < 12; ++i) {
    unsigned w = work(i * 11);
#pragma omp ordered
    printf("iteration %d work %u\n", i, w);
  }
  return 0;
}
