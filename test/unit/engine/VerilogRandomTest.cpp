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
