//===- CombinedProgramTest.cpp - the combined program's sources ------------===//
//
// The combined program must be one text per set of designs (the cache key
// of a rejoin or of the same set in another order), name its modules itself
// whatever the designs are called, give identical designs one module and
// each engine its own slot, and refuse a design that does not open with the
// engine ABI's module header rather than pass it on to Verilator.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "hwlower/EngineManifest.h"
#include "hypervisor/CombinedProgram.h"

using namespace synergy;
using namespace synergy::hypervisor;

namespace {

std::string design(const std::string& body) {
  return std::string(hwlower::kEngineModuleHeader) + body + "endmodule\n";
}

size_t count(const std::string& text, const std::string& what) {
  size_t found = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++found;
  return found;
}

const std::string kFirst = design("  reg [7:0] a = 8'd1;\n");
const std::string kSecond = design("  reg [7:0] b = 8'd2;\n");

TEST(CombinedProgramTest, OneSetOfDesignsIsOneProgramInAnyOrder) {
  std::string error;
  auto forward = combineEngines({kFirst, kSecond}, error);
  auto backward = combineEngines({kSecond, kFirst}, error);
  ASSERT_TRUE(forward && backward) << error;
  EXPECT_EQ(forward->recipe.verilog, backward->recipe.verilog);
  EXPECT_EQ(forward->recipe.wrapperSources, backward->recipe.wrapperSources);
  // Each design keeps its slot, whichever order it came in.
  EXPECT_EQ(forward->slotOfDesign[0], backward->slotOfDesign[1]);
  EXPECT_EQ(forward->slotOfDesign[1], backward->slotOfDesign[0]);
  EXPECT_NE(forward->slotOfDesign[0], forward->slotOfDesign[1]);
}

TEST(CombinedProgramTest, NamesEveryModuleItselfAndSharesIdenticalDesigns) {
  std::string error;
  auto program = combineEngines({kFirst, kSecond, kFirst}, error);
  ASSERT_TRUE(program) << error;
  const std::string& verilog = program->recipe.verilog;
  EXPECT_EQ(count(verilog, "synergy_engine"), 0u);
  EXPECT_EQ(count(verilog, "module synergy_design_"), 2u);
  EXPECT_EQ(count(verilog, "endmodule"), 3u);
  EXPECT_EQ(count(verilog, "module synergy_fabric ("), 1u);
  EXPECT_EQ(count(verilog, " slot0 ("), 1u);
  EXPECT_EQ(count(verilog, " slot2 ("), 1u);
  EXPECT_EQ(count(verilog, " slot3 ("), 0u);
  EXPECT_EQ(program->slotOfDesign.size(), 3u);
  EXPECT_NE(program->slotOfDesign[0], program->slotOfDesign[2]);
  EXPECT_EQ(program->recipe.topModule, "synergy_fabric");
  bool bindsThree = false;
  for (const auto& [name, text] : program->recipe.wrapperSources)
    if (name == "FabricSlots.h")
      bindsThree = text.find("#define SYNERGY_FABRIC_SLOTS 3\n") != std::string::npos &&
                   count(text, "SYNERGY_BIND_SLOT(") == 3;
  EXPECT_TRUE(bindsThree);
}

TEST(CombinedProgramTest, RefusesADesignWithAnotherHeader) {
  std::string error;
  EXPECT_FALSE(combineEngines({kFirst, "module synergy_engine (input wire x);\nendmodule\n"}, error));
  EXPECT_NE(error.find("module header"), std::string::npos) << error;
  EXPECT_FALSE(combineEngines({}, error));
}

}  // namespace
