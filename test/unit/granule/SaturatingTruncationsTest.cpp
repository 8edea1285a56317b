// Unit tests for the wasm2c saturating-truncation post-pass. What the new
// definitions compute is checked end to end, against a native reference, by
// test/lit/run/saturating-truncations.c.
#include <gtest/gtest.h>

#include "granule/SaturatingTruncations.h"

using synergy::granule::defineBranchFreeSaturatingTruncations;

namespace {

// wasm2c 1.0.32's shapes: some definitions continue over a second line.
const char* kPrelude = R"(#define TRUNC_SAT_S(ut, st, ft, min, smin, minop, max, smax, x) \
  ((UNLIKELY((x) != (x))) ? 0 : (ut)(st)(x))
#define I32_TRUNC_SAT_S_F32(x)                                            \
  TRUNC_SAT_S(u32, s32, f32, (f32)INT32_MIN, INT32_MIN, >=, 2147483648.f, \
              INT32_MAX, x)
#define I64_TRUNC_SAT_S_F32(x) TRUNC_SAT_S(u64, s64, f32, x)
#define I32_TRUNC_SAT_S_F64(x) TRUNC_SAT_S(u32, s32, f64, x)
#define I64_TRUNC_SAT_S_F64(x) TRUNC_SAT_S(u64, s64, f64, x)
#define I32_TRUNC_SAT_U_F32(x) \
  TRUNC_SAT_U(u32, f32, 4294967296.f, UINT32_MAX, x)
#define I64_TRUNC_SAT_U_F32(x) TRUNC_SAT_U(u64, f32, x)
#define I32_TRUNC_SAT_U_F64(x) TRUNC_SAT_U(u32, f64, 4294967296., UINT32_MAX, x)
#define I64_TRUNC_SAT_U_F64(x) \
  TRUNC_SAT_U(u64, f64, (f64)UINT64_MAX, UINT64_MAX, x)

#define DEFINE_REINTERPRET(name, t1, t2) \
)";

}  // namespace

TEST(SaturatingTruncations, RedefinesTheEightAfterWasm2csOwn) {
  std::string source = kPrelude;
  ASSERT_TRUE(defineBranchFreeSaturatingTruncations(source));
  // After the continuation line of the last definition, before what follows.
  const size_t last = source.find("  TRUNC_SAT_U(u64, f64, (f64)UINT64_MAX, UINT64_MAX, x)\n");
  const size_t undef = source.find("#undef I32_TRUNC_SAT_S_F32\n");
  const size_t next = source.find("#define DEFINE_REINTERPRET");
  ASSERT_NE(last, std::string::npos);
  ASSERT_NE(undef, std::string::npos);
  EXPECT_LT(last, undef);
  EXPECT_LT(undef, next);
  EXPECT_NE(source.find("#define I64_TRUNC_SAT_U_F32(x) synergy_i64_trunc_sat_u_f32(x)\n"),
            std::string::npos);
  EXPECT_NE(source.find("#define I32_TRUNC_SAT_S_F64(x) synergy_i32_trunc_sat_s_f64(x)\n"),
            std::string::npos);
  // The replacements carry no branch hints.
  EXPECT_EQ(source.find("UNLIKELY", undef), std::string::npos);
}

TEST(SaturatingTruncations, RefusesOutputWithoutTheDefinitions) {
  std::string source = "int main(void) { return 0; }\n";
  const std::string original = source;
  EXPECT_FALSE(defineBranchFreeSaturatingTruncations(source));
  EXPECT_EQ(source, original);
}

TEST(SaturatingTruncations, RefusesOutputMissingOneDefinition) {
  std::string source = kPrelude;
  const size_t at = source.find("#define I64_TRUNC_SAT_U_F32(x)");
  source.replace(at, 8, "#undef  ");
  const std::string original = source;
  EXPECT_FALSE(defineBranchFreeSaturatingTruncations(source));
  EXPECT_EQ(source, original);
}
