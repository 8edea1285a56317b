/*===- f2ihash.c - hashing doubles through float-to-integer conversion -----===*
 *
 * Folds a long array of scaled doubles into a hash through (uint64_t)
 * conversions, as code that buckets or fingerprints floating data does.
 * In wasm the conversion is a trapping truncation with range checks, so a
 * hot loop of them measures what those checks cost against the native
 * cvttsd2si sequence.
 *
 * Usage: f2ihash [n]   (default n = 4000000, 20 passes)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { PASSES = 20 };

static uint64_t hash_values(long n, const double *restrict values, double scale) {
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  for (long i = 0; i < n; ++i) {
    const uint64_t bucket = (uint64_t)(values[i] * scale);
    hash = (hash ^ bucket) * 0x100000001b3ull;
  }
  return hash;
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 4000000);
  double *values = kernel_alloc(n * sizeof(double));
  KernelRng rng = {131};
  kernel_fill_unit(&rng, values, n);

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int p = 0; p < PASSES; ++p) {
    kernel_checksum_u64(&sum, hash_values(n, values, 1e12 * (double)(p + 1)));
    kernel_round_end(&timer, 1);
  }
  printf("kernel f2ihash n=%ld passes=%d\n", n, PASSES);
  kernel_report(&sum, &timer);
  return 0;
}
