/*===- quantize.c - quantizing floating samples to integers ----------------===*
 *
 * Turns a long array of floating samples into integer codes, as audio and
 * image pipelines and fixed-point encoders do: a signed 32-bit code per
 * sample (`(int32_t)`), and an unsigned one from its magnitude
 * (`(uint32_t)`). Natively both loops vectorize to packed conversions; in wasm
 * every cast is a saturating truncation, so this measures whether the AOT
 * compile keeps them as branch-free and vectorizable as native code. All
 * values stay inside the integer ranges, so the native casts are defined.
 *
 * Usage: quantize [n]   (default n = 2000000, 200 passes)
 *
 *===----------------------------------------------------------------------===*/
#include "kernel_support.h"

enum { PASSES = 200 };

static void quantize_signed(long n, const double *restrict samples, double gain,
                            int32_t *restrict codes) {
  for (long i = 0; i < n; ++i)
    codes[i] = (int32_t)(samples[i] * gain);
}

static void quantize_magnitude(long n, const double *restrict samples, double gain,
                               uint32_t *restrict codes) {
  for (long i = 0; i < n; ++i) {
    const double sample = samples[i];
    codes[i] = (uint32_t)((sample < 0.0 ? -sample : sample) * gain);
  }
}

int main(int argc, char **argv) {
  const long n = kernel_size_arg(argc, argv, 2000000);
  double *samples = kernel_alloc(n * sizeof(double));
  int32_t *signed_codes = kernel_alloc(n * sizeof(int32_t));
  uint32_t *magnitude_codes = kernel_alloc(n * sizeof(uint32_t));
  KernelRng rng = {132};
  for (long i = 0; i < n; ++i)
    samples[i] = 2.0 * kernel_rng_unit(&rng) - 1.0;

  KernelChecksum sum;
  kernel_checksum_init(&sum);
  KernelTimer timer = kernel_timer_start();
  for (int p = 0; p < PASSES; ++p) {
    /* Gains up to 2^31 - 1 and 2^32 - 1: every code is in range. */
    const double gain = 2147483647.0 * (double)(p + 1) / PASSES;
    quantize_signed(n, samples, gain, signed_codes);
    quantize_magnitude(n, samples, 2.0 * gain, magnitude_codes);
    /* One code of each kind per pass keeps every pass's work observable. */
    kernel_checksum_u64(&sum, (uint64_t)(uint32_t)signed_codes[p % n] << 32 |
                                  magnitude_codes[(p * 7919) % n]);
    kernel_round_end(&timer, 1);
  }
  kernel_checksum_bytes(&sum, signed_codes, n * sizeof(int32_t));
  kernel_checksum_bytes(&sum, magnitude_codes, n * sizeof(uint32_t));
  printf("kernel quantize n=%ld passes=%d\n", n, PASSES);
  kernel_report(&sum, &timer);
  return 0;
}
