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
// refused before anything runs: a bad option, a malformed .eng file, one
// whose Verilog is not within what synergy-cc emits (EmittedVerilogCheck.h),
// a --dir grant that cannot be opened, or a design whose state is larger
// than --max-memory (nothing is built or run); 134, as for a trapped
// granule, when --time-limit ran out first.
//
// --engine software runs the design on the software engine (SoftwareEngine.h)
// at once, with no Verilator build; a construct it cannot run is then an
// error (status 2) naming it. --engine auto starts there while the compiled
// engine builds in a child process (DetachedEngineBuild.h), and at the end
// of the first tick after
// the build is ready moves every state variable across (get_state, then
// set_state) and continues on the compiled engine; the host's own state
// (open files, $random seeds, $monitor, pending $strobe output) stays with
// the TaskServicer, which serves both. If the software engine refuses the
// design, auto says so on stderr and waits for the compiled engine. A run
// that ends before the build does exits at once; the build carries on by
// itself and puts the compiled engine in the cache for the next run.
//
// --timeline FILE.csv writes a row every 100 ms from the start of the run
// (before any build): ticks and tasks so far, their rates, and the engine
// running (Timeline.h); the hand-off adds a row at the moment it happens.
//
// --time-limit is wall-clock time from the first tick (after the engine is
// built): the host checks it between ticks, and the engine's open-loop runs
// are cut into short batches so that a design that never stops does not keep
// the host away from the clock. A single tick that runs on past the limit
// (a long loop in one evaluation) is ended by a watchdog one second later.
// Without --time-limit too, no call into the engine may run longer than
// --eval-limit (10 s unless given): a loop inside one evaluation that does
// not end is stopped with status 134 (EvaluationWatchdog.h).
// --max-memory bounds the design's state, the sum over its variables of
// ceil(width / 8) bytes times the depth (1 for a scalar): the Verilator model
// holds each variable about once, and the host's copies of it (state files,
// $monitor values) are proportional to it.
//
// $save (and --save-at-tick) write the state at the end of the tick; under
// $yield they wait for the end of the first tick in which $yield fired.
// $restart replaces the state at the end of the tick it is called in.
// The state files named on the command line (--save-at-tick, --restart) are
// the user's host paths; the ones a design names are guest files under its
// grants. Restoring a state file is checked against the design and the
// grants first (see TickDriver::restore), so it can do nothing the design
// could not have done by running.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/FileTable.h"
#include "engine/Timeline.h"

namespace synergy::hwlower {
struct EngineManifest;
}

namespace synergy::engine {

class EngineInstance;
class EngineCallCounter;

// Creates the engine somewhere else than in this process (synergy-run
// --hypervisor: hypervisor/RemoteEngine.h) for a manifest that passed every
// local check; nullptr and a one-line `error` when it cannot. `files` are
// the run's files, which the engine may read ahead of the design; it adds
// the tasks it serves itself from them to `progress`.
using RemoteEngineFactory = std::function<std::unique_ptr<EngineInstance>(
    const hwlower::EngineManifest& manifest, EngineCallCounter& calls, FileTable& files,
    TimelineCounters& progress, std::string& error)>;

// --eval-limit when it is not given.
inline constexpr std::chrono::seconds kDefaultEvaluationLimit{10};

// Edges one tick may take: the edges of every evaluate, resume and update
// between two clock toggles. A design needs one per state-machine pass,
// backward branch and trap, so this is generous: it only stops an engine
// that spins (it never reaches __done) or traps without end.
inline constexpr uint64_t kMaxEdgesPerTick = uint64_t(1) << 24;

// Which engine runs the design (--engine).
enum class EngineChoice {
  Compiled,  // wait for the Verilator build
  Software,  // the software engine alone; refused constructs are an error
  Auto,      // (the default) start in software, hand off to the compiled
             // engine when it is built; start on it directly when it is
             // cached already
};

struct EngineRunOptions {
  std::string enginePath;
  // --dir HOST[:GUEST][:ro]: every file the design names ($fopen,
  // $readmemh, $save, $restart, its ROM files) is opened beneath one of
  // these grants and nowhere else. Without any, the working directory is
  // granted read-write as "." (relative names only, nothing above it).
  std::vector<sandbox::Grant> grants;
  std::optional<uint64_t> maxTicks;
  std::vector<std::string> plusargs;  // "+NAME=value" without the '+'
  // --save-at-tick N FILE: save at the end of tick N and stop (exit 0).
  std::optional<uint64_t> saveAtTick;
  std::string saveAtTickPath;
  // --restart FILE: resume a saved state at the tick after it was taken.
  std::string restartPath;
  // Let the engine run ticks on its own between host interventions.
  bool openLoop = true;
  // --max-memory BYTES: the largest design state this run accepts.
  std::optional<uint64_t> maxStateBytes;
  // --time-limit SECONDS: wall-clock budget of the run.
  std::optional<std::chrono::nanoseconds> timeLimit;
  // --eval-limit SECONDS: the longest one call into the engine may run
  // (EvaluationWatchdog.h).
  std::chrono::nanoseconds evaluationLimit = kDefaultEvaluationLimit;
  EngineChoice engine = EngineChoice::Auto;
  // --switch-at-tick N (implies auto): hand off at the end of tick N, waiting
  // for the build there, instead of as soon as it is ready; for tests.
  std::optional<uint64_t> switchAtTick;
  // When set, the engine comes from here instead of a local build; only
  // with EngineChoice::Compiled (the command line's default then).
  RemoteEngineFactory remoteEngine;
  // --timeline FILE.csv: ticks/s and tasks/s every 100 ms (Timeline.h).
  std::string timelinePath;
};

int runEngineFile(const EngineRunOptions& options);

// The design's state in bytes, as --max-memory counts it (the sum over its
// variables of ceil(width / 8) times the depth, 1 for a scalar); nullopt
// past 2^64. synergy-hv bounds each tenant's engines by the same measure.
std::optional<uint64_t> designStateBytes(const hwlower::EngineManifest& manifest);

// Whether synergy-run should treat `path` as an engine (it ends in ".eng").
bool isEngineFile(const std::string& path);

// synergy-run's engine mode: parses
//   [--dir HOST[:GUEST][:ro]]... [--max-ticks N] [--save-at-tick N FILE]
//   [--restart FILE] [--no-open-loop] [--max-memory BYTES]
//   [--time-limit SECONDS] [--eval-limit SECONDS]
//   [--engine compiled|software|auto] [--switch-at-tick N] [--timeline FILE.csv]
//   design.eng [+plusarg]...
// (args excludes argv[0]) and runs the engine, on `remoteEngine` when one is
// given. A bad option prints "synergy-run: error: ..." and returns 2 without
// running anything.
int runEngineCommandLine(const std::vector<std::string>& args, RemoteEngineFactory remoteEngine = {});

}  // namespace synergy::engine
