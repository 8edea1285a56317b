// The 64-bit copy of a versioned loop (AddressInductionVersioning.h) keeps
// one shadow per address stream, a counter plus the locals added to it, not
// one per counter with the locals added at each address. Here, as in
// bench/kernels/covariance, one row counter feeds two column streams,
// x[i * m + a] and x[i * m + b]: with a shadow per counter clang kept each
// unrolled step's counter-plus-column sum live through the enclosing loops,
// spilled them, and reloaded one from the stack for every element (3.2 data
// reads per product instead of 2), which took covariance from 1.0x to 1.25x
// native. With a shadow per stream each address is a register plus a
// constant.
//
// The reads are counted exactly by callgrind's cache simulation, inside
// column_products only: 2 per product plus a few per column pair fit under
// 2.5 per product (64 * 65 / 2 pairs of 64 products); the spilled copy made
// 429001.
// REQUIRES: valgrind
// RUN: %synergy-cc -O2 %s -o %t.wasm
// RUN: rm -rf %t.cache
// RUN: env SYNERGY_CACHE_DIR=%t.cache %synergy-run %t.wasm > %t.out
// RUN: env SYNERGY_CACHE_DIR=%t.cache valgrind -q --tool=callgrind --cache-sim=yes --toggle-collect=w2c_column_products --callgrind-out-file=%t.callgrind %synergy-run %t.wasm > %t.valgrind.out 2> %t.valgrind.err
// RUN: awk '/^events:/ { for (i = 2; i <= NF; ++i) column[$i] = i } /^summary:/ { reads = $(column["Dr"]); print "data reads", reads; exit !(reads > 0 && reads <= 2.5 * 133120) }' %t.callgrind
// The results are the native build's, with and without Valgrind:
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: diff %t.native.out %t.valgrind.out
#include <stdint.h>
#include <stdio.h>

enum { ROWS = 64, COLUMNS = 64 };
static double data[ROWS * COLUMNS], products[COLUMNS * COLUMNS];

// covariance's second phase: every column pair's dot product down the rows.
// Exported, so that the AOT object keeps it as a function of its own.
__attribute__((noinline, export_name("column_products"))) void column_products(
    long n, long m, const double *restrict x, double *restrict out) {
  for (long a = 0; a < m; ++a)
    for (long b = a; b < m; ++b) {
      double dot = 0.0;
      for (long i = 0; i < n; ++i)
        dot += x[i * m + a] * x[i * m + b];
      out[a * m + b] = dot / (double)(n - 1);
      out[b * m + a] = out[a * m + b];
    }
}

int main(void) {
  uint64_t state = 1;
  for (int i = 0; i < ROWS * COLUMNS; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    data[i] = (double)(state >> 11) / 9007199254740992.0 - 0.5;
  }
  column_products(ROWS, COLUMNS, data, products);
  double sum = 0;
  for (int i = 0; i < COLUMNS * COLUMNS; ++i)
    sum += products[i] * (i % 7 + 1);
  printf("sum %.17g\n", sum);
  return 0;
}
