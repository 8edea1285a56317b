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
// turns the conditionals into maxsd/minsd (maxps/minps) and selects, and
// vectorizes loops of them.
//  - `c > lo ? c : lo` is false for NaN, so for the unsigned forms it is
//    also the NaN test (0 is their lower bound).
//  - A lower bound is exact in both floating types (0, -2^31, -2^63), so
//    clamping to it and truncating gives the saturated minimum.
//  - An upper bound is the first value past the range (2^31, 2^32, 2^63,
//    2^64, exact in both types); values at or above it select the maximum.
//  - From f64 to 32 bits the maximum is itself an exact double, so those two
//    clamp to it instead: a minsd costs less than a compare and a select.
//  - On x86-64 the four 64-bit forms convert with cvttsd2si/cvttss2si through
//    their builtins, whose result is defined for every input (INT64_MIN for
//    NaN and out of range), and fix the ends up from that. SSE2 has no packed
//    64-bit conversion, so clang vectorizes no loop of these natively either,
//    and the fix-up is shorter than the portable clamps: an unsigned one costs
//    a maxsd and a cmovs over the native sequence, against a maxsd, a copy, a
//    ucomisd and a cmov. In bench/kernels/f2ihash's hash loop that is 13
//    instructions per element against 15 (native 11). clang does not
//    interleave a loop holding the builtins, so with the loop's own counting
//    the loop runs 17 per element against 16.5, yet it takes less time
//    (bench/run-kernels.py --metric round, alternated with the clamps' build
//    three times at load 25-28: 1.05-1.07x native against 1.11-1.28x): the
//    loop waits on its multiply chain, and three of its instructions per
//    element are floating-point ones instead of five.
//  - The unsigned one: after the clamp to 0, `low` is the result below 2^63
//    and INT64_MIN from there on; `clamped - 2^63` is exact from 2^63 to 2^64,
//    where its conversion is the result less 2^63, and converts to INT64_MIN
//    from 2^64 on. `upper` keeps that conversion where `low` is INT64_MIN, so
//    it is negative exactly when the result saturates.
constexpr std::string_view kDefinitions = R"(
/* Saturating truncations without branches (synergy, SaturatingTruncations.h). */
#define SYNERGY_DEFINE_TRUNC_SAT_S(name, ft, ut, st, lo, hi, smax) \
  static inline ut name(ft x) {                                     \
    ft clamped = x == x ? x : (ft)0;                                \
    clamped = clamped > (lo) ? clamped : (lo);                      \
    return clamped < (hi) ? (ut)(st)clamped : (ut)(smax);           \
  }
#define SYNERGY_DEFINE_TRUNC_SAT_U(name, ft, ut, hi, umax)   \
  static inline ut name(ft x) {                              \
    ft clamped = x > (ft)0 ? x : (ft)0;                      \
    return clamped < (hi) ? (ut)clamped : (ut)(umax);        \
  }
SYNERGY_DEFINE_TRUNC_SAT_S(synergy_i32_trunc_sat_s_f32, f32, u32, s32, -0x1p31f, 0x1p31f, INT32_MAX)
SYNERGY_DEFINE_TRUNC_SAT_U(synergy_i32_trunc_sat_u_f32, f32, u32, 0x1p32f, UINT32_MAX)
#if defined(__x86_64__)
typedef double synergy_v2f64 __attribute__((vector_size(16)));
typedef float synergy_v4f32 __attribute__((vector_size(16)));
static inline s64 synergy_cvttsd2si64(f64 x) {
  return __builtin_ia32_cvttsd2si64((synergy_v2f64){x, 0.0});
}
static inline s64 synergy_cvttss2si64(f32 x) {
  return __builtin_ia32_cvttss2si64((synergy_v4f32){x, 0.0f, 0.0f, 0.0f});
}
#define SYNERGY_DEFINE_TRUNC_SAT_S64(name, ft, convert)    \
  static inline u64 name(ft x) {                          \
    s64 truncated = convert(x);                           \
    truncated = x >= (ft)0x1p63 ? INT64_MAX : truncated;  \
    return (u64)(x == x ? truncated : 0);                 \
  }
#define SYNERGY_DEFINE_TRUNC_SAT_U64(name, ft, convert)           \
  static inline u64 name(ft x) {                                 \
    ft clamped = x > (ft)0 ? x : (ft)0;                          \
    s64 low = convert(clamped);                                  \
    s64 upper = (low >> 63) & convert(clamped - (ft)0x1p63);     \
    return (u64)(upper < 0 ? -1 : low) | (u64)upper;             \
  }
SYNERGY_DEFINE_TRUNC_SAT_S64(synergy_i64_trunc_sat_s_f32, f32, synergy_cvttss2si64)
SYNERGY_DEFINE_TRUNC_SAT_S64(synergy_i64_trunc_sat_s_f64, f64, synergy_cvttsd2si64)
SYNERGY_DEFINE_TRUNC_SAT_U64(synergy_i64_trunc_sat_u_f32, f32, synergy_cvttss2si64)
SYNERGY_DEFINE_TRUNC_SAT_U64(synergy_i64_trunc_sat_u_f64, f64, synergy_cvttsd2si64)
#else
SYNERGY_DEFINE_TRUNC_SAT_S(synergy_i64_trunc_sat_s_f32, f32, u64, s64, -0x1p63f, 0x1p63f, INT64_MAX)
SYNERGY_DEFINE_TRUNC_SAT_S(synergy_i64_trunc_sat_s_f64, f64, u64, s64, -0x1p63, 0x1p63, INT64_MAX)
SYNERGY_DEFINE_TRUNC_SAT_U(synergy_i64_trunc_sat_u_f32, f32, u64, 0x1p64f, UINT64_MAX)
SYNERGY_DEFINE_TRUNC_SAT_U(synergy_i64_trunc_sat_u_f64, f64, u64, 0x1p64, UINT64_MAX)
#endif
static inline u32 synergy_i32_trunc_sat_s_f64(f64 x) {
  f64 clamped = x == x ? x : 0.0;
  clamped = clamped > -2147483648.0 ? clamped : -2147483648.0;
  clamped = clamped < 2147483647.0 ? clamped : 2147483647.0;
  return (u32)(s32)clamped;
}
static inline u32 synergy_i32_trunc_sat_u_f64(f64 x) {
  f64 clamped = x > 0.0 ? x : 0.0;
  clamped = clamped < 4294967295.0 ? clamped : 4294967295.0;
  return (u32)clamped;
}
#undef I32_TRUNC_SAT_S_F32
#undef I64_TRUNC_SAT_S_F32
#undef I32_TRUNC_SAT_S_F64
#undef I64_TRUNC_SAT_S_F64
#undef I32_TRUNC_SAT_U_F32
#undef I64_TRUNC_SAT_U_F32
#undef I32_TRUNC_SAT_U_F64
#undef I64_TRUNC_SAT_U_F64
#define I32_TRUNC_SAT_S_F32(x) synergy_i32_trunc_sat_s_f32(x)
#define I64_TRUNC_SAT_S_F32(x) synergy_i64_trunc_sat_s_f32(x)
#define I32_TRUNC_SAT_S_F64(x) synergy_i32_trunc_sat_s_f64(x)
#define I64_TRUNC_SAT_S_F64(x) synergy_i64_trunc_sat_s_f64(x)
#define I32_TRUNC_SAT_U_F32(x) synergy_i32_trunc_sat_u_f32(x)
#define I64_TRUNC_SAT_U_F32(x) synergy_i64_trunc_sat_u_f32(x)
#define I32_TRUNC_SAT_U_F64(x) synergy_i32_trunc_sat_u_f64(x)
#define I64_TRUNC_SAT_U_F64(x) synergy_i64_trunc_sat_u_f64(x)
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
