// Unit tests for the merge ops of Faabric's Table 3, for every op and type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "snapshot/MergeOp.h"

using namespace synergy::snapshot;

namespace {

template <typename T>
struct TypeOf;
template <>
struct TypeOf<int32_t> {
  static constexpr MergeType kType = MergeType::I32;
};
template <>
struct TypeOf<int64_t> {
  static constexpr MergeType kType = MergeType::I64;
};
template <>
struct TypeOf<float> {
  static constexpr MergeType kType = MergeType::F32;
};
template <>
struct TypeOf<double> {
  static constexpr MergeType kType = MergeType::F64;
};

// A1 for the given A0, B0, B1, with every value stored at an odd address.
template <typename T>
T merge(MergeOp op, T a0, T b0, T b1) {
  alignas(8) uint8_t buffer[3 * sizeof(T) + 3];
  uint8_t* main = buffer + 1;
  uint8_t* baseline = main + sizeof(T);
  uint8_t* replica = baseline + sizeof(T);
  std::memcpy(main, &a0, sizeof(T));
  std::memcpy(baseline, &b0, sizeof(T));
  std::memcpy(replica, &b1, sizeof(T));
  mergeElement(op, TypeOf<T>::kType, main, baseline, replica);
  T a1;
  std::memcpy(&a1, main, sizeof(T));
  return a1;
}

template <typename T>
class MergeOpAllTypes : public testing::Test {};
using AllTypes = testing::Types<int32_t, int64_t, float, double>;
TYPED_TEST_SUITE(MergeOpAllTypes, AllTypes);

}  // namespace

TEST(MergeOp, TypeSizes) {
  EXPECT_EQ(mergeTypeBytes(MergeType::I32), 4u);
  EXPECT_EQ(mergeTypeBytes(MergeType::F32), 4u);
  EXPECT_EQ(mergeTypeBytes(MergeType::I64), 8u);
  EXPECT_EQ(mergeTypeBytes(MergeType::F64), 8u);
}

// The table itself: A0 = 100, B0 = 10, B1 = 30 (Divide: B0 = 30, B1 = 10).
TYPED_TEST(MergeOpAllTypes, EveryOpFollowsTable3) {
  using T = TypeParam;
  EXPECT_EQ(merge<T>(MergeOp::Overwrite, 100, 10, 30), T(30));
  EXPECT_EQ(merge<T>(MergeOp::Sum, 100, 10, 30), T(120));
  EXPECT_EQ(merge<T>(MergeOp::Subtract, 100, 10, 30), T(120));
  EXPECT_EQ(merge<T>(MergeOp::Subtract, 100, 30, 10), T(80));
  EXPECT_EQ(merge<T>(MergeOp::Product, 100, 10, 30), T(300));
  EXPECT_EQ(merge<T>(MergeOp::Divide, 90, 30, 10), T(30));
  EXPECT_EQ(merge<T>(MergeOp::Min, 100, 10, 30), T(30));
  EXPECT_EQ(merge<T>(MergeOp::Min, 20, 10, 30), T(20));
  EXPECT_EQ(merge<T>(MergeOp::Max, 100, 10, 30), T(100));
  EXPECT_EQ(merge<T>(MergeOp::Max, 20, 10, 30), T(30));
  EXPECT_EQ(merge<T>(MergeOp::Ignore, 100, 10, 30), T(100));
}

TYPED_TEST(MergeOpAllTypes, XorCombinesTheBits) {
  using T = TypeParam;
  T a0 = T(100), b0 = T(10), b1 = T(30);
  T a1 = merge<T>(MergeOp::Xor, a0, b0, b1);
  uint8_t expected[sizeof(T)], got[sizeof(T)], bytesA0[sizeof(T)], bytesB0[sizeof(T)], bytesB1[sizeof(T)];
  std::memcpy(bytesA0, &a0, sizeof(T));
  std::memcpy(bytesB0, &b0, sizeof(T));
  std::memcpy(bytesB1, &b1, sizeof(T));
  for (size_t i = 0; i < sizeof(T); ++i) expected[i] = bytesA0[i] ^ bytesB0[i] ^ bytesB1[i];
  std::memcpy(got, &a1, sizeof(T));
  EXPECT_EQ(std::memcmp(got, expected, sizeof(T)), 0);
  // Xor-ing in the replica's flips twice restores the main value.
  EXPECT_EQ(merge<T>(MergeOp::Xor, a1, b1, b0), a0);
}

TYPED_TEST(MergeOpAllTypes, SignedValues) {
  using T = TypeParam;
  EXPECT_EQ(merge<T>(MergeOp::Sum, -5, 2, -1), T(-8));
  EXPECT_EQ(merge<T>(MergeOp::Min, 3, 0, -7), T(-7));
  EXPECT_EQ(merge<T>(MergeOp::Max, -3, 0, -7), T(-3));
  EXPECT_EQ(merge<T>(MergeOp::Product, -4, 2, -6), T(12));
  EXPECT_EQ(merge<T>(MergeOp::Divide, -40, 12, -3), T(10));
}

TYPED_TEST(MergeOpAllTypes, UnknownFactorOrDivisorLetsTheReplicaWin) {
  using T = TypeParam;
  EXPECT_EQ(merge<T>(MergeOp::Product, 7, 0, 5), T(5));
  EXPECT_EQ(merge<T>(MergeOp::Divide, 7, 0, 5), T(5));
  EXPECT_EQ(merge<T>(MergeOp::Divide, 7, 5, 0), T(0));
}

TYPED_TEST(MergeOpAllTypes, Table3TwoReplicasSummingIntoOneValue) {
  using T = TypeParam;
  // Main holds A0 = 50; replicas R and S both started from B0 = 10 and added
  // 7 and 12 locally. Merged one after the other, main gains both.
  T main = 50;
  main = merge<T>(MergeOp::Sum, main, 10, 17);
  EXPECT_EQ(main, T(57));
  main = merge<T>(MergeOp::Sum, main, 10, 22);
  EXPECT_EQ(main, T(69));
  // Without a merge op the later replica would simply win.
  EXPECT_EQ(merge<T>(MergeOp::Overwrite, T(57), 10, 22), T(22));
}

TEST(MergeOp, IntegerSumAndSubtractWrapAround) {
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(merge<int32_t>(MergeOp::Sum, kMax32, 0, 1), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(merge<int64_t>(MergeOp::Subtract, kMin64, 1, 0), std::numeric_limits<int64_t>::max());
}

TEST(MergeOp, IntegerProductIsExactForExactFactors) {
  // A0 * B1 would overflow 64 bits, and B1 / B0 alone is not an integer.
  constexpr int64_t kA0 = 3'000'000'000'000;
  EXPECT_EQ(merge<int64_t>(MergeOp::Product, kA0, 6, 15), kA0 / 2 * 5);
  EXPECT_EQ(merge<int64_t>(MergeOp::Product, int64_t(1) << 40, int64_t(1) << 30, int64_t(5) << 50),
            int64_t(5) << 60);
  EXPECT_EQ(merge<int32_t>(MergeOp::Product, 1'000'000, 4, 6), 1'500'000);
}

TEST(MergeOp, IntegerDivideUsesTheTruncatedDivisor) {
  // The replica divided 100 by 3 (got 33); main's 90 is divided by 3 too.
  EXPECT_EQ(merge<int32_t>(MergeOp::Divide, 90, 100, 33), 30);
  // A replica value larger than its baseline is no division: replica wins.
  EXPECT_EQ(merge<int32_t>(MergeOp::Divide, 90, 3, 4), 4);
  // Overflowing quotients wrap instead of trapping.
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(merge<int64_t>(MergeOp::Divide, kMin64, 5, -5), kMin64);
  EXPECT_EQ(merge<int32_t>(MergeOp::Divide, std::numeric_limits<int32_t>::min(), 7, -7),
            std::numeric_limits<int32_t>::min());
}

TEST(MergeOp, FloatMinMaxKeepMainOnNaN) {
  double nan = std::nan("");
  EXPECT_EQ(merge<double>(MergeOp::Min, 2.0, 0.0, nan), 2.0);
  EXPECT_EQ(merge<float>(MergeOp::Max, 2.0f, 0.0f, float(nan)), 2.0f);
  EXPECT_EQ(merge<double>(MergeOp::Product, 1.5, 4.0, 2.0), 0.75);
  EXPECT_EQ(merge<double>(MergeOp::Divide, 1.5, 4.0, 8.0), 3.0);
}
