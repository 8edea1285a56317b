// Backward recurrences (x[k] computed from x[k + 1], k falling) reach wasm
// with the value of the previous iteration kept in a local by the
// forward-loop-carried-stores pass, for each value type, as clang's
// LoopLoadElimination keeps it in a register natively. Loops with a second
// store (here one that aliases the recurrence) keep their loads. Every
// result equals the native build's.
//
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: %wasm-dis %t.wasm > %t.wat
// RUN: FileCheck %s --check-prefix=WASM --input-file %t.wat
// RUN: %synergy-run %t.wasm > %t.granule.out
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.granule.out
// RUN: FileCheck %s --input-file %t.granule.out
//
// The aliased loop keeps its load of x[k + 1]. The rewritten functions are
// recreated, so they come last, in source order: the store tees its value
// into a new local, which the next iteration reads instead of memory (the
// pass's own test pins the load before the loop).
// WASM:       (func $aliased_second_store
// WASM:        (loop
// WASM-NEXT:    (i32.store
// WASM-NEXT:     (local.get
// WASM-NEXT:     (i32.add
// WASM-NEXT:      (i32.load
// WASM:       (func $back_substitute_f64
// WASM:         (loop
// WASM-NEXT:     (f64.store
// WASM-NEXT:      (local.get
// WASM-NEXT:      (local.tee [[F64:\$[0-9]+]]
// WASM:               (local.get [[F64]])
// WASM:          (br_if
// WASM:       (func $suffix_sums_i64
// WASM:         (loop
// WASM-NEXT:     (i64.store
// WASM-NEXT:      (local.get
// WASM-NEXT:      (local.tee [[I64:\$[0-9]+]]
// WASM:              (local.get [[I64]])
// WASM:          (br_if
// WASM:       (func $halve_back_f32
// WASM:         (loop
// WASM-NEXT:     (f32.store
// WASM-NEXT:      (local.get
// WASM-NEXT:      (local.tee [[F32:\$[0-9]+]]
// WASM:              (local.get [[F32]])
// WASM:          (br_if
// WASM:       (func $every_other_i32
// WASM:         (loop
// WASM-NEXT:     (i32.store
// WASM-NEXT:      (local.get
// WASM-NEXT:      (local.tee [[I32:\$[0-9]+]]
// WASM:              (local.get [[I32]])
// WASM:          (br_if
//
// CHECK: f64 {{-?[0-9]}}
// CHECK: i64 {{-?[0-9]}}
// CHECK: f32 {{-?[0-9]}}
// CHECK: i32 {{-?[0-9]}}
// CHECK: aliased {{-?[0-9]}}
#include <stdint.h>
#include <stdio.h>

enum { N = 1000 };

__attribute__((noinline)) void back_substitute_f64(double *x, const double *p, const double *q,
                                                   int n) {
  for (int k = n - 2; k >= 1; --k)
    x[k] = p[k] * x[k + 1] + q[k];
}

__attribute__((noinline)) void suffix_sums_i64(int64_t *s, int n) {
  for (int i = n - 2; i >= 0; --i)
    s[i] += s[i + 1];
}

__attribute__((noinline)) void halve_back_f32(float *a, const float *b, int n) {
  for (int k = n - 2; k >= 0; --k)
    a[k] = a[k + 1] * 0.5f + b[k];
}

__attribute__((noinline)) void every_other_i32(uint32_t *v, int pairs) {
  for (int k = pairs - 2; k >= 0; --k)
    v[2 * k] = (v[2 * k + 2] * 2654435761u) ^ (uint32_t)k;
}

// With y == x the second store overwrites x[k] after it is written, so the
// next iteration must read memory, not the value just computed.
__attribute__((noinline)) void aliased_second_store(int32_t *x, int32_t *y, int n) {
  for (int k = n - 2; k >= 0; --k) {
    x[k] = x[k + 1] + 1;
    y[k] = 7 * k;
  }
}

static uint64_t state = 0x243f6a8885a308d3ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

int main(void) {
  static double x[N], p[N], q[N];
  static int64_t s[N];
  static float a[N], b[N];
  static uint32_t v[2 * N];
  static int32_t w[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (double)(next() % 1000) / 997.0;
    p[i] = (double)(next() % 1000) / 1009.0;
    q[i] = (double)(next() % 1000) / 991.0;
    s[i] = (int64_t)(next() % 2001) - 1000;
    a[i] = (float)(next() % 1000) / 7.0f;
    b[i] = (float)(next() % 1000) / 13.0f;
    v[2 * i] = (uint32_t)next();
    v[2 * i + 1] = (uint32_t)next();
    w[i] = (int32_t)(next() % 100);
  }
  back_substitute_f64(x, p, q, N);
  suffix_sums_i64(s, N);
  halve_back_f32(a, b, N);
  every_other_i32(v, N);
  aliased_second_store(w, w, N);

  double fx = 0;
  int64_t fs = 0;
  float fa = 0;
  uint32_t fv = 0;
  int64_t fw = 0;
  for (int i = 0; i < N; ++i) {
    fx = fx * 0.5 + x[i];
    fs = fs * 31 + s[i];
    fa = fa * 0.5f + a[i];
    fv = fv * 33 + v[2 * i] + v[2 * i + 1];
    fw = fw * 7 + w[i];
  }
  printf("f64 %.17g\n", fx);
  printf("i64 %lld\n", (long long)fs);
  printf("f32 %.9g\n", fa);
  printf("i32 %u\n", fv);
  printf("aliased %lld\n", (long long)fw);
  return 0;
}
