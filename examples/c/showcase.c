// The showcase granule: a little of everything a real C program does.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compareDoubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  printf("hello from a Synergy granule: %d argument(s)\n", argc - 1);
  for (int i = 1; i < argc; ++i) printf("  argv[%d] = %s\n", i, argv[i]);

  enum { kCount = 100000 };
  double* values = malloc(kCount * sizeof *values);
  unsigned state = 12345;
  for (int i = 0; i < kCount; ++i) {
    state = state * 1103515245u + 12345u;
    values[i] = sin((double)(state >> 8));
  }
  qsort(values, kCount, sizeof *values, compareDoubles);
  printf("sorted %d sines: min %.6f median %.6f max %.6f\n", kCount, values[0],
         values[kCount / 2], values[kCount - 1]);
  free(values);
  return 0;
}
