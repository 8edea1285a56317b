// Unit tests for the wasm2c loop-versioning post-pass: which loops it takes
// and the shape of what it writes. That the versioned loops compute what
// wasm does, on both sides of the check, is tested end to end against
// native builds by test/lit/run/address-induction-versioning.c and
// test/lit/run/address-induction-wraps.c.
#include <gtest/gtest.h>

#include "granule/AddressInductionVersioning.h"

using synergy::granule::versionAddressInductionLoops;

namespace {

// wasm2c 1.0.32's shape after MemoryBaseHoisting: a sum over a column,
// `p` (l1) stepping by a run-time stride (l2), `i` (l3) counting to l4.
const char* kColumnSum = R"(typedef unsigned int u32;
static u32 w2c_f1(Z_guest_instance_t* instance, u32 w2c_p0) {
  u8* const synergy_membase = instance->w2c_memory.data;
  u32 w2c_l1 = 0, w2c_l2 = 0, w2c_l3 = 0, w2c_l4 = 0, w2c_l5 = 0;
  u32 w2c_i0, w2c_i1, w2c_i2;
  w2c_L1: 
    w2c_i0 = w2c_l5;
    w2c_i1 = w2c_l1;
    w2c_i2 = 8u;
    w2c_i1 += w2c_i2;
    w2c_i1 = i32_load_at_base(synergy_membase, (u64)(w2c_i1));
    w2c_i0 += w2c_i1;
    w2c_l5 = w2c_i0;
    w2c_i0 = w2c_l1;
    w2c_i1 = w2c_l2;
    w2c_i0 += w2c_i1;
    w2c_l1 = w2c_i0;
    w2c_i0 = w2c_l4;
    w2c_i1 = w2c_l3;
    w2c_i2 = 1u;
    w2c_i1 += w2c_i2;
    w2c_l3 = w2c_i1;
    w2c_i0 = w2c_i0 != w2c_i1;
    if (w2c_i0) {goto w2c_L1;}
  return w2c_l5;
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST(AddressInductionVersioning, VersionsAStraightLineLoop) {
  std::string source = kColumnSum;
  ASSERT_EQ(versionAddressInductionLoops(source), 1);
  // The helpers come before the first function.
  const size_t helpers = source.find("static inline u64 synergy_trips_until_equal(");
  ASSERT_NE(helpers, std::string::npos);
  EXPECT_LT(helpers, source.find("static u32 w2c_f1("));
  // The trip count: i after its step, against the invariant bound.
  EXPECT_NE(source.find("synergy_trips_until_equal((u32)(w2c_l3 + 1u), (u32)(w2c_l4), (s32)(1u))"),
            std::string::npos);
  // The one address p + 8 over all iterations, p stepping by the stride.
  EXPECT_NE(source.find("synergy_stays_in_u32((s64)(u64)w2c_l1, (s64)(s32)w2c_l2, "
                        "synergy_trips - 1, 8, 8)"),
            std::string::npos);
  // The 64-bit copy: a shadow of p, the address from it, its step before the
  // back edge.
  const size_t shadow = source.find("s64 synergy_wide_w2c_l1 = (s64)(u64)w2c_l1;");
  const size_t wideLoad = source.find(
      "i32_load_at_base(synergy_membase, (u64)(synergy_wide_w2c_l1 + (s64)(s32)8u))");
  const size_t wideStep = source.find("synergy_wide_w2c_l1 += (s64)(s32)w2c_l2;");
  const size_t wideEdge = source.find("if (w2c_i0) {goto synergy_wide_w2c_L1;}");
  ASSERT_NE(shadow, std::string::npos);
  ASSERT_NE(wideLoad, std::string::npos);
  ASSERT_NE(wideStep, std::string::npos);
  ASSERT_NE(wideEdge, std::string::npos);
  EXPECT_LT(shadow, wideLoad);
  EXPECT_LT(wideLoad, wideStep);
  EXPECT_LT(wideStep, wideEdge);
  // The i counter is no address: no shadow.
  EXPECT_EQ(source.find("synergy_wide_w2c_l3"), std::string::npos);
  // The original loop, unchanged, in the else branch.
  const size_t fallback = source.find("} else {\n  w2c_L1: \n");
  ASSERT_NE(fallback, std::string::npos);
  EXPECT_GT(fallback, wideEdge);
  EXPECT_NE(source.find("i32_load_at_base(synergy_membase, (u64)(w2c_i1));", fallback),
            std::string::npos);
  EXPECT_NE(source.find("if (w2c_i0) {goto w2c_L1;}", fallback), std::string::npos);
}

TEST(AddressInductionVersioning, LeavesOtherLoopsAlone) {
  const std::vector<std::pair<std::string, std::string>> variants = {
      // A branch inside: not straight-line.
      {"    w2c_l5 = w2c_i0;\n", "    w2c_l5 = w2c_i0;\n    if (w2c_i0) {\n    }\n"},
      // A second exit.
      {"    w2c_l5 = w2c_i0;\n", "    w2c_l5 = w2c_i0;\n    if (w2c_i0) {goto w2c_B2;}\n"},
      // p set twice, the second time to a value without a step: no counter.
      {"    w2c_l1 = w2c_i0;\n", "    w2c_l1 = w2c_i0;\n    w2c_l1 = w2c_i0;\n"},
      // p stepped by something the loop sets (before it is set).
      {"    w2c_i1 = w2c_l2;\n", "    w2c_i1 = w2c_l5;\n"},
      // An exit counter stepped by a run-time amount.
      {"    w2c_i2 = 1u;\n", "    w2c_i2 = w2c_l2;\n"},
      // An exit that is not `!=`.
      {"w2c_i0 = w2c_i0 != w2c_i1;", "w2c_i0 = w2c_i0 > w2c_i1;"},
      // An exit comparing u64 values (i64.ne), even if their shapes match.
      {"w2c_i0 = w2c_i0 != w2c_i1;", "w2c_i0 = w2c_j0 != w2c_j1;"},
      // An address scaled from the counter: not counter plus invariants.
      {"    w2c_i2 = 8u;\n    w2c_i1 += w2c_i2;\n", "    w2c_i1 = w2c_i1 << 2u;\n"},
  };
  for (const auto& [from, to] : variants) {
    std::string source = replaced(kColumnSum, from, to);
    const std::string before = source;
    EXPECT_EQ(versionAddressInductionLoops(source), 0) << to;
    EXPECT_EQ(source, before);
  }
}

TEST(AddressInductionVersioning, SubtractedConstantsAndStepsAfterTheUpdate) {
  // p - 4, read after p's step: phase 1 and a negative constant.
  std::string source =
      replaced(kColumnSum,
               "    w2c_i0 = w2c_l5;\n    w2c_i1 = w2c_l1;\n    w2c_i2 = 8u;\n"
               "    w2c_i1 += w2c_i2;\n    w2c_i1 = i32_load_at_base(synergy_membase, "
               "(u64)(w2c_i1));\n    w2c_i0 += w2c_i1;\n    w2c_l5 = w2c_i0;\n"
               "    w2c_i0 = w2c_l1;\n    w2c_i1 = w2c_l2;\n    w2c_i0 += w2c_i1;\n"
               "    w2c_l1 = w2c_i0;\n",
               "    w2c_i0 = w2c_l1;\n    w2c_i1 = w2c_l2;\n    w2c_i0 += w2c_i1;\n"
               "    w2c_l1 = w2c_i0;\n    w2c_i1 = w2c_l1;\n    w2c_i2 = 4u;\n"
               "    w2c_i1 -= w2c_i2;\n    w2c_i0 = w2c_l5;\n"
               "    i32_store_at_base(synergy_membase, (u64)(w2c_i1), w2c_i0);\n");
  ASSERT_EQ(versionAddressInductionLoops(source), 1);
  EXPECT_NE(source.find("synergy_stays_in_u32((s64)(u64)w2c_l1 + (s64)(s32)w2c_l2, "
                        "(s64)(s32)w2c_l2, synergy_trips - 1, -4, -4)"),
            std::string::npos);
  EXPECT_NE(source.find("i32_store_at_base(synergy_membase, (u64)(synergy_wide_w2c_l1 + "
                        "(s64)(s32)w2c_l2 + (s64)(s32)4294967292u), w2c_i0);"),
            std::string::npos);
}

TEST(AddressInductionVersioning, SourceWithoutSuchLoopsIsUntouched) {
  std::string source = "static u32 w2c_f1(Z_guest_instance_t* instance) {\n  return 0;\n}\n";
  const std::string before = source;
  EXPECT_EQ(versionAddressInductionLoops(source), 0);
  EXPECT_EQ(source, before);
}

TEST(AddressInductionVersioning, CountersUpdatedSeveralTimesAndCountedDownToZero) {
  // wasm's two-fold unrolled downward walk: p (p0) takes three updates, the
  // last built from a local set from an earlier value; n (p2) counts to 0.
  std::string source = R"(static u64 w2c_f6(Z_guest_instance_t* instance, u32 w2c_p0, u32 w2c_p2) {
  u8* const synergy_membase = instance->w2c_memory.data;
  u32 w2c_l4 = 0, w2c_l7 = 0;
  u32 w2c_i0, w2c_i1, w2c_i2, w2c_i3;
  u64 w2c_j2 = 0;
  w2c_L3: 
    w2c_i1 = w2c_p0;
    w2c_i2 = 8u;
    w2c_i1 += w2c_i2;
    w2c_p0 = w2c_i1;
    w2c_i2 = w2c_p0;
    w2c_i3 = w2c_l4;
    w2c_i2 += w2c_i3;
    w2c_p0 = w2c_i2;
    w2c_i3 = 8u;
    w2c_i2 += w2c_i3;
    w2c_l7 = w2c_i2;
    w2c_j2 += i64_load32_s_at_base(synergy_membase, (u64)(w2c_i2));
    w2c_i0 = w2c_l4;
    w2c_i1 = w2c_l7;
    w2c_i0 += w2c_i1;
    w2c_p0 = w2c_i0;
    w2c_i0 = w2c_p2;
    w2c_i1 = 2u;
    w2c_i0 -= w2c_i1;
    w2c_p2 = w2c_i0;
    if (w2c_i0) {goto w2c_L3;}
  return w2c_j2;
}
)";
  ASSERT_EQ(versionAddressInductionLoops(source), 1);
  EXPECT_NE(source.find("synergy_trips_until_equal((u32)(w2c_p2 + 4294967294u), (u32)(0u), "
                        "(s32)(4294967294u))"),
            std::string::npos);
  // The load after p's first two updates plus 8; p's step is all three.
  EXPECT_NE(source.find("synergy_stays_in_u32((s64)(u64)w2c_p0 + (s64)(s32)8u + "
                        "(s64)(s32)w2c_l4, (s64)(s32)8u + (s64)(s32)w2c_l4 + "
                        "(s64)(s32)8u + (s64)(s32)w2c_l4, synergy_trips - 1, 8, 8)"),
            std::string::npos);
  // The load's stream is p plus l4 (its second update added l4 before the
  // load's 8): one shadow of that sum, the first update's 8 and the load's 8
  // as constants, and the whole step after the body.
  EXPECT_NE(source.find("s64 synergy_wide_w2c_p0_w2c_l4 = (s64)(u64)w2c_p0 + (s64)(s32)w2c_l4;"),
            std::string::npos);
  EXPECT_NE(source.find("i64_load32_s_at_base(synergy_membase, (u64)(synergy_wide_w2c_p0_w2c_l4 + "
                        "(s64)(s32)8u + (s64)(s32)8u))"),
            std::string::npos);
  EXPECT_NE(source.find("synergy_wide_w2c_p0_w2c_l4 += (s64)(s32)8u + (s64)(s32)w2c_l4 + "
                        "(s64)(s32)8u + (s64)(s32)w2c_l4;"),
            std::string::npos);
}

TEST(AddressInductionVersioning, OneShadowPerCounterAndLocalsAdded) {
  // covariance's column pair: a row counter p (l1) stepping by the row
  // length (l2), read at p + a (l6), p + b (l8) and p + b + 8. The copy keeps
  // one shadow per counter-plus-locals sum, so each address is a shadow plus
  // a constant, not a shadow plus a local (which made clang keep every
  // unrolled step's sum live and spill them).
  std::string source =
      replaced(kColumnSum,
               "    w2c_i1 = w2c_l1;\n    w2c_i2 = 8u;\n    w2c_i1 += w2c_i2;\n"
               "    w2c_i1 = i32_load_at_base(synergy_membase, (u64)(w2c_i1));\n",
               "    w2c_i1 = w2c_l1;\n    w2c_i2 = w2c_l6;\n    w2c_i1 += w2c_i2;\n"
               "    w2c_i1 = i32_load_at_base(synergy_membase, (u64)(w2c_i1));\n"
               "    w2c_i0 += w2c_i1;\n"
               "    w2c_i1 = w2c_l1;\n    w2c_i2 = w2c_l8;\n    w2c_i1 += w2c_i2;\n"
               "    w2c_i1 = i32_load_at_base(synergy_membase, (u64)(w2c_i1));\n"
               "    w2c_i0 += w2c_i1;\n"
               "    w2c_i1 = w2c_l8;\n    w2c_i2 = w2c_l1;\n    w2c_i1 += w2c_i2;\n"
               "    w2c_i2 = 8u;\n    w2c_i1 += w2c_i2;\n"
               "    w2c_i1 = i32_load_at_base(synergy_membase, (u64)(w2c_i1));\n");
  source = replaced(source, "u32 w2c_l1 = 0,", "u32 w2c_l6 = 0, w2c_l8 = 0, w2c_l1 = 0,");
  ASSERT_EQ(versionAddressInductionLoops(source), 1);
  for (const char* expected : {
           "s64 synergy_wide_w2c_l1_w2c_l6 = (s64)(u64)w2c_l1 + (s64)(s32)w2c_l6;",
           "s64 synergy_wide_w2c_l1_w2c_l8 = (s64)(u64)w2c_l1 + (s64)(s32)w2c_l8;",
           "i32_load_at_base(synergy_membase, (u64)(synergy_wide_w2c_l1_w2c_l6));",
           "i32_load_at_base(synergy_membase, (u64)(synergy_wide_w2c_l1_w2c_l8));",
           // b + p + 8 is the same stream as p + b.
           "i32_load_at_base(synergy_membase, (u64)(synergy_wide_w2c_l1_w2c_l8 + (s64)(s32)8u));",
           "synergy_wide_w2c_l1_w2c_l6 += (s64)(s32)w2c_l2;",
           "synergy_wide_w2c_l1_w2c_l8 += (s64)(s32)w2c_l2;",
       })
    EXPECT_NE(source.find(expected), std::string::npos) << expected;
  // No shadow of the bare counter: no address reads it.
  EXPECT_EQ(source.find("synergy_wide_w2c_l1 "), std::string::npos);
}
