//===- VerilogRandomTest.cpp - $random/$urandom sequences against vvp ------===//
#include <gtest/gtest.h>

#include "VerilogOracle.h"
#include "engine/VerilogRandom.h"

namespace synergy::engine {
namespace {

TEST(VerilogRandomTest, SequencesMatchVvp) {
  const char* verilog = R"(module tb;
  integer i, seed, useed;
  initial begin
    for (i = 0; i < 20; i = i + 1) $display("%0d", $random);
    seed = 5;
    for (i = 0; i < 20; i = i + 1) $display("%0d %0d", $random(seed), seed);
    for (i = 0; i < 20; i = i + 1) $display("%0d", $urandom);
    useed = -123456;
    for (i = 0; i < 20; i = i + 1) $display("%0d %0d", $urandom(useed), useed);
  end
endmodule
)";
  bool ok = false;
  std::string expected = test::runUnderVvp(verilog, ok, "random");
  ASSERT_TRUE(ok);

  std::string actual;
  int32_t unseeded = 0;
  for (int i = 0; i < 20; ++i)
    actual += std::to_string(verilogRandom(unseeded)) + "\n";
  int32_t seed = 5;
  for (int i = 0; i < 20; ++i) {
    int32_t value = verilogRandom(seed);
    actual += std::to_string(value) + " " + std::to_string(seed) + "\n";
  }
  int32_t unseededUnsigned = 0;
  for (int i = 0; i < 20; ++i)
    actual += std::to_string(verilogUrandom(unseededUnsigned)) + "\n";
  int32_t useed = -123456;
  for (int i = 0; i < 20; ++i) {
    uint32_t value = verilogUrandom(useed);
    actual += std::to_string(value) + " " + std::to_string(useed) + "\n";
  }
  EXPECT_EQ(actual, expected);
}

// Bounds in both orders, equal, and with bit 31 set (where vvp's 64-bit
// arithmetic pins the result), interleaved with $urandom on the same seed.
TEST(VerilogRandomTest, UrandomRangeMatchesVvp) {
  const char* verilog = R"(module tb;
  integer i;
  initial begin
    for (i = 0; i < 20; i = i + 1)
      $display("%0d %0d %0d %0d", $urandom_range(10), $urandom_range(3, 7), $urandom_range(7, 3), $urandom);
    $display("%0d %0d", $urandom_range(5, 5), $urandom_range(0));
    $display("%0d %0d", $urandom_range(32'hffffffff, 0), $urandom_range(32'h80000000, 32'h7fffffff));
    $display("%0d %0d", $urandom_range(-1, -5), $urandom_range(32'h7fffffff, 1));
    $display("%0d", $urandom);
  end
endmodule
)";
  bool ok = false;
  std::string expected = test::runUnderVvp(verilog, ok, "urandom_range");
  ASSERT_TRUE(ok);

  int32_t seed = 0;
  auto range = [&](int32_t high, int32_t low) { return std::to_string(verilogUrandomRange(seed, high, low)); };
  std::string actual;
  for (int i = 0; i < 20; ++i) {
    std::string a = range(10, 0), b = range(3, 7), c = range(7, 3);
    actual += a + " " + b + " " + c + " " + std::to_string(verilogUrandom(seed)) + "\n";
  }
  std::string a = range(5, 5);
  actual += a + " " + range(0, 0) + "\n";
  a = range(-1, 0);
  actual += a + " " + range(INT32_MIN, INT32_MAX) + "\n";
  a = range(-1, -5);
  actual += a + " " + range(INT32_MAX, 1) + "\n";
  actual += std::to_string(verilogUrandom(seed)) + "\n";
  EXPECT_EQ(actual, expected);
}

TEST(VerilogRandomTest, DistUniformStaysInRange) {
  int32_t seed = 1;
  for (int i = 0; i < 1000; ++i) {
    int32_t value = distUniform(seed, -3, 9);
    EXPECT_GE(value, -3);
    EXPECT_LE(value, 9);
  }
}

}  // namespace
}  // namespace synergy::engine
