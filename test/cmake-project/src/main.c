/* Summarizes its numeric arguments: count, mean and sample standard deviation. */
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

int main(int argc, char** argv) {
  struct stats s;
  stats_init(&s);
  for (int i = 1; i < argc; ++i) stats_add(&s, strtod(argv[i], NULL));
  printf("count=%ld mean=%.3f stddev=%.3f\n", s.count, s.mean, stats_stddev(&s));
  return s.count == 0 ? 2 : 0;
}
