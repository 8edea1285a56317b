//===- DisplayFormatterTest.cpp - formatDisplay against vvp ----------------===//
//
// Every case below is printed twice: by vvp from a generated $display call on
// sized literals, and by formatDisplay on the same values. The expected
// strings are never written by hand.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "VerilogOracle.h"
#include "engine/DisplayFormatter.h"
#include "engine/ScanFormat.h"

namespace synergy::engine {
namespace {

struct Arg {
  enum class Kind { Vector, String, Real } kind = Kind::Vector;
  uint32_t width = 0;
  bool isSigned = false;
  std::string text;  // hex digits for a vector, characters for a string
  double real = 0;
};

Arg vec(uint32_t width, std::string hex, bool isSigned = false) {
  return {Arg::Kind::Vector, width, isSigned, std::move(hex), 0};
}
Arg svec(uint32_t width, std::string hex) { return vec(width, std::move(hex), true); }
Arg str(std::string text) { return {Arg::Kind::String, 0, false, std::move(text), 0}; }
Arg real(double value) { return {Arg::Kind::Real, 0, false, {}, value}; }

struct Case {
  std::string task;  // $display, $displayh, ...
  std::vector<Arg> args;
};

std::string verilogArg(const Arg& arg) {
  switch (arg.kind) {
  case Arg::Kind::Vector:
    return std::to_string(arg.width) + (arg.isSigned ? "'sh" : "'h") + arg.text;
  case Arg::Kind::String:
    return "\"" + arg.text + "\"";
  case Arg::Kind::Real: {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.17g", arg.real);
    return buffer;
  }
  }
  return {};
}

DisplayArg displayArg(const Arg& arg) {
  switch (arg.kind) {
  case Arg::Kind::Vector: {
    BitValue value = parseDigits(arg.text, 16, arg.width);
    value.isSigned = arg.isSigned;
    return DisplayArg::ofValue(value);
  }
  case Arg::Kind::String:
    return DisplayArg::ofString(arg.text);
  case Arg::Kind::Real:
    return DisplayArg::ofReal(arg.real);
  }
  return {};
}

DisplayRadix radixOf(const std::string& task) {
  switch (task.back()) {
  case 'h':
    return DisplayRadix::Hex;
  case 'b':
    return DisplayRadix::Binary;
  case 'o':
    return DisplayRadix::Octal;
  default:
    return DisplayRadix::Decimal;
  }
}

std::vector<Case> cases() {
  Arg a8 = vec(8, "05");
  Arg s8 = svec(8, "9c");  // -100
  Arg s16 = svec(16, "fffd");
  Arg w64 = vec(64, "deadbeef");
  Arg big = vec(100, "f000000000000000000000001");
  Arg text64 = vec(64, "6869");  // "hi" with leading NUL bytes
  Arg hello = vec(40, "68656c6c6f");
  Arg one = vec(1, "1");
  Arg s33 = svec(33, "1ffffffff");  // -1
  Arg s3 = svec(3, "5");            // -3
  Arg int32neg = svec(32, "ffffffd6");  // -42
  Arg time64 = vec(64, "7b");
  return {
      {"$display", {str("[%d][%0d][%h][%x][%b][%o]"), a8, a8, a8, a8, a8, a8}},
      {"$display", {str("[%D][%H][%X][%B][%O]"), a8, a8, a8, a8, a8}},
      {"$display", {str("[%5h][%-6h][%08d][%0b][%3b][%10b]"), a8, a8, a8, a8, a8, a8}},
      {"$display", {str("[%3d][%-4d][%03d][%+d][%-d][%2d]"), a8, a8, a8, a8, a8, vec(8, "64")}},
      {"$display", {str("[%d][%h][%o][%b][%0d]"), s8, s8, s8, s8, s8}},
      {"$display", {str("[%d][%d][%h][%o]"), s16, w64, s16, w64}},
      {"$display", {str("[%d][%0d][%h][%o][%0h]"), big, big, big, big, big}},
      {"$display", {str("[%d][%d][%0d][%h][%d]"), s33, s3, s3, s3, one}},
      {"$display", {str("[%d][%0d][%5d][%-12d][%012d]"), int32neg, int32neg, int32neg, int32neg, int32neg}},
      {"$display", {str("[%s][%0s][%c][%10s][%-7s]"), text64, text64, text64, hello, hello}},
      {"$display", {str("[%5s][%-5s][%s][%0s]"), str("ab"), str("ab"), str("lit"), str("lit")}},
      {"$display", {str("[%t][%0t][%5t][%t][%-22t]"), int32neg, int32neg, a8, time64, time64}},
      {"$display", {str("[%e][%12.3e][%10.3f][%-10.2f][%g][%.3g][%0f]"), real(12345.678), real(12345.678),
                    real(12345.678), real(12345.678), real(12345.678), real(12345.678), real(12345.678)}},
      {"$display", {str("[%f][%e][%g][%f]"), int32neg, a8, w64, real(-0.5)}},
      {"$display", {str("[%m][%%][%5m]")}},
      {"$display", {int32neg, a8, w64, s16}},
      {"$display", {str("x"), int32neg, str("y"), str("%d"), a8}},
      {"$display", {str("%d"), str("AB")}},
      {"$display", {str("%d %h"), vec(4, "8", true), vec(2, "3")}},
      {"$displayh", {a8, str(" "), int32neg, str(" "), big}},
      {"$displayb", {a8, str(" "), s3}},
      {"$displayo", {a8, str(" "), w64}},
      {"$display", {str("%0d %0d %0h %0b %0o"), svec(64, "fffffffffffffffb"), vec(64, "ffffffffffffffff"),
                    vec(12, "0"), vec(12, "0"), vec(12, "0")}},
      {"$display", {str("[%d][%d][%d][%d]"), vec(31, "7fffffff"), svec(31, "40000000"), vec(65, "1ffffffffffffffff"),
                    svec(65, "10000000000000000")}},
      {"$display", {str("[%h][%o][%b]"), vec(13, "1abc"), vec(13, "1abc"), vec(13, "1abc")}},
      {"$display", {str("a%cb"), vec(8, "41")}},
      {"$display", {str("[%6.2f][%-8.1e][%+.2f]"), real(3.14159), real(-2.5), real(7.0)}},
      {"$display", {str("[%d][%0d][%5d][%-5d][%+d][%d][%d][%d]"), real(-2.5), real(3.7), real(-2.5), real(0.5),
                    real(2.25), real(1e30), real(-0.4), real(123456789012.4)}},
      {"$display", {real(0.5), str(" "), real(100.5), str(" "), real(1e-10), str(" "), real(-123456789.5)}},
  };
}

TEST(DisplayFormatterTest, MatchesVvpOnEveryCase) {
  auto all = cases();
  std::string verilog = "module tb;\n  initial begin\n";
  for (const auto& c : all) {
    verilog += "    " + c.task + "(";
    for (size_t i = 0; i < c.args.size(); ++i)
      verilog += (i ? ", " : "") + verilogArg(c.args[i]);
    verilog += ");\n";
  }
  verilog += "  end\nendmodule\n";
  bool ok = false;
  std::string vvpOutput = test::runUnderVvp(verilog, ok, "display");
  ASSERT_TRUE(ok) << verilog;

  std::vector<std::string> expected;
  std::istringstream lines(vvpOutput);
  for (std::string line; std::getline(lines, line);)
    expected.push_back(line);
  ASSERT_EQ(expected.size(), all.size()) << vvpOutput;
  for (size_t i = 0; i < all.size(); ++i) {
    std::vector<DisplayArg> args;
    for (const auto& arg : all[i].args)
      args.push_back(displayArg(arg));
    EXPECT_EQ(formatDisplay(args, radixOf(all[i].task), DisplayContext{"tb"}), expected[i])
        << "case " << i << ": " << all[i].task << " " << verilogArg(all[i].args.empty() ? str("") : all[i].args[0]);
  }
}

TEST(DisplayFormatterTest, MinimalDigitsOfWideValues) {
  BitValue value = parseDigits("123456789012345678901234567890", 10, 128);
  EXPECT_EQ(formatMinimalDigits(value, DisplayRadix::Decimal), "123456789012345678901234567890");
  EXPECT_EQ(formatMinimalDigits(BitValue::zero(70), DisplayRadix::Hex), "0");
}

}  // namespace
}  // namespace synergy::engine
