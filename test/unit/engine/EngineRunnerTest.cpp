//===- EngineRunnerTest.cpp - the tick loop over a hand-written engine -----===//
//
// A hand-written `synergy_engine` module that follows the port protocol of
// hwlower/EngineManifest.h for the design
//
//   reg clock = 0; integer count = 0;
//   always @(posedge clock) begin
//     count = count + 1; $display("count=%0d t=%0t", count, $time);
//     if (count == 3) $finish;
//   end
//
// exercises the whole runtime path without the compiler: Verilator build
// and cache, state access, task traps and resume, $finish, --max-ticks, and
// --save-at-tick followed by --restart in a fresh engine.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/EngineRunner.h"
#include "engine/StateFile.h"
#include "hwlower/EngineManifest.h"

namespace synergy::engine {
namespace {

namespace fs = std::filesystem;

// The body after the ABI header. Within what synergy-cc emits, as the runtime
// demands (EmittedVerilogCheck.h): no comments, the header's exact ports. The
// engine never runs in open loop: a run ends at once with all its ticks left
// to the host.
const char* kEngineBody = R"(
  reg clock = 0;
  reg [31:0] count = 0;
  reg prev_clock = 0;
  reg after_display = 0;
  reg [15:0] __task_r = 0;
  assign __task = __task_r;
  assign __done = !after_display && clock == prev_clock && __task_r == 0;
  assign __there_are_updates = 0;
  assign __open_loop_active = 0;
  assign __ticks_left = __open_loop_n;
  always @* begin
    case (__sa_id)
      0: __sa_rdata = {63'b0, clock};
      1: __sa_rdata = {32'b0, count};
      2: __sa_rdata = {63'b0, prev_clock};
      3: __sa_rdata = {63'b0, after_display};
      default: __sa_rdata = 0;
    endcase
  end
  always @(posedge __clk) begin
    if (__sa_we) begin
      case (__sa_id)
        0: clock <= __sa_wdata[0];
        1: count <= __sa_wdata[31:0];
        2: prev_clock <= __sa_wdata[0];
        3: after_display <= __sa_wdata[0];
        default: ;
      endcase
    end else if (__task_r != 0) begin
      if (__cont) __task_r <= 0;
    end else if (after_display) begin
      after_display <= 0;
      if (count == 3) __task_r <= 2;
    end else if (clock != prev_clock) begin
      prev_clock <= clock;
      if (clock) begin
        count <= count + 1;
        __task_r <= 1;
        after_display <= 1;
      end
    end
  end
endmodule
)";

hwlower::EngineManifest counterManifest() {
  using namespace hwlower;
  EngineManifest manifest;
  manifest.top = "tb";
  manifest.clockId = 0;
  auto state = [](uint32_t id, StateKind kind, uint32_t width, bool isSigned, const char* name) {
    StateVar var;
    var.id = id;
    var.kind = kind;
    var.width = width;
    var.isSigned = isSigned;
    var.name = name;
    var.verilogName = name;
    return var;
  };
  manifest.states = {state(0, StateKind::Input, 1, false, "tb.clock"),
                     state(1, StateKind::Reg, 32, true, "tb.count"),
                     state(2, StateKind::Internal, 1, false, "__prev_clock"),
                     state(3, StateKind::Internal, 1, false, "__after_display")};
  Task display;
  display.id = 1;
  display.name = "$display";
  display.scope = "tb";
  TaskArg format;
  format.kind = TaskArgKind::String;
  format.text = "count=%0d t=%0t";
  TaskArg count;
  count.stateId = 1;
  count.width = 32;
  count.isSigned = true;
  TaskArg time;
  time.kind = TaskArgKind::Time;
  time.text = "$time";
  display.args = {format, count, time};
  Task finish;
  finish.id = 2;
  finish.name = "$finish";
  finish.scope = "tb";
  manifest.tasks = {display, finish};
  manifest.verilog = std::string(hwlower::kEngineModuleHeader) + kEngineBody;
  return manifest;
}

class EngineRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synergy-engine-runner-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    enginePath_ = (dir_ / "counter.eng").string();
    statePath_ = (dir_ / "counter.state").string();
    std::string error;
    ASSERT_TRUE(hwlower::writeEngineFile(counterManifest(), enginePath_, error)) << error;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The runner's own behaviour, on the compiled engine (auto would leave a
  // detached build of the test design behind).
  int run(EngineRunOptions options, std::string& output) {
    options.enginePath = enginePath_;
    options.engine = EngineChoice::Compiled;
    ::testing::internal::CaptureStdout();
    int status = runEngineFile(options);
    output = ::testing::internal::GetCapturedStdout();
    return status;
  }

  // Runs to the end of tick 3, saves the state into statePath_ and stops.
  int runSavingAtTick3(std::string& output) {
    EngineRunOptions options;
    options.saveAtTick = 3;
    options.saveAtTickPath = statePath_;
    return run(options, output);
  }

  // Resumes a fresh engine from the state in statePath_.
  int runRestarted(std::string& output) {
    EngineRunOptions options;
    options.restartPath = statePath_;
    return run(options, output);
  }

  fs::path dir_;
  std::string enginePath_;
  std::string statePath_;
};

TEST_F(EngineRunnerTest, RunsToFinish) {
  std::string output;
  EXPECT_EQ(run({}, output), 0);
  EXPECT_EQ(output, "count=1 t=1\ncount=2 t=3\ncount=3 t=5\n");
}

TEST_F(EngineRunnerTest, StopsAtMaxTicks) {
  EngineRunOptions options;
  options.maxTicks = 4;
  std::string output;
  EXPECT_EQ(run(options, output), 2);
  EXPECT_EQ(output, "count=1 t=1\ncount=2 t=3\n");
}

TEST_F(EngineRunnerTest, SaveThenRestartEqualsOneRun) {
  std::string before;
  EXPECT_EQ(runSavingAtTick3(before), 0);
  std::string after;
  EXPECT_EQ(runRestarted(after), 0);
  EXPECT_EQ(before + after, "count=1 t=1\ncount=2 t=3\ncount=3 t=5\n");
}

TEST_F(EngineRunnerTest, RefusesACorruptStateBeforeRunning) {
  std::string ignored;
  ASSERT_EQ(runSavingAtTick3(ignored), 0);
  std::string text;
  {
    std::ifstream in(statePath_);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(statePath_, std::ios::trunc) << text.substr(0, text.size() / 2);
  std::string output;
  EXPECT_EQ(runRestarted(output), 1);
  EXPECT_EQ(output, "");
}

TEST_F(EngineRunnerTest, RefusesAStateFromAnotherDesign) {
  std::string ignored;
  ASSERT_EQ(runSavingAtTick3(ignored), 0);
  // A well-formed, correctly signed file whose variables belong elsewhere.
  std::string error;
  auto state = readSavedState(statePath_, error);
  ASSERT_TRUE(state) << error;
  state->variables[1].name = "tb.other";
  state->designSignature = designSignature(state->variables);
  ASSERT_TRUE(writeSavedState(statePath_, *state, error)) << error;
  std::string output;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(runRestarted(output), 1);
  std::string diagnostics = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(output, "");
  EXPECT_NE(diagnostics.find("different design"), std::string::npos) << diagnostics;
}

}  // namespace
}  // namespace synergy::engine
