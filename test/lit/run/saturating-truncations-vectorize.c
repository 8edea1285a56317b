// A loop of float-to-integer casts vectorizes in the AOT compile as it does
// natively. wasm2c's own saturating truncations test NaN and each bound
// behind a branch hint, so clang kept every such loop scalar, one branch per
// test; the post-pass's clamps (runtime/granule/SaturatingTruncations.h)
// become maxpd/minpd and a packed conversion. The packed conversion saturates
// out-of-range lanes to INT32_MIN, so only the clamp makes it exact.
//
// The checks read the cached shared object of this program.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: rm -rf %t.cache
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm > %t.out
// RUN: llvm-objdump -d --no-show-raw-insn %t.cache/aot/*.so > %t.dis
// RUN: FileCheck %s --input-file %t.dis
// The results are the native build's:
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
//
// CHECK-LABEL: <Z_guestZ_to_int32>:
// CHECK:       maxpd
// CHECK:       minpd
// CHECK:       cvttpd2dq
// CHECK-LABEL: <Z_guestZ_to_uint32>:
// CHECK:       maxpd
// CHECK:       minpd
// Floats convert four to an instruction, not widened to doubles first:
// CHECK-LABEL: <Z_guestZ_float_to_int32>:
// CHECK:       maxps
// CHECK:       cvttps2dq
#include <stdint.h>
#include <stdio.h>

enum { N = 1000 };
static double samples[N];
static int32_t signed_out[N];
static uint32_t unsigned_out[N];
static float float_samples[N];
static int32_t from_float_out[N];

__attribute__((noinline, export_name("to_int32"))) void to_int32(
    int32_t *restrict out, const double *restrict in, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = (int32_t)in[i];
}

__attribute__((noinline, export_name("to_uint32"))) void to_uint32(
    uint32_t *restrict out, const double *restrict in, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = (uint32_t)in[i];
}

__attribute__((noinline, export_name("float_to_int32"))) void float_to_int32(
    int32_t *restrict out, const float *restrict in, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = (int32_t)in[i];
}

int main(void) {
  // In range for both conversions, so the native casts are defined.
  for (int i = 0; i < N; ++i)
    samples[i] = (double)(i * 2654435761u % 2000000000u) + (i % 4) * 0.25;
  to_int32(signed_out, samples, N);
  to_uint32(unsigned_out, samples, N);
  for (int i = 0; i < N; ++i)
    float_samples[i] = (float)samples[i] - 1e9f;
  float_to_int32(from_float_out, float_samples, N);
  int64_t weighted = 0;
  for (int i = 0; i < N; ++i)
    weighted += ((int64_t)signed_out[i] - unsigned_out[i] / 2 + from_float_out[i]) * (i % 7 + 1);
  printf("weighted %lld\n", (long long)weighted);
  return 0;
}
