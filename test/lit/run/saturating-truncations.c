// wasm's eight saturating truncations (`i32.trunc_sat_f64_s` ...) give
// exactly the specification's results in a granule: NaN is 0, values past
// either end of the integer range are that end, and all else rounds towards
// zero. The AOT compile defines them as clamps
// (runtime/granule/SaturatingTruncations.h); this compares every one, on the
// values where a clamp or a bound could be off by one, against a native
// reference written from the specification in 80-bit long double, which
// holds every 64-bit integer and every double exactly. Each conversion runs
// twice: on one value at a time, and in a loop over all of them, which the
// AOT compile vectorizes for the 32-bit results (packed clamps, packed
// conversion) and keeps scalar for the 64-bit ones, as native clang does
// (on x86-64 those convert with cvttsd2si/cvttss2si and fix the ends up).
// NaNs carry payloads and either sign, signalling ones included.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.out
// RUN: %host-clang -O2 -DNATIVE %s -lm -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.out
// CHECK: i64_s_f64 -2147483649 -2147483649
// CHECK: u64_u_f64 inf 18446744073709551615
// CHECK: i32_s_f64 nan 0
// CHECK: loop u64_u_f64 inf 18446744073709551615
// CHECK: loop u64_u_f32 -inf 0
// CHECK: checked 70 doubles and 36 floats
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef NATIVE
// The specification: trunc, then saturate. long double keeps both exact.
static long double saturate(long double x, long double lo, long double hi) {
  if (isnan(x)) return 0;
  long double t = truncl(x);
  return t < lo ? lo : t > hi ? hi : t;
}
#define S32(x) ((int32_t)saturate((x), INT32_MIN, INT32_MAX))
#define S64(x) ((int64_t)saturate((x), -0x1p63L, 0x1p63L - 1))
#define U32(x) ((uint32_t)saturate((x), 0, UINT32_MAX))
#define U64(x) ((uint64_t)saturate((x), 0, 0x1p64L - 1))
#define I32_S_F32(x) S32(x)
#define I64_S_F32(x) S64(x)
#define I32_U_F32(x) U32(x)
#define I64_U_F32(x) U64(x)
#define I32_S_F64(x) S32(x)
#define I64_S_F64(x) S64(x)
#define I32_U_F64(x) U32(x)
#define I64_U_F64(x) U64(x)
#else
#define I32_S_F32(x) __builtin_wasm_trunc_saturate_s_i32_f32(x)
#define I64_S_F32(x) __builtin_wasm_trunc_saturate_s_i64_f32(x)
#define I32_U_F32(x) __builtin_wasm_trunc_saturate_u_i32_f32(x)
#define I64_U_F32(x) __builtin_wasm_trunc_saturate_u_i64_f32(x)
#define I32_S_F64(x) __builtin_wasm_trunc_saturate_s_i32_f64(x)
#define I64_S_F64(x) __builtin_wasm_trunc_saturate_s_i64_f64(x)
#define I32_U_F64(x) __builtin_wasm_trunc_saturate_u_i32_f64(x)
#define I64_U_F64(x) __builtin_wasm_trunc_saturate_u_i64_f64(x)
#endif

// Each bound of each range, the doubles (floats) just inside and outside it,
// signed zeros, the infinities and NaNs.
static const double kValues[] = {
    0.0, -0.0, 0.5, -0.5, 0.999999, -0.999999, 1.0, -1.0, -1.5, 1.5, 123456.75, -123456.75,
    2147483647.0, 2147483647.5, 2147483648.0, 2147483520.0, -2147483648.0, -2147483648.75,
    -2147483649.0, -2147483904.0, 4294967295.0, 4294967295.5, 4294967296.0, 4294967040.0,
    9007199254740993.0, 9223372036854774784.0, 0x1p63, -0x1p63, -0x1.0000000000001p63,
    9223371487098961920.0, 18446744073709549568.0, 0x1p64, 18446742974197923840.0, 1e300,
    -1e300, 4.9e-324, -4.9e-324, INFINITY, -INFINITY, NAN, -NAN,
    // nextafter of +-2^31, +-(2^31 - 1), 2^32, +-2^63 and 2^64, both ways.
    0x1.fffffffffffffp30, 0x1.0000000000001p31, -0x1.fffffffffffffp30, -0x1.0000000000001p31,
    -2147483647.0, 0x1.fffffffbfffffp30, 0x1.fffffffc00001p30, -0x1.fffffffbfffffp30,
    -0x1.fffffffc00001p30, 0x1.fffffffffffffp31, 0x1.0000000000001p32, -0x1p32,
    0x1.0000000000001p63, -0x1.fffffffffffffp62, 0x1.0000000000001p64, -0x1p64, 0x1p-1074,
    -0x1.fffffffffffffp-1, 0x1.fffffffffffffp-1, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023};
// NaN bit patterns: quiet and signalling, with payloads, of either sign.
static const uint64_t kNanBits[] = {0x7ff8000000000001ull, 0xfff8000000000123ull,
                                    0x7ff0000000000001ull, 0xfff0000000000001ull,
                                    0x7fffffffffffffffull, 0xffffffffffffffffull,
                                    0x7ff4000000000000ull, 0xfff00000deadbeefull};
static const float kFloatValues[] = {
    0.0f, -0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 0x1.fffffep-1f, -0x1.fffffep-1f,
    // +-2^31, +-2^32, +-2^63, 2^64 and the floats beside them.
    0x1p31f, 0x1.fffffep30f, 0x1.000002p31f, -0x1p31f, -0x1.fffffep30f, -0x1.000002p31f,
    0x1p32f, 0x1.fffffep31f, 0x1.000002p32f, -0x1p32f, 0x1p63f, 0x1.fffffep62f,
    0x1.000002p63f, -0x1p63f, -0x1.fffffep62f, -0x1.000002p63f, 0x1p64f, 0x1.fffffep63f,
    0x1.000002p64f, 0x1p-149f, 0x1.fffffep127f, -0x1.fffffep127f, INFINITY, -INFINITY};
static const uint32_t kFloatNanBits[] = {0x7fc00001u, 0xffc00123u, 0x7f800001u, 0xff800001u};
enum {
  NANS = sizeof kNanBits / sizeof kNanBits[0],
  COUNT = sizeof kValues / sizeof kValues[0] + NANS,
  FLOAT_NANS = sizeof kFloatNanBits / sizeof kFloatNanBits[0],
  FLOAT_COUNT = sizeof kFloatValues / sizeof kFloatValues[0] + FLOAT_NANS,
};

static void print_value(const char *what, double value, uint64_t result, int is_signed) {
  if (is_signed)
    printf("%s %.17g %" PRId64 "\n", what, value, (int64_t)result);
  else
    printf("%s %.17g %" PRIu64 "\n", what, value, result);
}

// One loop per conversion, kept out of line so each is compiled on its own.
#define DEFINE_LOOP(name, from, to, convert)                                           \
  __attribute__((noinline)) static void name(int n, const from *restrict in,           \
                                             to *restrict out) {                      \
    for (int i = 0; i < n; ++i) out[i] = (to)convert(in[i]);                           \
  }
DEFINE_LOOP(loop_i32_s_f64, double, int32_t, I32_S_F64)
DEFINE_LOOP(loop_i64_s_f64, double, int64_t, I64_S_F64)
DEFINE_LOOP(loop_u32_u_f64, double, uint32_t, I32_U_F64)
DEFINE_LOOP(loop_u64_u_f64, double, uint64_t, I64_U_F64)
DEFINE_LOOP(loop_i32_s_f32, float, int32_t, I32_S_F32)
DEFINE_LOOP(loop_i64_s_f32, float, int64_t, I64_S_F32)
DEFINE_LOOP(loop_u32_u_f32, float, uint32_t, I32_U_F32)
DEFINE_LOOP(loop_u64_u_f32, float, uint64_t, I64_U_F32)

static double doubles[COUNT];
static float floats[COUNT + FLOAT_COUNT];
static int32_t out_i32[COUNT + FLOAT_COUNT];
static int64_t out_i64[COUNT + FLOAT_COUNT];
static uint32_t out_u32[COUNT + FLOAT_COUNT];
static uint64_t out_u64[COUNT + FLOAT_COUNT];

int main(void) {
  for (int i = 0; i < COUNT - NANS; ++i) doubles[i] = kValues[i];
  for (int i = 0; i < NANS; ++i) memcpy(&doubles[COUNT - NANS + i], &kNanBits[i], sizeof(double));
  // The floats: each double rounded, then the float-only values.
  for (int i = 0; i < COUNT; ++i) floats[i] = (float)doubles[i];
  for (int i = 0; i < FLOAT_COUNT - FLOAT_NANS; ++i) floats[COUNT + i] = kFloatValues[i];
  for (int i = 0; i < FLOAT_NANS; ++i)
    memcpy(&floats[COUNT + FLOAT_COUNT - FLOAT_NANS + i], &kFloatNanBits[i], sizeof(float));
  // One value at a time, through a volatile, so the wasm compile cannot fold
  // a conversion.
  volatile double double_source;
  volatile float float_source;
  for (int i = 0; i < COUNT; ++i) {
    double_source = doubles[i];
    const double d = double_source;
    print_value("i32_s_f64", d, (uint64_t)(int64_t)(int32_t)I32_S_F64(d), 1);
    print_value("i64_s_f64", d, (uint64_t)(int64_t)I64_S_F64(d), 1);
    print_value("u32_u_f64", d, (uint32_t)I32_U_F64(d), 0);
    print_value("u64_u_f64", d, (uint64_t)I64_U_F64(d), 0);
  }
  for (int i = 0; i < COUNT + FLOAT_COUNT; ++i) {
    float_source = floats[i];
    const float f = float_source;
    print_value("i32_s_f32", f, (uint64_t)(int64_t)(int32_t)I32_S_F32(f), 1);
    print_value("i64_s_f32", f, (uint64_t)(int64_t)I64_S_F32(f), 1);
    print_value("u32_u_f32", f, (uint32_t)I32_U_F32(f), 0);
    print_value("u64_u_f32", f, (uint64_t)I64_U_F32(f), 0);
  }
  // The same values through the loops. Counts the compile cannot see keep
  // the loops the general vectorized ones.
  volatile int counts[2] = {COUNT, COUNT + FLOAT_COUNT};
  const int double_count = counts[0], float_count = counts[1];
  loop_i32_s_f64(double_count, doubles, out_i32);
  loop_i64_s_f64(double_count, doubles, out_i64);
  loop_u32_u_f64(double_count, doubles, out_u32);
  loop_u64_u_f64(double_count, doubles, out_u64);
  for (int i = 0; i < COUNT; ++i) {
    print_value("loop i32_s_f64", doubles[i], (uint64_t)(int64_t)out_i32[i], 1);
    print_value("loop i64_s_f64", doubles[i], (uint64_t)out_i64[i], 1);
    print_value("loop u32_u_f64", doubles[i], out_u32[i], 0);
    print_value("loop u64_u_f64", doubles[i], out_u64[i], 0);
  }
  loop_i32_s_f32(float_count, floats, out_i32);
  loop_i64_s_f32(float_count, floats, out_i64);
  loop_u32_u_f32(float_count, floats, out_u32);
  loop_u64_u_f32(float_count, floats, out_u64);
  for (int i = 0; i < COUNT + FLOAT_COUNT; ++i) {
    print_value("loop i32_s_f32", floats[i], (uint64_t)(int64_t)out_i32[i], 1);
    print_value("loop i64_s_f32", floats[i], (uint64_t)out_i64[i], 1);
    print_value("loop u32_u_f32", floats[i], out_u32[i], 0);
    print_value("loop u64_u_f32", floats[i], out_u64[i], 0);
  }
  printf("checked %d doubles and %d floats\n", COUNT, FLOAT_COUNT);
  return 0;
}
