/*===- nstream.c - STREAM-triad style vector update ------------------------===*
 *
 * A[i] += B[i] + scalar * C[i] over three long vectors, repeated. It is pure
 * memory bandwidth: any per-access overhead the granule adds (bounds checks,
 * memory-base reloads) shows up directly, while a correct guard-page AOT
 * should run at native speed. Each element sees the same operations in the
 * same order on both targets, so the vectors match bit for bit.
 *
 * Usage: nstream [length]   (default length = 4000000, 400 iterations)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { ITERATIONS = 400 };

static void triad(long length, double scalar, double *restrict a, const double *restrict b,
                  const double *restrict c) {
  for (long i = 0; i < length; ++i)
    a[i] += b[i] + scalar * c[i];
}

int main(int argc, char **argv) {
  const long length = kernel_size_arg(argc, argv, 4000000);
  const size_t bytes = (size_t)length * sizeof(double);
  double *a = kernel_alloc(bytes);
  double *b = kernel_alloc(bytes);
  double *c = kernel_alloc(bytes);

  KernelRng rng = {2024};
  for (long i = 0; i < length; ++i) {
    a[i] = 0.0;
    b[i] = kernel_rng_unit(&rng);
    c[i] = kernel_rng_unit(&rng);
  }

  const double scalar = 3.0;
  KernelTimer timer = kernel_timer_start();
  for (int it = 0; it < ITERATIONS; ++it) {
    triad(length, scalar, a, b, c);
    kernel_round_end(&timer, 1);
  }

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  kernel_checksum_bytes(&sum, a, bytes);
  printf("kernel nstream length=%ld iterations=%d\n", length, ITERATIONS);
  kernel_report(&sum, &timer);
  free(a);
  free(b);
  free(c);
  return 0;
}
