// Stochastic gradient descent in the shape of the Faabric paper's example:
// each epoch updates disjoint slices of a shared weight vector in parallel,
// then a reduction sums the loss. Under `synergy-run --dsm` every thread
// works on its own copy-on-write replica and the runtime merges byte-wise
// diffs at each barrier; the reduction needs no annotation.
#include <omp.h>
#include <stdio.h>

enum { FEATURES = 4096, SAMPLES = 64, EPOCHS = 20 };

static double weights[FEATURES];
static double inputs[SAMPLES][FEATURES];
static double targets[SAMPLES];

int main(void) {
  for (int s = 0; s < SAMPLES; ++s) {
    targets[s] = (s % 7) - 3.0;
    for (int f = 0; f < FEATURES; ++f) inputs[s][f] = ((s * 31 + f * 17) % 13 - 6) / 64.0;
  }
  const double rate = 0.01;
  double loss = 0.0;
  for (int epoch = 0; epoch < EPOCHS; ++epoch) {
    int sample = epoch % SAMPLES;
    double prediction = 0.0;
#pragma omp parallel for reduction(+ : prediction)
    for (int f = 0; f < FEATURES; ++f) prediction += weights[f] * inputs[sample][f];
    double error = prediction - targets[sample];
#pragma omp parallel for
    for (int f = 0; f < FEATURES; ++f) weights[f] -= rate * error * inputs[sample][f];
    loss = 0.0;
#pragma omp parallel for reduction(+ : loss)
    for (int s = 0; s < SAMPLES; ++s) {
      double p = 0.0;
      for (int f = 0; f < FEATURES; ++f) p += weights[f] * inputs[s][f];
      loss += (p - targets[s]) * (p - targets[s]);
    }
  }
  printf("sgd: %d features, %d threads, loss after %d epochs %.6f\n", FEATURES,
         omp_get_max_threads(), EPOCHS, loss / SAMPLES);
  return 0;
}
