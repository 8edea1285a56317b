//===- EmittedVerilogCheckTest.cpp - Only our own Verilog reaches Verilator ===//
//
// Each refused case is one construct Verilator turns into host code, or one
// that the emitter never writes, spliced into an otherwise emitted module; the
// test checks both the refusal and that the message names the construct.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/EmittedVerilogCheck.h"
#include "hwlower/EngineManifest.h"

namespace synergy::engine {
namespace {

// A body in the shapes EmitVerilog writes: declarations, a function, a
// combinational read, the clocked block with signed casts and based numbers.
const char* kBody =
    "  reg [7:0] count = 8'd0;\n"
    "  reg signed [3:0] delta = 4'sd0;\n"
    "  reg [7:0] mem [0:15];\n"
    "  wire [7:0] twice;\n"
    "  reg [1:0] __state = 0;\n"
    "  function [7:0] widen;\n"
    "    input [3:0] value;\n"
    "    widen = {4'b0000, value};\n"
    "  endfunction\n"
    "  assign twice = {count + count};\n"
    "  always @* begin\n"
    "    __sa_rdata = 64'd0;\n"
    "    case (__sa_id[1:0])\n"
    "      2'd0: __sa_rdata = {count};\n"
    "      default: __sa_rdata = 64'd0;\n"
    "    endcase\n"
    "  end\n"
    "  always @(posedge __clk) begin\n"
    "    if (__sa_we) begin\n"
    "      casez (__sa_id[1:0])\n"
    "        2'b1?: mem[__sa_index] = __sa_wdata[7:0];\n"
    "        default: ;\n"
    "      endcase\n"
    "    end else begin\n"
    "      count = $unsigned({$signed(count) + delta}) ^ 8'hff % 8'o7;\n"
    "      if (!(count >= 8'd3) && ~|count) count = widen(4'hx);\n"
    "      for (__state = 0; __state < 2'd3; __state = __state + 2'd1) begin\n"
    "        mem[__state] = count;\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "endmodule\n";

std::string emitted(const std::string& body = kBody) { return hwlower::kEngineModuleHeader + body; }

// The emitted module with `from` (which must occur in it) replaced by `to`.
std::string spliced(const std::string& from, const std::string& to) {
  std::string text = emitted();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void expectRefused(const std::string& verilog, const std::string& messagePart) {
  auto error = checkEmittedVerilog(verilog);
  ASSERT_TRUE(error.has_value()) << "accepted: " << messagePart;
  EXPECT_NE(error->find(messagePart), std::string::npos) << *error;
  EXPECT_EQ(error->find('\n'), std::string::npos) << *error;
}

TEST(EmittedVerilogCheckTest, AcceptsTheEmittedSubset) {
  EXPECT_EQ(checkEmittedVerilog(emitted()), std::nullopt);
}

// Reals live in 64-bit registers and are computed through the real system
// functions the frontend emits inline; a real literal never appears, since
// constants are written as $bitstoreal of their bits.
TEST(EmittedVerilogCheckTest, AcceptsTheRealFunctionsTheFrontendEmits) {
  std::string withReals = spliced(
      "count = $unsigned",
      "begin : r real x; x = $bitstoreal(64'h3fe0000000000000); "
      "count = $rtoi($sqrt(x) * $itor(count)); __sa_rdata = $realtobits(x); end count = $unsigned");
  EXPECT_EQ(checkEmittedVerilog(withReals), std::nullopt);
  expectRefused(spliced("count = $unsigned", "count = $realtime + $unsigned"), "system function '$realtime'");
}

TEST(EmittedVerilogCheckTest, RefusesSystemFunctionsOutsideTheAllowList) {
  expectRefused(spliced("count = $unsigned", "count = $c(\"system(\\\"touch x\\\")\") + $unsigned"), "'$c'");
  expectRefused(spliced("count = $unsigned", "count = $c(count) + $unsigned"), "system function '$c'");
  expectRefused(spliced("count = $unsigned", "$display(count); count = $unsigned"), "system function '$display'");
  expectRefused(spliced("count = $unsigned", "count = $unsigned$c"), "system function '$unsigned$c'");
}

TEST(EmittedVerilogCheckTest, RefusesCommentsAndTheirDirectives) {
  expectRefused(spliced("reg [7:0] count", "reg [7:0] count /*verilator public*/"), "comment '/*verilator public*/");
  expectRefused(spliced("  wire [7:0] twice;\n", "  wire [7:0] twice; // verilator lint_off WIDTH\n"),
                "comment '// verilator lint_off");
}

TEST(EmittedVerilogCheckTest, RefusesDpiStringsDirectivesAndEscapes) {
  expectRefused(spliced("  wire [7:0] twice;\n", "  import \"DPI-C\" function int system(input string s);\n"),
                "keyword 'import'");
  expectRefused(spliced("  wire [7:0] twice;\n", "  wire [7:0] twice = \"DPI-C\";\n"), "string literal '\"DPI-C\";'");
  expectRefused(spliced("  wire [7:0] twice;\n", "`include \"/etc/passwd\"\n"), "compiler directive '`include");
  expectRefused(spliced("  wire [7:0] twice;\n", "`systemc_header\n"), "compiler directive '`systemc_header");
  expectRefused(spliced("  wire [7:0] twice;\n", "`verilator_config\n"), "compiler directive '`verilator_config");
  expectRefused(spliced("wire [7:0] twice", "wire [7:0] \\twice*/ "), "escaped identifier");
  expectRefused(spliced("  reg [7:0] count", "  (* keep *) reg [7:0] count"), "attribute");
  expectRefused(spliced("  reg [7:0] count", "  ( * keep * ) reg [7:0] count"), "attribute");
}

TEST(EmittedVerilogCheckTest, RefusesCharactersTheEmitterNeverWrites) {
  expectRefused(spliced("  reg [7:0] count", "\treg [7:0] count"), "character '\\x09");
  expectRefused(spliced("count = $unsigned", "count = #1 $unsigned"), "character '#1");
  expectRefused(spliced("  reg [7:0] count", "  reg [7:0] c\xc3\xa4unt"), "character '\\xc3\\xa4unt");
  expectRefused(spliced("8'd0;", "1.5;"), "character '.5;");
  expectRefused(spliced("8'd0;", "8'q0;"), "malformed number");
  expectRefused(spliced("8'd0;", "8'd;"), "malformed number");
  expectRefused(spliced("  reg [7:0] count", "  reg [7:0] count$x"), "identifier with '$'");
  std::string withNul = emitted();
  withNul.insert(withNul.find("endmodule"), std::string(1, '\0'));
  expectRefused(withNul, "character '\\x00");
}

TEST(EmittedVerilogCheckTest, RefusesKeywordsOutsideTheAllowList) {
  expectRefused(spliced("  wire [7:0] twice;\n", "  task t; endtask\n"), "keyword 'task'");
  expectRefused(spliced("  wire [7:0] twice;\n", "  bind top probe p;\n"), "keyword 'bind'");
  expectRefused(spliced("  wire [7:0] twice;\n", "  class c; endclass\n"), "keyword 'class'");
}

TEST(EmittedVerilogCheckTest, DemandsExactlyTheAbiModule) {
  expectRefused(spliced("output reg [63:0] __sa_rdata", "output reg [63:0] __sa_rdata, input wire x"),
                "module header differs");
  expectRefused(spliced("module synergy_engine", "module other"), "'other' where synergy-cc writes 'synergy_engine'");
  expectRefused(spliced("endmodule\n", "module second; endmodule\nendmodule\n"), "a second module");
  expectRefused(spliced("endmodule\n", "endmodule\nendmodule\n"), "text after 'endmodule'");
  expectRefused(spliced("endmodule\n", "\n"), "does not end with 'endmodule'");
  expectRefused("", "ends inside the module header");
  std::string header = hwlower::kEngineModuleHeader;
  expectRefused(header.substr(0, header.find("__cont")), "ends inside the module header");
}

TEST(EmittedVerilogCheckTest, ReportsTheLineOfTheConstruct) {
  auto error = checkEmittedVerilog(spliced("  wire [7:0] twice;\n", "  wire [7:0] twice;\n  $c;\n"));
  ASSERT_TRUE(error.has_value());
  std::string header = hwlower::kEngineModuleHeader;
  auto line = std::count(header.begin(), header.end(), '\n') + 5;
  EXPECT_EQ(error->rfind("line " + std::to_string(line) + ": ", 0), 0u) << *error;
}

}  // namespace
}  // namespace synergy::engine
