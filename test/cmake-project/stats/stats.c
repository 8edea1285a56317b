#include "stats.h"

#include <math.h>

void stats_init(struct stats* s) {
  s->count = 0;
  s->mean = 0.0;
  s->m2 = 0.0;
}

void stats_add(struct stats* s, double x) {
  double delta = x - s->mean;
  s->count += 1;
  s->mean += delta / (double)s->count;
  s->m2 += delta * (x - s->mean);
}

double stats_stddev(const struct stats* s) {
  return s->count > 1 ? sqrt(s->m2 / (double)(s->count - 1)) : 0.0;
}
