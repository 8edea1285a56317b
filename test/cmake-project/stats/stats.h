/* Running mean and variance (Welford), kept in a small struct. */
#ifndef STATS_H
#define STATS_H

struct stats {
  long count;
  double mean;
  double m2;
};

void stats_init(struct stats* s);
void stats_add(struct stats* s, double x);
double stats_stddev(const struct stats* s);

#endif
