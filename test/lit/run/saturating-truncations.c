// wasm's eight saturating truncations (`i32.trunc_sat_f64_s` ...) give
// exactly the specification's results in a granule: NaN is 0, values past
// either end of the integer range are that end, and all else rounds towards
// zero. The AOT compile defines them as clamps
// (runtime/granule/SaturatingTruncations.h); this compares every one, on the
// values where a clamp or a bound could be off by one, against a native
// reference written from the specification in 80-bit long double, which
// holds every 64-bit integer and every double exactly.
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %synergy-run %t.wasm > %t.out
// RUN: %host-clang -O2 -DNATIVE %s -lm -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.out
// CHECK: i64_s_f64 -2147483649 -2147483649
// CHECK: u64_u_f64 inf 18446744073709551615
// CHECK: i32_s_f64 nan 0
// CHECK: checked 41 values
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

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

// Each bound of each range, the doubles and floats beside it, signed zeros,
// the infinities and NaN.
static const double kValues[] = {
    0.0, -0.0, 0.5, -0.5, 0.999999, -0.999999, 1.0, -1.0, -1.5, 1.5, 123456.75, -123456.75,
    2147483647.0, 2147483647.5, 2147483648.0, 2147483520.0, -2147483648.0, -2147483648.75,
    -2147483649.0, -2147483904.0, 4294967295.0, 4294967295.5, 4294967296.0, 4294967040.0,
    9007199254740993.0, 9223372036854774784.0, 0x1p63, -0x1p63, -0x1.0000000000001p63,
    9223371487098961920.0, 18446744073709549568.0, 0x1p64, 18446742974197923840.0, 1e300,
    -1e300, 4.9e-324, -4.9e-324, INFINITY, -INFINITY, NAN, -NAN};
enum { COUNT = sizeof kValues / sizeof kValues[0] };

static void print_value(const char *what, double value, uint64_t result, int is_signed) {
  if (is_signed)
    printf("%s %.17g %" PRId64 "\n", what, value, (int64_t)result);
  else
    printf("%s %.17g %" PRIu64 "\n", what, value, result);
}

int main(void) {
  // Through a volatile, so the wasm compile cannot fold a conversion.
  volatile double source[COUNT];
  for (int i = 0; i < COUNT; ++i) source[i] = kValues[i];
  for (int i = 0; i < COUNT; ++i) {
    const double d = source[i];
    const float f = (float)d;
    print_value("i32_s_f64", d, (uint64_t)(int64_t)(int32_t)I32_S_F64(d), 1);
    print_value("i64_s_f64", d, (uint64_t)(int64_t)I64_S_F64(d), 1);
    print_value("u32_u_f64", d, (uint32_t)I32_U_F64(d), 0);
    print_value("u64_u_f64", d, (uint64_t)I64_U_F64(d), 0);
    print_value("i32_s_f32", f, (uint64_t)(int64_t)(int32_t)I32_S_F32(f), 1);
    print_value("i64_s_f32", f, (uint64_t)(int64_t)I64_S_F32(f), 1);
    print_value("u32_u_f32", f, (uint32_t)I32_U_F32(f), 0);
    print_value("u64_u_f32", f, (uint64_t)I64_U_F32(f), 0);
  }
  printf("checked %d values\n", COUNT);
  return 0;
}
