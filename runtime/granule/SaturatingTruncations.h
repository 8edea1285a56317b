//===- SaturatingTruncations.h - post-pass over wasm2c output --------------===//
//
// wasm's saturating float-to-integer truncations (`i32.trunc_sat_f64_s` and
// its seven siblings) are what clang emits for every C cast from a floating
// type to an integer type. wasm2c 1.0.32 defines them as chains of
// `UNLIKELY(...) ? ... :` tests: the hints make clang keep a branch for each
// test, which costs a misprediction wherever inputs cross a bound, and keeps
// every loop with a conversion in it from being vectorized
// (test/lit/run/saturating-truncations-vectorize.c). bench/kernels/f2ihash,
// a hash over `(uint64_t)double` values, ran 1.11x native (loop 1.15x) at
// load 12 and 1.33x on a quiet machine; with this pass 1.03x (loop 1.05x).
//
// This post-pass keeps wasm's results exactly and defines the eight as
// clamps: NaN becomes 0 and the value is clamped to the lower end of the
// target range in the floating-point domain (one maxsd or maxps), so the
// conversion that follows is always defined in C; a value at or past the
// first value above the range selects the maximum. On x86-64 the four with
// 64-bit results convert with cvttsd2si/cvttss2si, whose result is defined
// for every input, and fix NaN and the ends up from it: fewer instructions
// than the clamps, and SSE2 vectorizes no 64-bit conversion anyway. The
// trapping truncations (`i32.trunc_f64_s`, ...) keep wasm2c's definitions:
// their branch is a trap.
//
// TRANSFORMATIONS
//   `#define I32_TRUNC_SAT_S_F64(x) TRUNC_SAT_S(...)` (and the other seven)
//     stay; right after the last of them come eight static inline functions
//     and `#undef`/`#define` lines that route the eight names to them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::granule {

// Rewrites `cSource` (wasm2c output). Returns false and leaves the source
// untouched when wasm2c's eight definitions are not found where expected.
bool defineBranchFreeSaturatingTruncations(std::string& cSource);

}  // namespace synergy::granule
