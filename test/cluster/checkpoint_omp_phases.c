// For checkpoint_cluster_test.py's chaos case: an OpenMP program of many
// phases, each a parallel loop with an integer reduction and a line
// printed, compared with libgomp's output. Its worker threads share the
// job's memory, so a cluster job of it takes no checkpoint (its control
// points are refused with a note) and a lost host restarts it from the
// beginning. argv[1]: the phases, argv[2]: the iterations of each.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int phases = argc > 1 ? atoi(argv[1]) : 20;
  long iterations = argc > 2 ? atol(argv[2]) : 1000000;
  unsigned long long carry = 1;
  for (int phase = 0; phase < phases; ++phase) {
    unsigned long long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < iterations; ++i) {
      unsigned long long x = (unsigned long long)i * 6364136223846793005ULL + carry + phase;
      sum += (x ^ (x >> 29)) % 1000003ULL;
    }
    carry = sum;
    printf("phase %d sum %llu\n", phase, sum);
    fflush(stdout);
  }
  return 0;
}
