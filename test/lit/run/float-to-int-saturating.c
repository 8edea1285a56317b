// Float-to-integer conversions in guest code compile to wasm's saturating
// truncations (synergy-cc passes -mnontrapping-fptoint), so neither clang's
// range-check branch nor wasm2c's trap sits around each conversion.
//
// This file's code uses only the saturating forms (the prebuilt wasi-libc
// keeps its own, hence the object file):
// RUN: %synergy-cc -O2 -c %s -o %t.o
// RUN: llvm-objdump -d %t.o > %t.dis
// RUN: FileCheck %s --check-prefix=WASM --input-file %t.dis
// WASM-DAG: i32.trunc_sat_f64_s
// WASM-DAG: i64.trunc_sat_f64_u
// WASM-DAG: i32.trunc_sat_f32_u
// WASM-DAG: i64.trunc_sat_f32_s
// RUN: not grep -E 'i(32|64)\.trunc_f(32|64)_[su]' %t.dis
// RUN: %synergy-cc -O2 %s -o %t.wasm
//
// In-range conversions, which C defines, give what the native build gives:
// RUN: %host-clang -O2 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: %synergy-run %t.wasm > %t.granule.out
// RUN: diff %t.native.out %t.granule.out
// RUN: FileCheck %s --check-prefix=RANGE --input-file %t.granule.out
// RANGE: i32 -2147483648 2147483647 -7 0 0
// RANGE-NEXT: u64 0 0 18446744073709549568 4503599627370497
// RANGE-NEXT: u32 4294967040 3
// RANGE-NEXT: i64 -9223372036854775808 -3
//
// Out of range, where C leaves the result undefined, the granule gets
// wasm's saturated result and runs on (exit status 0, no trap); clang's own
// guard in front of the trapping truncation gave INT32_MIN and 0 instead:
// RUN: %synergy-run %t.wasm out-of-range > %t.saturated.out 2>&1
// RUN: FileCheck %s --check-prefix=SATURATED --input-file %t.saturated.out
// SATURATED: i32 2147483647 -2147483648 0
// SATURATED-NEXT: u64 18446744073709551615 0 0
// SATURATED-NOT: trap
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// Opaque to the optimizer, so each conversion happens at run time.
static volatile double doubles[] = {-2147483648.0, 2147483647.9, -7.9, -0.9, 0.5,
                                    -0.99, 0.0, 18446744073709549568.0, 4503599627370497.0};
static volatile float floats[] = {4294967040.0f, 3.99f, -9223372036854775808.0f, -3.5f};
static volatile double outOfRange[] = {1e20, -1e20, NAN, -5.0};

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "out-of-range") == 0) {
    printf("i32 %d %d %d\n", (int32_t)outOfRange[0], (int32_t)outOfRange[1],
           (int32_t)outOfRange[2]);
    printf("u64 %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", (uint64_t)outOfRange[0],
           (uint64_t)outOfRange[2], (uint64_t)outOfRange[3]);
    return 0;
  }
  printf("i32 %d %d %d %d %d\n", (int32_t)doubles[0], (int32_t)doubles[1], (int32_t)doubles[2],
         (int32_t)doubles[3], (int32_t)doubles[4]);
  printf("u64 %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", (uint64_t)doubles[5],
         (uint64_t)doubles[6], (uint64_t)doubles[7], (uint64_t)doubles[8]);
  printf("u32 %" PRIu32 " %" PRIu32 "\n", (uint32_t)floats[0], (uint32_t)floats[1]);
  printf("i64 %" PRId64 " %" PRId64 "\n", (int64_t)floats[2], (int64_t)floats[3]);
  return 0;
}
