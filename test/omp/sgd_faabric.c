// MODE: openmp
//===- sgd_faabric.c - the Faabric paper's SGD step (Fig. 7) --------------===//
//
// The shape of the Faabric paper's OpenMP example: a parallel loop makes
// disjoint updates to a shared weight vector, then a parallel reduction sums
// a loss over it. Under DSM the first loop's writes come back as byte-wise
// diffs that must land without merging, and the reduction's must be merged
// with a sum. All values are dyadic rationals small enough that every
// partial sum is exact, so any reduction order gives the same bits.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

enum { FEATURES = 1003, EPOCHS = 10 };

static double weights[FEATURES];
static double targets[FEATURES];

static uint64_t fnv1a(const void *data, size_t size, uint64_t hash) {
  const unsigned char *bytes = data;
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

int main(void) {
  for (int i = 0; i < FEATURES; ++i) {
    weights[i] = 0.0;
    targets[i] = (double)((i * 37) % 61 - 30);
  }
  const double learning_rate = 0.5;
  for (int epoch = 0; epoch < EPOCHS; ++epoch) {
#pragma omp parallel for
    for (int i = 0; i < FEATURES; ++i) {
      double gradient = weights[i] - targets[i];
      weights[i] -= learning_rate * gradient;
    }
    double loss = 0.0;
#pragma omp parallel for reduction(+ : loss)
    for (int i = 0; i < FEATURES; ++i) {
      double error = weights[i] - targets[i];
      loss += error * error;
    }
    printf("epoch %d loss %.17g\n", epoch, loss);
  }
  double total = 0.0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < FEATURES; ++i)
    total += weights[i];
  printf("sum of weights %.17g\n", total);
  printf("weights checksum %016llx\n",
         (unsigned long long)fnv1a(weights, sizeof weights, 0xcbf29ce484222325ull));
  return 0;
}
