// MODE: openmp
//===- histogram.c - one histogram built five ways ------------------------===//
//
// The same histogram through atomic increments, an unnamed critical
// section, one omp lock per bin, private histograms merged under a named
// critical, and an array reduction. All five must equal the serial one.
// Many threads hit the same few bins, which is the contended case.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>
#include <string.h>

enum { SAMPLES = 200000, BINS = 13 };

static unsigned short samples[SAMPLES];
static int serial[BINS];

static int report(const char *how, const int *bins) {
  int same = memcmp(bins, serial, sizeof serial) == 0;
  printf("%-10s matches serial %s\n", how, same ? "yes" : "no");
  return same;
}

int main(void) {
  unsigned x = 2463534242u;
  for (int i = 0; i < SAMPLES; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    // Skewed: low bins are hit far more often. The sum reaches BINS (12 + 1),
    // so it is taken modulo BINS to stay a bin.
    samples[i] = (unsigned short)(((x % BINS) * (x % 3 == 0) + (x % 4 == 0)) % BINS);
  }
  for (int i = 0; i < SAMPLES; ++i)
    serial[samples[i]] += 1;
  printf("serial");
  for (int b = 0; b < BINS; ++b)
    printf(" %d", serial[b]);
  printf("\n");

  int ok = 1;
  int bins[BINS];
  memset(bins, 0, sizeof bins);
#pragma omp parallel for
  for (int i = 0; i < SAMPLES; ++i) {
#pragma omp atomic
    bins[samples[i]] += 1;
  }
  ok &= report("atomic", bins);

  memset(bins, 0, sizeof bins);
#pragma omp parallel for schedule(dynamic, 1000)
  for (int i = 0; i < SAMPLES; ++i) {
#pragma omp critical
    bins[samples[i]] += 1;
  }
  ok &= report("critical", bins);

  omp_lock_t locks[BINS];
  for (int b = 0; b < BINS; ++b)
    omp_init_lock(&locks[b]);
  memset(bins, 0, sizeof bins);
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < SAMPLES; ++i) {
    omp_set_lock(&locks[samples[i]]);
    bins[samples[i]] += 1;
    omp_unset_lock(&locks[samples[i]]);
  }
  for (int b = 0; b < BINS; ++b)
    omp_destroy_lock(&locks[b]);
  ok &= report("locks", bins);

  memset(bins, 0, sizeof bins);
#pragma omp parallel
  {
    int mine[BINS] = {0};
#pragma omp for nowait
    for (int i = 0; i < SAMPLES; ++i)
      mine[samples[i]] += 1;
#pragma omp critical(merge)
    for (int b = 0; b < BINS; ++b)
      bins[b] += mine[b];
  }
  ok &= report("private", bins);

  memset(bins, 0, sizeof bins);
#pragma omp parallel for reduction(+ : bins[:BINS])
  for (int i = 0; i < SAMPLES; ++i)
    bins[samples[i]] += 1;
  ok &= report("reduction", bins);
  return !ok;
}
