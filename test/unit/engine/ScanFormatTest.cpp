//===- ScanFormatTest.cpp - $sscanf matching against vvp -------------------===//
//
// Each case scans one input with one format under vvp ($sscanf into 32-bit
// integers and a 64-bit string register, then $display of the count and the
// targets) and through scanFormatted, and compares the printed lines.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "VerilogOracle.h"
#include "engine/DisplayFormatter.h"
#include "engine/ScanFormat.h"

namespace synergy::engine {
namespace {

struct Case {
  std::string input;
  std::string format;
  std::string targets;  // one letter per target: i = integer, s = 64-bit reg
};

std::vector<Case> cases() {
  return {
      {"12 34", "%d %d", "ii"},
      {"  -7,ff", "%d,%h", "ii"},
      {"abc 99", "%s %d", "si"},
      {"101_1 2", "%b", "i"},
      {"17 0x", "%o %d", "ii"},
      {"hello", "%c%c", "ii"},
      {"12 skip 5", "%d %*s %d", "ii"},
      {"   ", "%d", "i"},
      {"", "%d", "i"},
      {"12345", "%3d%d", "ii"},
      {"a=5", "a=%d", "i"},
      {"b=5", "a=%d", "i"},
      {"deadBEEF", "%x", "i"},
  };
}

TEST(ScanFormatTest, MatchesVvpSscanf) {
  auto all = cases();
  std::string verilog = "module tb;\n  integer r, i0, i1; reg [63:0] s0;\n  initial begin\n";
  for (const auto& c : all) {
    verilog += "    i0 = 0; i1 = 0; s0 = 0;\n";
    std::string targets;
    int integers = 0;
    for (char t : c.targets)
      targets += t == 'i' ? ", i" + std::to_string(integers++) : std::string(", s0");
    verilog += "    r = $sscanf(\"" + c.input + "\", \"" + c.format + "\"" + targets + ");\n";
    verilog += "    $display(\"%0d %0d %0d %h\", r, i0, i1, s0);\n";
  }
  verilog += "  end\nendmodule\n";
  bool ok = false;
  std::string expected = test::runUnderVvp(verilog, ok, "scan");
  ASSERT_TRUE(ok) << verilog;

  std::string actual;
  for (const auto& c : all) {
    size_t position = 0;
    CharSource source{[&] { return position < c.input.size() ? static_cast<unsigned char>(c.input[position++]) : EOF; },
                      [&](int) { --position; }};
    std::vector<ScannedItem> items;
    int result = scanFormatted(source, c.format, items);
    BitValue integers[2] = {BitValue::zero(32, true), BitValue::zero(32, true)};
    BitValue text = BitValue::zero(64);
    int nextInteger = 0;
    for (size_t i = 0; i < items.size() && i < c.targets.size(); ++i) {
      if (c.targets[i] == 'i') {
        integers[nextInteger] = scannedValue(items[i], 32, false);
        integers[nextInteger++].isSigned = true;
      } else {
        text = scannedValue(items[i], 64, false);
      }
    }
    actual += formatDisplay({DisplayArg::ofString("%0d %0d %0d %h"), DisplayArg::ofValue(BitValue::fromInt64(result, 32)),
                             DisplayArg::ofValue(integers[0]), DisplayArg::ofValue(integers[1]),
                             DisplayArg::ofValue(text)},
                            DisplayRadix::Decimal, {}) +
              "\n";
  }
  EXPECT_EQ(actual, expected);
}

}  // namespace
}  // namespace synergy::engine
