//===- EngineRunner.h - run a compiled Verilog design (.eng) ---------------===//
//
// The entry point synergy-run uses when its input is an .eng file: build (or
// fetch from the cache) the engine, then drive the virtual clock tick by tick,
// servicing every task the engine traps into, until $finish, $stop or the
// tick limit. One tick is one half period of the design's clock: tick 0 is
// time 0 and runs the initial blocks, tick t toggles the clock and runs at
// time t * halfPeriod, as vvp does for `always #1 clock = ~clock`.
//
// Exit status: 0 after $finish or $stop (like `vvp -n`), after a save made
// by --save-at-tick, or when a design without a clock has run its initial
// blocks; 1 on any error while running, including a tick that does not
// settle within kMaxEdgesPerTick cycles ("engine did not settle within N
// cycles in tick T"); 2 when --max-ticks ran out first, and for bad input
// refused before anything runs: a bad option, a malformed .eng file, or one
// whose Verilog is not within what synergy-cc emits (EmittedVerilogCheck.h).
//
// $save (and --save-at-tick) write the state at the end of the tick; under
// $yield they wait for the end of the first tick in which $yield fired.
// $restart replaces the state at the end of the tick it is called in.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/FileTable.h"

namespace synergy::engine {

// Edges one tick may take: the edges of every evaluate, resume and update
// between two clock toggles. A design needs one per state-machine pass,
// backward branch and trap, so this is generous: it only stops an engine
// that spins (it never reaches __done) or traps without end.
inline constexpr uint64_t kMaxEdgesPerTick = uint64_t(1) << 24;

struct EngineRunOptions {
  std::string enginePath;
  // --dir HOST[:GUEST]; other file names are opened relative to the cwd.
  std::vector<DirectoryMapping> directories;
  std::optional<uint64_t> maxTicks;
  std::vector<std::string> plusargs;  // "+NAME=value" without the '+'
  // --save-at-tick N FILE: save at the end of tick N and stop (exit 0).
  std::optional<uint64_t> saveAtTick;
  std::string saveAtTickPath;
  // --restart FILE: resume a saved state at the tick after it was taken.
  std::string restartPath;
  // Let the engine run ticks on its own between host interventions.
  bool openLoop = true;
};

int runEngineFile(const EngineRunOptions& options);

// Whether synergy-run should treat `path` as an engine (it ends in ".eng").
bool isEngineFile(const std::string& path);

// synergy-run's engine mode: parses
//   [--dir HOST[:GUEST]]... [--max-ticks N] [--save-at-tick N FILE]
//   [--restart FILE] [--no-open-loop] design.eng [+plusarg]...
// (args excludes argv[0]) and runs the engine. A bad option prints
// "synergy-run: error: ..." and returns 2 without running anything.
int runEngineCommandLine(const std::vector<std::string>& args);

}  // namespace synergy::engine
