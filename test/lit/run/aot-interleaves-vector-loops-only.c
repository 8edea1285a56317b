// The AOT compile lets vector loops run up to four interleaved bodies an
// iteration, which spreads the zero-extension of each 32-bit guest address
// over more elements, but leaves loops that stay scalar as x86 has them
// (not interleaved; the unroller unrolls them). Forcing four bodies on every
// loop interleaved scalar ones as well: nussinov's split loop, a strided
// integer max like row_column_max below, then kept four 32-bit address
// streams and spilled the memory base, and ran 1.3x native.
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
// One max per unrolled step and one to join the two halves, not four
// interleaved maxima, their join and a scalar remainder; and one max a step
// in the loop's copy with 64-bit addresses (AddressInductionVersioning.h),
// four in all:
// CHECK-LABEL: <Z_guestZ_row_column_max>:
// CHECK-COUNT-4: cmov
// CHECK-NOT:     cmov
// Four vector bodies:
// CHECK-LABEL: <Z_guestZ_scale_add>:
// CHECK-COUNT-4: mulpd
#include <stdint.h>
#include <stdio.h>

enum { N = 300 };

// SSE2 has neither a 32-bit signed max nor a gather, so x86's cost model
// keeps this loop scalar, natively and in the AOT compile.
__attribute__((noinline, export_name("row_column_max"))) int32_t row_column_max(
    const int32_t *table, int n, int i, int j) {
  int32_t best = 0;
  for (int k = i + 1; k < j; ++k) {
    int32_t candidate = table[i * n + k] + table[(k + 1) * n + j];
    best = candidate > best ? candidate : best;
  }
  return best;
}

__attribute__((noinline, export_name("scale_add"))) void scale_add(
    double *restrict y, const double *restrict x, double a, int n) {
  for (int i = 0; i < n; ++i)
    y[i] += a * x[i];
}

int main(void) {
  static int32_t table[(N + 1) * N];
  static double x[N], y[N];
  for (int i = 0; i < (N + 1) * N; ++i)
    table[i] = (int32_t)((uint32_t)i * 2654435761u >> 20);
  for (int i = 0; i < N; ++i) {
    x[i] = i * 0.5;
    y[i] = N - i;
  }
  int64_t total = 0;
  for (int i = 0; i < N - 1; i += 7)
    for (int j = i + 1; j < N; j += 5)
      total += row_column_max(table, N, i, j);
  for (int r = 0; r < 10; ++r)
    scale_add(y, x, 0.25, N);
  double sum = 0;
  for (int i = 0; i < N; ++i)
    sum += y[i];
  printf("max %lld sum %.17g\n", (long long)total, sum);
  return 0;
}
