//===- EngineManifestTest.cpp - .eng files round-trip and refuse damage ---===//
//
// An .eng file is untrusted input: every malformed or out-of-range field must
// be refused with the line it is on, never thrown over, never trusted as an
// index and never turned into a large allocation.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <sstream>

#include "hwlower/EngineManifest.h"

namespace synergy::hwlower {
namespace {

EngineManifest sampleManifest() {
  EngineManifest m;
  m.top = "tb";
  m.clockId = 0;
  m.halfPeriod = 5;
  m.states.push_back({0, StateKind::Input, 1, false, 0, 0, true, "tb.clock", "clock"});
  m.states.push_back({1, StateKind::Reg, 8, true, 16, -4, true, "tb.mem", "mem"});
  m.states.push_back({2, StateKind::Internal, 32, false, 0, 0, true, "tb.\\odd\"name\n", "__result_0"});
  Task display;
  display.id = 1;
  display.name = "$display";
  display.scope = "tb";
  display.file = "tb.v";
  display.line = 7;
  TaskArg format;
  format.kind = TaskArgKind::String;
  format.text = "%d \x01\t";
  TaskArg element;
  element.stateId = 1;
  element.indexStateId = 2;
  element.width = 8;
  display.args = {format, element};
  Task fopen;
  fopen.id = 2;
  fopen.name = "$fopen";
  fopen.resultId = 2;
  fopen.resultWidth = 32;
  TaskArg name;
  name.kind = TaskArgKind::String;
  name.text = "out.txt";
  fopen.args = {name};
  m.tasks = {display, fopen};
  m.romFiles.push_back({"rom.hex", std::string(64, 'a')});
  m.verilog = "module synergy_engine;\nendmodule\n";
  return m;
}

std::string sampleText() {
  std::ostringstream out;
  writeEngineManifest(sampleManifest(), out);
  return out.str();
}

std::optional<EngineManifest> read(const std::string& text, std::string& error) {
  std::istringstream in(text);
  return readEngineManifest(in, error);
}

// The sample with `from` (which must occur in it) replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = sampleText();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void expectRefused(const std::string& text, const std::string& expected) {
  std::string error;
  std::optional<EngineManifest> m;
  EXPECT_NO_THROW(m = read(text, error));
  EXPECT_FALSE(m.has_value()) << "accepted; expected: " << expected;
  EXPECT_EQ(error, expected);
}

TEST(EngineManifestTest, RoundTripsEveryField) {
  std::string error;
  auto m = read(sampleText(), error);
  ASSERT_TRUE(m.has_value()) << error;
  EngineManifest want = sampleManifest();
  EXPECT_EQ(m->states[1].base, -4);
  EXPECT_EQ(m->states[2].name, want.states[2].name);
  EXPECT_EQ(m->tasks[0].args[0].text, want.tasks[0].args[0].text);
  EXPECT_EQ(m->tasks[0].args[1].indexStateId, 2u);
  EXPECT_EQ(m->tasks[1].resultId, 2u);
  EXPECT_EQ(m->romFiles[0].sha256, want.romFiles[0].sha256);
  EXPECT_EQ(m->verilog, want.verilog);
  std::ostringstream again;
  writeEngineManifest(*m, again);
  EXPECT_EQ(again.str(), sampleText());
}

TEST(EngineManifestTest, RefusesBadEscapes) {
  expectRefused(edited("\"tb.clock\"", "\"tb.\\qclock\""), "5: malformed 'state' record: bad escape in string");
  expectRefused(edited("\"tb.clock\"", "\"tb.\\xzzclock\""), "5: malformed 'state' record: bad \\x escape in string");
  expectRefused(edited("\"tb.clock\" \"clock\"", "\"tb.clock\" \"clock\\x4"),
                "5: malformed 'state' record: bad \\x escape in string");
  expectRefused(edited("\"tb.clock\" \"clock\"", "\"tb.clock\" \"clock"),
                "5: malformed 'state' record: unterminated string");
}

TEST(EngineManifestTest, RefusesOverflowingAndNegativeNumbers) {
  expectRefused(edited("clock 0 5", "clock 0 99999999999999999999999"),
                "3: malformed 'clock' record: number 99999999999999999999999 exceeds 4294967295");
  expectRefused(edited("clock 0 5", "clock 0 4294967296"),
                "3: malformed 'clock' record: number 4294967296 exceeds 4294967295");
  expectRefused(edited("clock 0 5", "clock 0 0"), "3: malformed 'clock' record: the half period is 0");
  expectRefused(edited("state 1 reg 8 1 16 -4", "state 1 reg 8 1 16 -9223372036854775809"),
                "6: malformed 'state' record: number 9223372036854775809 exceeds 9223372036854775808");
  expectRefused(edited("state 1 reg 8 1 16", "state 1 reg 8 1 -16"),
                "6: malformed 'state' record: '-16' is not a number");
  expectRefused(edited("SYNERGY-ENGINE 3", "SYNERGY-ENGINE 99999999999"),
                "1: malformed header");
  std::string error;
  auto lowest = read(edited("state 1 reg 8 1 16 -4", "state 1 reg 8 1 16 -9223372036854775808"), error);
  ASSERT_TRUE(lowest.has_value()) << error;
  EXPECT_EQ(lowest->states[1].base, INT64_MIN);
}

TEST(EngineManifestTest, RefusesStateIdsOutsideTheManifest) {
  expectRefused(edited("arg value 1 - 2", "arg value 12345 - 2"), "10: argument names state 12345, which does not exist");
  expectRefused(edited("arg value 1 - 2", "arg value 1 - 12345"), "10: argument names state 12345, which does not exist");
  expectRefused(edited("arg value 1 - 2", "arg value 1 16 -"), "10: argument element 16 is outside state 1");
  expectRefused(edited("arg value 1 - 2", "arg value - - 2"), "10: value argument names no state");
  expectRefused(edited("arg string - - -", "arg string 1 - -"), "9: only a value argument names a state");
  expectRefused(edited("arg value 1 - 2", "arg value 99999 - 2"),
                "10: malformed 'arg' record: number 99999 exceeds 65535");
  expectRefused(edited("\"\" 0 2 32", "\"\" 0 3 32"), "11: task 2 writes its result to state 3, which does not exist");
  expectRefused(edited("clock 0 5", "clock 3 5"), "18: clock names state 3, which does not exist");
  expectRefused(edited("clock 0 5", "clock 1 5"), "18: clock is not an input");
}

TEST(EngineManifestTest, RefusesWidthsDepthsAndCountsBeyondTheLimits) {
  expectRefused(edited("state 1 reg 8 ", "state 1 reg 4000000000 "),
                "6: malformed 'state' record: number 4000000000 exceeds 65536");
  expectRefused(edited("state 1 reg 8 ", "state 1 reg 0 "), "6: state 1 has width 0");
  expectRefused(edited("state 1 reg 8 1 16 ", "state 1 reg 8 1 4294967297 "),
                "6: malformed 'state' record: number 4294967297 exceeds 4294967296");
  expectRefused(edited("state 1 reg 8 1 16 ", "state 1 reg 65536 1 4294967296 "),
                "6: the states hold more than 16777216 elements or 1073741824 bits");
  expectRefused(edited("arg value 1 - 2 8", "arg value 1 - 2 4000000000"),
                "10: malformed 'arg' record: number 4000000000 exceeds 65536");
  expectRefused(edited("task 2 ", "task 65536 "), "11: malformed 'task' record: number 65536 exceeds 65535");
  expectRefused(edited("task 2 ", "task 3 "), "11: task ids must be dense from 1");
  expectRefused(edited("state 2 ", "state 7 "), "7: state ids must be dense and ordered");
  expectRefused(edited("0 0 2\n", "0 0 4000000000\n"), "8: malformed 'task' record: number 4000000000 exceeds 65535");
  expectRefused(edited("0 0 2\n", "0 0 3\n"), "11: missing task argument");
}

TEST(EngineManifestTest, RefusesVerilogWhoseLengthDoesNotMatch) {
  expectRefused(edited("verilog 33", "verilog 9999999999999"),
                "14: malformed 'verilog' record: number 9999999999999 exceeds 268435456");
  expectRefused(edited("verilog 33", "verilog 268435456"), "14: truncated verilog text");
  expectRefused(edited("verilog 33", "verilog 30"), "16: verilog text longer than declared");
  expectRefused(edited("verilog 33", "verilog 37"), "18: truncated engine file (no 'end')");
}

TEST(EngineManifestTest, RefusesDuplicateMissingAndTrailingRecords) {
  expectRefused(edited("yield 0\n", "yield 0\ntop \"again\"\n"), "5: duplicate 'top' record");
  expectRefused(edited("yield 0\n", ""), "17: missing 'yield' record");
  expectRefused(sampleText() + "state 3 reg 1 0 0 0 1 \"x\" \"x\"\n", "18: text after 'end'");
  expectRefused(edited("romfile \"rom.hex\" ", "romfile \"rom.hex\" " + std::string(64, 'b') + "\nromfile \"rom.hex\" "),
                "14: duplicate romfile record");
  expectRefused(edited(std::string(64, 'a'), "../../etc"), "13: romfile hash is not a SHA-256 hex digest");
  expectRefused(edited("yield 0\n", "yield 0 extra\n"), "4: malformed 'yield' record: trailing fields");
  expectRefused(edited("end\n", ""), "17: truncated engine file (no 'end')");
}

// Every byte of a valid file replaced by characters that matter to the
// parser: each result is parsed without a throw, and whatever it accepts
// keeps every state id it names within the state table.
TEST(EngineManifestTest, NoSingleByteEditThrowsOrEscapesTheTables) {
  const std::string text = sampleText();
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'-', '9', '"', '\\', 'x', ' ', '\n', '\0'}) {
      std::string mutated = text;
      mutated[i] = c;
      std::string error;
      std::optional<EngineManifest> m;
      ASSERT_NO_THROW(m = read(mutated, error)) << i;
      if (!m)
        continue;
      for (const Task& task : m->tasks) {
        EXPECT_TRUE(task.resultId == kNoState || task.resultId < m->states.size());
        for (const TaskArg& arg : task.args) {
          EXPECT_TRUE(arg.stateId == kNoState || arg.stateId < m->states.size());
          EXPECT_TRUE(arg.indexStateId == kNoState || arg.indexStateId < m->states.size());
        }
      }
    }
  }
}

}  // namespace
}  // namespace synergy::hwlower
