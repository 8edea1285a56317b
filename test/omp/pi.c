// MODE: openmp
//===- pi.c - pi by quadrature and by counting lattice points -------------===//
//
// The midpoint rule for the integral of 4/(1+x^2) is a floating-point sum
// whose rounding depends on how threads split it, so it is printed to 8
// decimals, far above that noise. Counting the lattice points inside a
// quarter circle gives an exact integer estimate that any split must
// reproduce to the last digit.
//
//===----------------------------------------------------------------------===//
#include <omp.h>
#include <stdio.h>

enum { STEPS = 1000000, RADIUS = 4000 };

int main(void) {
  const double step = 1.0 / STEPS;
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < STEPS; ++i) {
    double x = (i + 0.5) * step;
    sum += 4.0 / (1.0 + x * x);
  }
  printf("quadrature pi %.8f\n", sum * step);

  long long inside = 0;
  const long long r2 = (long long)RADIUS * RADIUS;
#pragma omp parallel for schedule(dynamic, 50) reduction(+ : inside)
  for (int x = 0; x < RADIUS; ++x)
    for (int y = 0; y < RADIUS; ++y)
      inside += (long long)x * x + (long long)y * y < r2;
  printf("lattice points %lld of %lld, pi ~ %lld/%lld\n", inside, r2, 4 * inside, r2);
  return 0;
}
