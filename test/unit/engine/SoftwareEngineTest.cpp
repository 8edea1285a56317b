//===- SoftwareEngineTest.cpp - the software engine's compiler and machine -===//
//
// Expression semantics are checked differentially, values wider than a
// machine word included: each expression is assigned to a 32-bit register in
// an `initial` block, read back through the software engine's state-access
// port, and compared with what vvp prints for the same assignment (none reads
// outside a variable: vvp gives x there, 2-state engines 0). Hostile module text must be refused with a message
// naming the construct, never crash or allocate without bound.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "VerilogOracle.h"
#include "engine/SoftwareEngine.h"
#include "hwlower/EngineManifest.h"

namespace synergy::engine {
namespace {

// Operands of every expression: signed and unsigned, narrow and wide.
const char* kOperands = R"(
  reg signed [7:0] a;
  reg [7:0] b;
  reg signed [3:0] c;
  reg [2:0] s;
  reg [15:0] m [2:5];
  reg [99:0] w;
  reg signed [99:0] v;
  reg [71:0] n [0:1];
)";
const char* kOperandValues =
    "    a = -8'sd3; b = 8'd200; c = 4'sb1000; s = 3'd3; m[2] = 16'd7; m[5] = 16'hbeef;\n"
    "    w = 100'hf_0123_4567_89ab_cdef_fedc_ba98; v = -100'sd987654321987654321987; n[1] = 72'hab_cdef_0123_4567_89ab;\n";

const std::vector<std::string> kExpressions = {
    "a + b",         "a + 8'sd1",       "a >>> 1",          "b >>> 1",         "a >> 1",
    "a < 0",         "b < a",           "$signed(b) < a",   "$signed(b) * 2",  "{a, b}",
    "{2{c}}",        "c ** 2",          "-c",               "~a",              "&b",
    "^b",            "~|c",             "a ? b : c",        "b[7:4]",          "b[s +: 3]",
    "b[s -: 2]",     "a % 8'sd2",       "a / 8'sd2",        "b / 8'd7",        "b % 8'd7",
    "a <<< s",       "b << 30",         "$unsigned(a)",     "c + a",           "{c} + a",
    "a == -3",       "b != 200",        "a && !b",          "a || 1'b0",       "m[2] + m[5]",
    "m[s + 3'd2][11:4]", "(a > b) ? a : b", "c - 4'd1",
    // Each operator of the stack-machine code (SoftwareExprCode.h) once more.
    "b >= 8'd200",   "a <= -8'sd3",     "$signed(b) > a",   "$signed(b) >= a", "b <= a",
    "b ^~ 8'h0f",    "~&b",             "~^c",              "!(a == -3) || b == 200",
    "(b == 200) && (s != 3)", "(b == 201) && (s / 3'd0)", "{s, c, b[1:0]} + 1",
    "s == 3'd3 ? m[s + 3'd2] : 16'd1", "m[s - 3'd1]",      "b[s - 3'd1 +: 4]", "c >>> s",
    // Wider than a word: computed at 100 or more bits, the low 32 kept.
    "w >> 68",       "(w * w) >> 70",   "w / 100'd12345",   "w % 100'd99991",  "{w, b} >> 90",
    "w > {w[98:0], 1'b0}", "^w",        "-w >> 60",         "v >>> 80",        "v / 100'sd7",
    "v % 100'sd1000003", "v < 0",       "(w ** 3) >> 64",   "w[s * 20 +: 32]", "n[1][70:39]",
    "n[s - 3'd2] >> 40", "{3{w[40:0]}} >> 75", "w + v",     "(w << 63) >> 95", "w - v > w",
    "&{w, 4'hf}",    "|(w & 100'd0)",   "w == v",           "w[99:96] + 1",
};

std::string engineModule() {
  std::string text = hwlower::kEngineModuleHeader;
  text += kOperands;
  for (size_t k = 0; k < kExpressions.size(); ++k) text += "  reg [31:0] r" + std::to_string(k) + ";\n";
  text += "  reg __task_r = 0;\n  initial begin\n";
  text += kOperandValues;
  for (size_t k = 0; k < kExpressions.size(); ++k)
    text += "    r" + std::to_string(k) + " = " + kExpressions[k] + ";\n";
  text += "  end\n";
  text += "  assign __task = {15'd0, __task_r};\n  assign __done = 1'b1;\n  assign __there_are_updates = 1'b0;\n";
  text += "  assign __open_loop_active = 1'b0;\n  assign __ticks_left = 32'd0;\n";
  text += "  always @* begin\n    __sa_rdata = 64'd0;\n    case (__sa_id)\n";
  for (size_t k = 0; k < kExpressions.size(); ++k)
    text += "      16'd" + std::to_string(k) + ": __sa_rdata = {r" + std::to_string(k) + "};\n";
  text += "      default: __sa_rdata = 64'd0;\n    endcase\n  end\n";
  text += "  always @(posedge __clk) begin\n    if (__cont) __task_r = 1'b0;\n  end\nendmodule\n";
  return text;
}

std::string vvpModule() {
  std::string text = "module t;\n";
  text += kOperands;
  text += "  reg [31:0] r;\n  initial begin\n";
  text += kOperandValues;
  for (const std::string& e : kExpressions) text += "    r = " + e + "; $display(\"%0d\", r);\n";
  text += "  end\nendmodule\n";
  return text;
}

TEST(SoftwareEngine, ExpressionsMatchVvp) {
  EngineCallCounter calls;
  std::string refusal;
  auto engine = createSoftwareEngine(engineModule(), calls, refusal);
  ASSERT_TRUE(engine) << refusal;
  std::string actual;
  for (size_t k = 0; k < kExpressions.size(); ++k)
    actual += std::to_string(engine->getWord(static_cast<uint32_t>(k), 0)) + "\n";
  bool ok = false;
  std::string expected = test::runUnderVvp(vvpModule(), ok, "software-expressions");
  ASSERT_TRUE(ok);
  EXPECT_EQ(actual, expected);
}

std::string refusalOf(const std::string& body) {
  EngineCallCounter calls;
  std::string refusal;
  auto engine = createSoftwareEngine(std::string(hwlower::kEngineModuleHeader) + body, calls, refusal);
  EXPECT_FALSE(engine);
  return refusal;
}

TEST(SoftwareEngine, RefusesWhatItCannotRunByName) {
  EXPECT_NE(refusalOf("  reg [65536:0] wide;\nendmodule\n").find("a vector wider than 65536 bits"), std::string::npos);
  EXPECT_NE(refusalOf("  reg [7:0] x;\n  initial begin\n    x = ^{2049{32'd1}};\n  end\nendmodule\n")
                .find("a replication wider than 65536 bits"),
            std::string::npos);
  EXPECT_NE(refusalOf("  real r;\nendmodule\n").find("a real variable"), std::string::npos);
  EXPECT_NE(refusalOf("  reg [7:0] x;\n  initial begin\n    x = $fopen(x);\n  end\nendmodule\n")
                .find("the system function $fopen"),
            std::string::npos);
  // Non-blocking assignments never reach the emitted module.
  EXPECT_NE(refusalOf("  reg x;\n  initial begin\n    x <= 1'b1;\n  end\nendmodule\n").find("expected '='"),
            std::string::npos);
}

TEST(SoftwareEngine, RefusesHostileText) {
  // Nesting far deeper than the emitter writes: refused, not recursed into.
  std::string deep = "  reg x;\n  initial begin\n    x = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + ";\n  end\nendmodule\n";
  EXPECT_NE(refusalOf(deep).find("nesting deeper than"), std::string::npos);
  // A memory of 2^32 words is refused before anything is allocated.
  EXPECT_NE(refusalOf("  reg [7:0] m [0:4294967295];\nendmodule\n").find("larger than the software engine holds"),
            std::string::npos);
  // Functions have static storage: mutual recursion would never end.
  EXPECT_NE(refusalOf("function [7:0] f;\n  input [7:0] v;\n  f = g(v);\nendfunction\n"
                      "function [7:0] g;\n  input [7:0] v;\n  g = f(v);\nendfunction\nendmodule\n")
                .find("recursive function 'f'"),
            std::string::npos);
  EXPECT_NE(refusalOf("  reg x;\n  reg x;\nendmodule\n").find("'x' declared twice"), std::string::npos);
  EXPECT_NE(refusalOf("  initial begin\n    y = 1'b0;\n  end\nendmodule\n").find("'y' is not declared"),
            std::string::npos);
  EXPECT_NE(refusalOf("  reg x;\n  initial begin\n    x = 1'b0;\n").find("unterminated begin"), std::string::npos);
  EXPECT_NE(refusalOf("  reg x;\nendmodule\nmodule other;\n").find("text after endmodule"), std::string::npos);
  EXPECT_NE(refusalOf("  reg x;\n  always @(posedge x) begin\n  end\nendmodule\n").find("expected '__clk'"),
            std::string::npos);
  EXPECT_NE(refusalOf("  reg [7:0] x;\n  initial begin\n    x = 8'q12;\n  end\nendmodule\n").find("malformed number"),
            std::string::npos);
}

}  // namespace
}  // namespace synergy::engine
