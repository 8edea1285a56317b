//===- SaturatingTruncations.cpp - post-pass over wasm2c output ------------===//
//
// This file implements the branch-free saturating truncations described in
// SaturatingTruncations.h.
//
//===----------------------------------------------------------------------===//
#include "granule/SaturatingTruncations.h"

#include <string_view>

namespace synergy::granule {
namespace {

// wasm2c's names, in the order it defines them.
constexpr std::string_view kTruncationNames[] = {
    "I32_TRUNC_SAT_S_F32", "I64_TRUNC_SAT_S_F32", "I32_TRUNC_SAT_S_F64", "I64_TRUNC_SAT_S_F64",
    "I32_TRUNC_SAT_U_F32", "I64_TRUNC_SAT_U_F32", "I32_TRUNC_SAT_U_F64", "I64_TRUNC_SAT_U_F64",
};

// The wasm semantics, per result: NaN -> 0; below the range -> its minimum;
// above -> its maximum; else the value rounded towards zero. Each conversion
// below runs only on a value inside the range, so the C is defined; clang
// turns the conditionals into maxsd/minsd and cmov.
//  - `c > lo ? c : lo` is false for NaN, so for the unsigned forms it is
//    also the NaN test (0 is their lower bound).
//  - INT32_MIN, INT32_MAX and UINT32_MAX are exact doubles, so the 32-bit
//    forms clamp fully before converting; truncating the clamped value gives
//    what truncating and then saturating gives.
//  - 2^63 and 2^64 are the first doubles past INT64_MAX and UINT64_MAX, so
//    the 64-bit forms select the maximum for values at or above them.
constexpr std::string_view kDefinitions = R"(
/* Saturating truncations without branches (synergy, SaturatingTruncations.h). */
static inline u32 synergy_i32_trunc_sat_s(f64 x) {
  f64 clamped = x == x ? x : 0.0;
  clamped = clamped > -2147483648.0 ? clamped : -2147483648.0;
  clamped = clamped < 2147483647.0 ? clamped : 2147483647.0;
  return (u32)(s32)clamped;
}
static inline u64 synergy_i64_trunc_sat_s(f64 x) {
  f64 clamped = x == x ? x : 0.0;
  clamped = clamped > -0x1p63 ? clamped : -0x1p63;
  return clamped < 0x1p63 ? (u64)(s64)clamped : (u64)INT64_MAX;
}
static inline u32 synergy_i32_trunc_sat_u(f64 x) {
  f64 clamped = x > 0.0 ? x : 0.0;
  clamped = clamped < 4294967295.0 ? clamped : 4294967295.0;
  return (u32)clamped;
}
static inline u64 synergy_i64_trunc_sat_u(f64 x) {
  f64 clamped = x > 0.0 ? x : 0.0;
  return clamped < 0x1p64 ? (u64)clamped : UINT64_MAX;
}
#undef I32_TRUNC_SAT_S_F32
#undef I64_TRUNC_SAT_S_F32
#undef I32_TRUNC_SAT_S_F64
#undef I64_TRUNC_SAT_S_F64
#undef I32_TRUNC_SAT_U_F32
#undef I64_TRUNC_SAT_U_F32
#undef I32_TRUNC_SAT_U_F64
#undef I64_TRUNC_SAT_U_F64
#define I32_TRUNC_SAT_S_F32(x) synergy_i32_trunc_sat_s((f64)(x))
#define I64_TRUNC_SAT_S_F32(x) synergy_i64_trunc_sat_s((f64)(x))
#define I32_TRUNC_SAT_S_F64(x) synergy_i32_trunc_sat_s(x)
#define I64_TRUNC_SAT_S_F64(x) synergy_i64_trunc_sat_s(x)
#define I32_TRUNC_SAT_U_F32(x) synergy_i32_trunc_sat_u((f64)(x))
#define I64_TRUNC_SAT_U_F32(x) synergy_i64_trunc_sat_u((f64)(x))
#define I32_TRUNC_SAT_U_F64(x) synergy_i32_trunc_sat_u(x)
#define I64_TRUNC_SAT_U_F64(x) synergy_i64_trunc_sat_u(x)
)";

// Where the line after `#define <name>(x)` and its continuation lines starts,
// searching from `from`; npos when there is no such definition.
size_t endOfDefinition(const std::string& source, std::string_view name, size_t from) {
  const std::string head = "\n#define " + std::string(name) + "(x)";
  size_t at = source.find(head, from);
  if (at == std::string::npos) return std::string::npos;
  size_t lineEnd = source.find('\n', at + 1);
  // A definition continues while its line ends in a backslash.
  while (lineEnd != std::string::npos && lineEnd > 0 && source[lineEnd - 1] == '\\')
    lineEnd = source.find('\n', lineEnd + 1);
  return lineEnd == std::string::npos ? std::string::npos : lineEnd + 1;
}

}  // namespace

bool defineBranchFreeSaturatingTruncations(std::string& cSource) {
  size_t insertAt = 0;
  for (std::string_view name : kTruncationNames) {
    insertAt = endOfDefinition(cSource, name, insertAt == 0 ? 0 : insertAt - 1);
    if (insertAt == std::string::npos) return false;
  }
  cSource.insert(insertAt, kDefinitions);
  return true;
}

}  // namespace synergy::granule
