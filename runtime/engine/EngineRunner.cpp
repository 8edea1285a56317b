//===- EngineRunner.cpp - run a compiled Verilog design (.eng) -------------===//
//
// Drives one engine through the cycle protocol of hwlower/EngineManifest.h:
// per tick, toggle the clock, evaluate until quiescent (servicing each
// trapped task and resuming), latch non-blocking updates and evaluate again
// until none are pending, then do the end-of-tick work. Between host
// interventions the engine may run whole ticks by itself in open loop.
//
//===----------------------------------------------------------------------===//
#include "engine/EngineRunner.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "engine/DetachedEngineBuild.h"
#include "engine/EmittedVerilogCheck.h"
#include "engine/EvaluationWatchdog.h"
#include "engine/EngineAbi.h"
#include "engine/EngineBuilder.h"
#include "engine/EngineInstance.h"
#include "engine/SoftwareEngine.h"
#include "engine/StateFile.h"
#include "engine/TaskServicer.h"
#include "engine/Timeline.h"
#include "hwlower/EngineManifest.h"
#include "util/FileIO.h"
#include "util/LimitOptions.h"
#include "util/Sha256.h"

namespace synergy::engine {

using hwlower::kNoState;
using hwlower::StateKind;

namespace {

// Longest open-loop run between checks of the host side: short enough that
// a large design's batch takes a small fraction of a second (of
// --time-limit, and of the evaluation limit that bounds every call into the
// engine), long enough that returning to the host costs nothing.
constexpr uint32_t kOpenLoopBatch = 1u << 12;
// The batch asked of an engine behind a hypervisor, where each run costs a
// network round trip: the hypervisor itself cuts a run into time slices
// (hypervisor/Hypervisor.cpp), so a large batch keeps --time-limit as
// responsive as a local one.
constexpr uint32_t kRemoteOpenLoopBatch = 1u << 20;
// As for a granule that traps (synergy-run).
constexpr int kTimeLimitExitStatus = 134;

using Clock = std::chrono::steady_clock;

// Spends one edge of a tick's budget; false once it is exhausted.
bool spendEdge(uint64_t& budget) {
  if (budget == 0)
    return false;
  --budget;
  return true;
}

// The compiled engine being built in a child process while the software
// engine runs (DetachedEngineBuild.h). A run that ends first does not wait
// for it: the child finishes the build and fills the cache on its own.
struct CompiledEngineBuild {
  explicit CompiledEngineBuild(DetachedEngineBuild child) : child(std::move(child)) {}
  DetachedEngineBuild child;
  bool pending = true;
  // Filled in by the hand-off, for SYNERGY_ENGINE_STATS.
  std::optional<uint64_t> switchedAfterTick;
  double switchSeconds = 0;
};

class TickDriver {
 public:
  TickDriver(const EngineRunOptions& options, const hwlower::EngineManifest& manifest, EngineInstance& engine,
             FileTable& files, TimelineCounters& progress)
      : options_(options), manifest_(manifest), engine_(engine), files_(files),
        servicer_(manifest, engine, files_, options.plusargs), progress_(progress) {}

  int run();
  void setDeadline(Clock::time_point deadline) { deadline_ = deadline; }
  void setHandOff(CompiledEngineBuild* build) { handOff_ = build; }
  void setOpenLoopBatch(uint32_t ticks) { openLoopBatch_ = ticks; }
  void setTimeline(Timeline* timeline) { timeline_ = timeline; }
  uint64_t ticksCompleted() const { return ticksCompleted_; }

 private:
  bool settle(uint64_t tick);
  bool unsettled(uint64_t tick);
  bool runTick(uint64_t tick);
  bool runOpenLoop(uint64_t& nextTick, uint64_t limit);
  std::vector<SavedVariable> savableShape() const;
  bool save(const std::string& path, uint64_t tick, bool pathIsGuestFile);
  std::optional<uint64_t> restore(const std::string& path, bool pathIsGuestFile);
  bool checkRestoredMonitor(const SavedState& state);
  int fail(const std::string& message);
  bool romFilesUnchanged();
  bool timeIsUp() const { return deadline_ && Clock::now() >= *deadline_; }
  void flushWaitingStdout() {
    if (files_.stdoutIsWaiting())
      files_.flushWaitingStdout(Clock::now());
  }
  void handOffIfReady(uint64_t completed);

  const EngineRunOptions& options_;
  const hwlower::EngineManifest& manifest_;
  EngineInstance& engine_;
  FileTable& files_;
  TaskServicer servicer_;
  std::string error_;
  uint64_t ticksCompleted_ = 0;
  std::optional<Clock::time_point> deadline_;
  CompiledEngineBuild* handOff_ = nullptr;
  uint32_t openLoopBatch_ = kOpenLoopBatch;
  // Ticks run and tasks trapped, for --timeline: unlike ticksCompleted_, the
  // tick count only grows, through $restart too.
  TimelineCounters& progress_;
  Timeline* timeline_ = nullptr;
};

int TickDriver::fail(const std::string& message) {
  files_.flushAll();
  std::fprintf(stderr, "%s\n", message.c_str());
  return 1;
}

// The engine holds these files' contents as ROMs, compiled in place of the
// design's $readmemh/$readmemb loads: it must not run with stale ones.
bool TickDriver::romFilesUnchanged() {
  for (const hwlower::RomFile& rom : manifest_.romFiles) {
    int error = 0;
    auto contents = files_.readGuestFile(rom.name, error);
    if (!contents && error == ENOENT) {
      error_ = rom.name + " is missing, but synergy-cc compiled its contents into the engine; recompile";
      return false;
    }
    if (!contents) {
      error_ = "cannot read " + rom.name + ", whose contents synergy-cc compiled into the engine: " +
               sandbox::GrantTable::describeError(error);
      return false;
    }
    util::Sha256 hash;
    hash.update(*contents);
    if (hash.hexDigest() != rom.sha256) {
      error_ = rom.name + " changed since synergy-cc compiled the engine; recompile";
      return false;
    }
  }
  return true;
}

bool TickDriver::unsettled(uint64_t tick) {
  error_ = options_.enginePath + ": error: engine did not settle within " + std::to_string(kMaxEdgesPerTick) +
           " cycles in tick " + std::to_string(tick);
  return false;
}

// Evaluate to quiescence, servicing tasks, then latch updates, until neither
// tasks nor updates remain. Every edge, a resume's and an update's too, is
// spent from one budget per tick, so an engine that never settles (it spins,
// traps forever or keeps updating) ends the run instead of hanging it.
bool TickDriver::settle(uint64_t tick) {
  uint64_t budget = kMaxEdgesPerTick;
  for (;;) {
    uint32_t task = engine_.evaluate(budget);
    if (task == SYNERGY_ENGINE_UNSETTLED)
      return unsettled(tick);
    if (task) {
      progress_.addTask();
      if (!servicer_.service(task, error_))
        return false;
      if (!spendEdge(budget))
        return unsettled(tick);
      engine_.resume();
      continue;
    }
    if (engine_.thereAreUpdates()) {
      if (!spendEdge(budget))
        return unsettled(tick);
      engine_.update();
      continue;
    }
    return true;
  }
}

bool TickDriver::runTick(uint64_t tick) {
  servicer_.setTime(tick * manifest_.halfPeriod);
  if (tick > 0 && manifest_.clockId != kNoState) {
    const auto& clock = manifest_.states[manifest_.clockId];
    BitValue level = engine_.getState(clock.id, 0, clock.width, false);
    engine_.setState(clock.id, 0, BitValue::fromUint64(level.isZero() ? 1 : 0, clock.width));
  }
  if (!settle(tick))
    return false;
  servicer_.endOfTick();
  return true;
}

// Runs ticks nextTick.. in open loop, at most up to `limit` (exclusive).
// After a trap the engine goes back into open loop, finishing the trapped
// tick by itself, as long as the task left nothing for the end of that tick
// ($strobe output, $finish, $save, ...); otherwise the host finishes the tick.
// Advances nextTick past every completed tick.
bool TickDriver::runOpenLoop(uint64_t& nextTick, uint64_t limit) {
  auto batch = [&](uint64_t from) {
    return static_cast<uint32_t>(std::min<uint64_t>(limit - from, openLoopBatch_));
  };
  // The timeline counts ticks as the run gets past them: a design that
  // traps every tick (a streaming read) stays in the loop below for its
  // whole run, and its ticks/s would otherwise show only at the end.
  uint64_t shown = nextTick;
  auto showTicksBefore = [&](uint64_t tick) {
    progress_.ticks.store(progress_.ticks.load(std::memory_order_relaxed) + (tick - shown),
                          std::memory_order_relaxed);
    shown = tick;
  };
  uint32_t ticksRun = 0;
  uint32_t task = engine_.openLoop(batch(nextTick), kMaxEdgesPerTick, ticksRun);
  if (task == 0) {
    nextTick += ticksRun;
    showTicksBefore(nextTick);
    return true;
  }
  // The tick the trap is in: the last one the run started.
  uint64_t current = nextTick + std::max<uint32_t>(ticksRun, 1) - 1;
  // Each trap costs an edge of the tick it stops: a tick trapping forever
  // is as unsettled as one spinning inside the engine.
  uint64_t budget = kMaxEdgesPerTick;
  do {
    if (task == SYNERGY_ENGINE_UNSETTLED || !spendEdge(budget))
      return unsettled(current);
    servicer_.setTime(current * manifest_.halfPeriod);
    progress_.addTask();
    if (!servicer_.service(task, error_))
      return false;
    flushWaitingStdout();
    if (!servicer_.endOfTickIsIdle()) {
      engine_.resume();
      if (!settle(current))
        return false;
      servicer_.endOfTick();
      nextTick = current + 1;
      showTicksBefore(nextTick);
      return true;
    }
    // The resumed run finishes tick `current` and starts ticksRun more.
    task = engine_.openLoop(batch(current + 1), kMaxEdgesPerTick, ticksRun);
    if (ticksRun > 0)
      budget = kMaxEdgesPerTick;
    current += ticksRun;
    showTicksBefore(current);
    // A design that traps every tick would otherwise stay in here; the run
    // ends at the time limit, so the pending task is left unserviced.
  } while (task != 0 && !timeIsUp());
  nextTick = current + 1;
  showTicksBefore(nextTick);
  return true;
}

// Every variable a state file holds: user and compiler registers and inputs,
// minus the volatile ones under $yield. Nets are recomputed from them.
std::vector<SavedVariable> TickDriver::savableShape() const {
  std::vector<SavedVariable> shape;
  for (const auto& state : manifest_.states) {
    if (state.kind == StateKind::Wire || !state.nonVolatile)
      continue;
    SavedVariable variable;
    variable.name = state.name;
    variable.width = state.width;
    variable.depth = state.depth;
    shape.push_back(std::move(variable));
  }
  return shape;
}

bool TickDriver::save(const std::string& path, uint64_t tick, bool pathIsGuestFile) {
  SavedState state;
  state.tick = tick;
  state.randomSeed = servicer_.randomSeed;
  state.urandomSeed = servicer_.urandomSeed;
  state.files = files_.records();
  TaskServicer::MonitorState monitor = servicer_.monitorState();
  state.monitorTask = monitor.taskId;
  state.monitorOn = monitor.on;
  state.monitorValues = monitor.lastValues;
  state.variables = savableShape();
  size_t next = 0;
  for (const auto& stateVar : manifest_.states) {
    if (stateVar.kind == StateKind::Wire || !stateVar.nonVolatile)
      continue;
    SavedVariable& variable = state.variables[next++];
    uint64_t count = stateVar.depth == 0 ? 1 : stateVar.depth;
    for (uint64_t element = 0; element < count; ++element)
      variable.elements.push_back(engine_.getState(stateVar.id, element, stateVar.width, false));
  }
  state.designSignature = designSignature(state.variables);
  if (!pathIsGuestFile)
    return writeSavedState(path, state, error_);
  return files_.writeGuestFile(path, serializeSavedState(state), error_);
}

// The monitor record must name a $monitor of this design, and its values
// must have the form endOfTick writes for it: one minimal hex number and a
// comma per value argument. Anything else could make a restart print what
// the design never would.
bool TickDriver::checkRestoredMonitor(const SavedState& state) {
  if (!state.monitorTask)
    return true;
  const hwlower::Task* monitor = manifest_.findTask(state.monitorTask);
  if (!monitor || monitor->name != "$monitor") {
    error_ = "state file names a $monitor this design does not have";
    return false;
  }
  const std::string& values = state.monitorValues;
  size_t pos = 0;
  for (const auto& arg : monitor->args) {
    if (arg.kind != hwlower::TaskArgKind::Value)
      continue;
    size_t comma = values.find(',', pos);
    bool wellFormed = comma != std::string::npos && comma > pos && comma - pos <= (std::max<uint32_t>(arg.width, 1) + 3) / 4;
    for (size_t k = pos; wellFormed && k < comma; ++k)
      wellFormed = std::isdigit(static_cast<unsigned char>(values[k])) || (values[k] >= 'a' && values[k] <= 'f');
    if (!wellFormed) {
      error_ = "state file's $monitor values are not ones this design prints";
      return false;
    }
    pos = comma + 1;
  }
  if (pos != values.size()) {
    error_ = "state file's $monitor values are not ones this design prints";
    return false;
  }
  return true;
}

// Checks the whole file against this design, the grants and the tick limit
// before touching the engine: restoring must do nothing running could not.
std::optional<uint64_t> TickDriver::restore(const std::string& path, bool pathIsGuestFile) {
  std::optional<SavedState> state;
  if (pathIsGuestFile) {
    int error = 0;
    auto text = files_.readGuestFile(path, error);
    if (!text)
      error_ = "cannot read state file '" + path + "': " + sandbox::GrantTable::describeError(error);
    else if (!(state = parseSavedState(*text, error_)))
      error_ = path + ": " + error_;
  } else {
    state = readSavedState(path, error_);
  }
  if (!state)
    return std::nullopt;
  if (state->designSignature != designSignature(savableShape())) {
    error_ = path + ": state file was saved from a different design (variables do not match)";
    return std::nullopt;
  }
  std::vector<SavedVariable> shape = savableShape();
  for (size_t k = 0; k < shape.size(); ++k) {
    const SavedVariable& saved = state->variables[k];
    if (saved.name != shape[k].name || saved.width != shape[k].width || saved.depth != shape[k].depth) {
      error_ = path + ": state file variable " + saved.name + " does not match the design";
      return std::nullopt;
    }
  }
  if (state->tick == UINT64_MAX || (options_.maxTicks && state->tick >= *options_.maxTicks)) {
    error_ = path + ": state file tick " + std::to_string(state->tick) + " is beyond --max-ticks";
    return std::nullopt;
  }
  if (!checkRestoredMonitor(*state)) {
    error_ = path + ": " + error_;
    return std::nullopt;
  }
  if (!files_.restore(state->files, error_)) {
    error_ = path + ": " + error_;
    return std::nullopt;
  }
  size_t next = 0;
  for (const auto& stateVar : manifest_.states) {
    if (stateVar.kind == StateKind::Wire || !stateVar.nonVolatile)
      continue;
    const SavedVariable& variable = state->variables[next++];
    for (size_t element = 0; element < variable.elements.size(); ++element)
      engine_.setState(stateVar.id, element, variable.elements[element]);
  }
  servicer_.randomSeed = state->randomSeed;
  servicer_.urandomSeed = state->urandomSeed;
  servicer_.restoreMonitor({state->monitorTask, state->monitorOn, state->monitorValues});
  return state->tick;
}

int TickDriver::run() {
  const std::string& where = options_.enginePath;
  uint64_t nextTick = 0;
  if (!romFilesUnchanged())
    return fail(where + ": error: " + error_);
  if (!options_.restartPath.empty()) {
    auto savedTick = restore(options_.restartPath, /*pathIsGuestFile=*/false);
    if (!savedTick)
      return fail(where + ": error: cannot restart: " + error_);
    nextTick = *savedTick + 1;
  }
  std::optional<std::string> pendingSave;
  bool pendingSaveIsGuestFile = true;
  bool pendingSaveStops = false;
  for (;;) {
    if (timeIsUp()) {
      files_.flushAll();
      std::fprintf(stderr, "%s: time limit exceeded after %llu ticks (--time-limit)\n",
                   where.c_str(), static_cast<unsigned long long>(nextTick));
      return kTimeLimitExitStatus;
    }
    if (options_.maxTicks && nextTick >= *options_.maxTicks) {
      files_.flushAll();
      std::fprintf(stderr, "%s: stopped after %llu ticks (--max-ticks)\n", where.c_str(),
                   static_cast<unsigned long long>(nextTick));
      return 2;
    }
    uint64_t completed;
    bool hostOnly = nextTick == 0 || !options_.openLoop || servicer_.monitorActive() || pendingSave ||
                    manifest_.clockId == kNoState;
    uint64_t limit = options_.maxTicks.value_or(UINT64_MAX);
    if (options_.saveAtTick && *options_.saveAtTick >= nextTick)
      limit = std::min(limit, *options_.saveAtTick);
    if (handOff_ && handOff_->pending && options_.switchAtTick && *options_.switchAtTick >= nextTick)
      limit = std::min(limit, *options_.switchAtTick);
    uint64_t before = nextTick;
    if (!hostOnly && limit > nextTick && !runOpenLoop(nextTick, limit))
      return fail(error_);
    if (nextTick != before) {
      completed = nextTick - 1;  // runOpenLoop counted them for the timeline
    } else {
      // Host-driven tick; also when the engine's open loop made no progress.
      if (!runTick(nextTick))
        return fail(error_);
      completed = nextTick++;
      progress_.ticks.store(progress_.ticks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }

    ticksCompleted_ = completed + 1;
    flushWaitingStdout();
    if (servicer_.runEnd() != RunEnd::None) {
      files_.flushAll();
      return 0;
    }
    bool yielded = servicer_.takeYield();
    if (auto request = servicer_.takeSaveRequest()) {
      pendingSave = request;
      pendingSaveIsGuestFile = true;
    }
    if (options_.saveAtTick && completed == *options_.saveAtTick) {
      pendingSave = options_.saveAtTickPath;
      pendingSaveIsGuestFile = false;
      pendingSaveStops = true;
    }
    if (pendingSave && (!manifest_.usesYield || yielded)) {
      if (!save(*pendingSave, completed, pendingSaveIsGuestFile))
        return fail(where + ": error: " + error_);
      pendingSave.reset();
      if (pendingSaveStops) {
        files_.flushAll();
        return 0;
      }
    }
    if (auto request = servicer_.takeRestartRequest()) {
      files_.flushAll();
      auto savedTick = restore(*request, /*pathIsGuestFile=*/true);
      if (!savedTick)
        return fail(where + ": error: cannot restart: " + error_);
      nextTick = *savedTick + 1;
    }
    if (handOff_ && handOff_->pending)
      handOffIfReady(completed);
    if (manifest_.clockId == kNoState) {
      files_.flushAll();
      return 0;
    }
  }
}

// At the end of a tick, once the compiled engine is built (or, under
// --switch-at-tick, at that tick, waiting for the build): load it, copy
// every state variable into it through the state-access port, and put it
// behind engine_, so the TaskServicer and the rest of the run use it. The
// engine is between ticks here: no pass running, no task pending, no update
// to latch, so the manifest's variables are its whole state. A build that
// fails leaves the run on the software engine, with a note.
void TickDriver::handOffIfReady(uint64_t completed) {
  if (options_.switchAtTick ? completed < *options_.switchAtTick : !handOff_->child.ready())
    return;
  handOff_->pending = false;
  DetachedEngineBuild::Result built = handOff_->child.take();
  std::string error = built.error;
  std::unique_ptr<EngineInstance> compiled;
  if (built.object)
    compiled = EngineInstance::load(*built.object, engine_.callCounter(), error);
  if (!compiled) {
    std::fprintf(stderr, "synergy-run: note: %s: staying on the software engine: %s\n", options_.enginePath.c_str(),
                 error.c_str());
    return;
  }
  auto start = Clock::now();
  for (const auto& state : manifest_.states) {
    if (state.kind == StateKind::Wire)
      continue;
    uint64_t count = state.depth == 0 ? 1 : state.depth;
    for (uint64_t element = 0; element < count; ++element)
      compiled->setState(state.id, element, engine_.getState(state.id, element, state.width, false));
  }
  engine_.swapEngines(*compiled);
  handOff_->switchedAfterTick = completed;
  handOff_->switchSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  progress_.engine.store("compiled", std::memory_order_relaxed);
  if (timeline_)
    timeline_->recordNow();
}

}  // namespace

std::optional<uint64_t> designStateBytes(const hwlower::EngineManifest& manifest) {
  uint64_t total = 0;
  for (const auto& state : manifest.states) {
    uint64_t elementBytes = (uint64_t(state.width) + 7) / 8;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(elementBytes, std::max<uint64_t>(state.depth, 1), &bytes) ||
        __builtin_add_overflow(total, bytes, &total))
      return std::nullopt;
  }
  return total;
}

int runEngineFile(const EngineRunOptions& options) {
  std::string error;
  auto manifest = hwlower::readEngineFile(options.enginePath, error);
  if (!manifest) {
    std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
    return 2;
  }
  // Verilator turns parts of its input into host code: only Verilog our own
  // emitter could have written may reach it.
  if (auto refused = checkEmittedVerilog(manifest->verilog)) {
    std::fprintf(stderr, "synergy-run: error: %s: refusing its Verilog: %s\n", options.enginePath.c_str(),
                 refused->c_str());
    return 2;
  }
  if (options.maxStateBytes) {
    std::optional<uint64_t> stateBytes = designStateBytes(*manifest);
    if (!stateBytes || *stateBytes > *options.maxStateBytes) {
      std::string size = stateBytes ? std::to_string(*stateBytes) + " bytes" : "over 2^64 bytes";
      std::fprintf(stderr, "synergy-run: error: %s: the design's state needs %s, more than --max-memory (%llu bytes)\n",
                   options.enginePath.c_str(), size.c_str(),
                   static_cast<unsigned long long>(*options.maxStateBytes));
      return 2;
    }
  }
  // Auto starts on the compiled engine when it is cached, else on the
  // software engine with the build running alongside; a design the software
  // engine refuses waits for the build, as --engine compiled does.
  // The counter is declared before the engines, which step it until they
  // are gone.
  EngineCallCounter engineCalls;
  std::unique_ptr<EngineInstance> softwareEngine;
  std::optional<CompiledEngineBuild> build;
  if (options.remoteEngine && options.engine != EngineChoice::Compiled) {
    std::fprintf(stderr, "synergy-run: error: --hypervisor runs the compiled engine only; drop --engine\n");
    return 2;
  }
  // The timeline's file is opened first: a bad path ends the run before
  // a build is started.
  TimelineCounters progress;
  std::unique_ptr<Timeline> timeline;
  if (!options.timelinePath.empty() && !(timeline = Timeline::open(options.timelinePath, progress, error))) {
    std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
    return 2;
  }
  if (options.engine != EngineChoice::Compiled) {
    // Compiling for the software engine takes milliseconds, so auto tries
    // it even when the compiled engine is cached: a refusal is reported
    // the same way on every run.
    std::string refusal;
    softwareEngine = createSoftwareEngine(manifest->verilog, engineCalls, refusal);
    if (!softwareEngine && options.engine == EngineChoice::Software) {
      std::fprintf(stderr, "synergy-run: error: %s: the software engine cannot run this design: %s\n",
                   options.enginePath.c_str(), refusal.c_str());
      return 2;
    }
    if (!softwareEngine)
      std::fprintf(stderr,
                   "synergy-run: note: %s: the software engine cannot run this design (%s); waiting for the "
                   "compiled engine\n",
                   options.enginePath.c_str(), refusal.c_str());
    bool cached = softwareEngine && options.engine == EngineChoice::Auto && !options.switchAtTick &&
                  findCachedEngineSharedObject(manifest->verilog);
    if (cached)
      softwareEngine.reset();
    // The build process is started before the timeline's and the
    // watchdog's threads exist, so that it is a copy of a single-threaded
    // process.
    if (softwareEngine && options.engine == EngineChoice::Auto) {
      auto child = DetachedEngineBuild::start(manifest->verilog, error);
      if (!child) {
        std::fprintf(stderr, "synergy-run: error: %s: %s\n", options.enginePath.c_str(), error.c_str());
        return 1;
      }
      build.emplace(std::move(*child));
    }
  }
  // The timeline samples before the engine is built here (--engine
  // compiled, or a design the software engine refuses), so that it shows
  // the wait.
  if (timeline)
    timeline->startSampling();
  // Declared before the engine, which steps the counter until it is gone.
  EvaluationWatchdog watchdog(engineCalls, options.enginePath, options.evaluationLimit);
  std::vector<sandbox::Grant> grants = options.grants;
  if (grants.empty())
    grants.push_back({".", ".", /*readOnly=*/false});
  auto grantTable = sandbox::GrantTable::open(grants, error);
  if (!grantTable) {
    std::fprintf(stderr, "synergy-run: error: %s\n", error.c_str());
    return 2;
  }
  // Declared before the engine, which may read ahead in them (a remote one).
  FileTable files(std::move(*grantTable));
  std::unique_ptr<EngineInstance> engine = std::move(softwareEngine);
  bool software = engine != nullptr;
  if (options.remoteEngine) {
    // A hypervisor that cannot be reached or refuses the engine ends the
    // run before its first tick, as a lost one does later (RemoteEngine.h).
    engine = options.remoteEngine(*manifest, engineCalls, files, progress, error);
    if (!engine) {
      std::fprintf(stderr, "synergy-run: error: %s: %s\n", options.enginePath.c_str(), error.c_str());
      return 2;
    }
  }
  if (!engine) {
    auto sharedObject = buildEngineSharedObject(manifest->verilog, error);
    if (!sharedObject) {
      std::fprintf(stderr, "%s: error: %s\n", options.enginePath.c_str(), error.c_str());
      return 1;
    }
    engine = EngineInstance::load(*sharedObject, engineCalls, error);
    if (!engine) {
      std::fprintf(stderr, "%s: error: %s\n", options.enginePath.c_str(), error.c_str());
      return 1;
    }
  }
  progress.engine.store(software ? "software" : "compiled", std::memory_order_relaxed);
  TickDriver driver(options, *manifest, *engine, files, progress);
  if (build)
    driver.setHandOff(&*build);
  if (options.remoteEngine)
    driver.setOpenLoopBatch(kRemoteOpenLoopBatch);
  driver.setTimeline(timeline.get());
  auto start = std::chrono::steady_clock::now();
  if (options.timeLimit) {
    driver.setDeadline(start + *options.timeLimit);
    watchdog.setDeadline(start + *options.timeLimit);
  }
  int status = driver.run();
  // SYNERGY_ENGINE_STATS=1: one line for bench/verilog, on stderr so the
  // program's own output stays comparable with vvp's.
  if (const char* stats = std::getenv("SYNERGY_ENGINE_STATS"); stats && *stats == '1') {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string engineUsed = options.remoteEngine ? "hypervisor" : !software ? "compiled" : build && build->switchedAfterTick ? "software+compiled" : "software";
    std::fprintf(stderr, "synergy-engine-stats ticks=%llu tasks=%llu seconds=%.6f engine=%s",
                 static_cast<unsigned long long>(driver.ticksCompleted()),
                 static_cast<unsigned long long>(progress.tasks.load(std::memory_order_relaxed)), seconds, engineUsed.c_str());
    if (build && build->switchedAfterTick)
      std::fprintf(stderr, " switch-after-tick=%llu switch-seconds=%.6f",
                   static_cast<unsigned long long>(*build->switchedAfterTick), build->switchSeconds);
    // The run ended while the compiled engine was still being built, and
    // left the build to finish on its own.
    if (build && build->pending && !build->child.ready())
      std::fprintf(stderr, " build=detached build-pid=%lld", static_cast<long long>(build->child.pid()));
    std::fprintf(stderr, "\n");
  }
  return status;
}

bool isEngineFile(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".eng") == 0;
}

static bool parseCount(const std::string& text, uint64_t& value) {
  char* end = nullptr;
  value = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && text[0] != '-' && *end == 0;
}

int runEngineCommandLine(const std::vector<std::string>& args, RemoteEngineFactory remoteEngine) {
  EngineRunOptions options;
  options.remoteEngine = std::move(remoteEngine);
  bool engineGiven = false;
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "synergy-run: error: %s\n", message.c_str());
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto needs = [&](size_t count) { return i + count < args.size(); };
    uint64_t count = 0;
    if (arg == "--dir" && needs(1)) {
      std::string error;
      std::optional<sandbox::Grant> grant = sandbox::parseGrant(args[++i], error);
      if (!grant)
        return fail("--dir: " + error);
      if (access(grant->hostPath.c_str(), F_OK) != 0)
        return fail("--dir: no such directory: " + grant->hostPath);
      options.grants.push_back(*grant);
    } else if (arg == "--max-ticks" && needs(1)) {
      if (!parseCount(args[++i], count))
        return fail("--max-ticks expects a tick count, got '" + args[i] + "'");
      options.maxTicks = count;
    } else if (arg == "--save-at-tick" && needs(2)) {
      if (!parseCount(args[++i], count))
        return fail("--save-at-tick expects a tick count, got '" + args[i] + "'");
      options.saveAtTick = count;
      options.saveAtTickPath = args[++i];
    } else if (arg == "--restart" && needs(1)) {
      options.restartPath = args[++i];
    } else if (arg == "--no-open-loop") {
      options.openLoop = false;
    } else if (arg == "--max-memory" && needs(1)) {
      std::string error;
      options.maxStateBytes = util::parseByteCount(args[++i], arg, error);
      if (!options.maxStateBytes)
        return fail(error);
    } else if (arg == "--time-limit" && needs(1)) {
      std::string error;
      options.timeLimit = util::parseSeconds(args[++i], arg, error);
      if (!options.timeLimit)
        return fail(error);
    } else if (arg == "--eval-limit" && needs(1)) {
      std::string error;
      std::optional<std::chrono::nanoseconds> limit = util::parseSeconds(args[++i], arg, error);
      if (!limit)
        return fail(error);
      options.evaluationLimit = *limit;
    } else if (arg == "--engine" && needs(1)) {
      const std::string& choice = args[++i];
      if (choice == "compiled")
        options.engine = EngineChoice::Compiled;
      else if (choice == "software")
        options.engine = EngineChoice::Software;
      else if (choice == "auto")
        options.engine = EngineChoice::Auto;
      else
        return fail("--engine expects compiled, software or auto, got '" + choice + "'");
      engineGiven = true;
    } else if (arg == "--timeline" && needs(1)) {
      options.timelinePath = args[++i];
    } else if (arg == "--switch-at-tick" && needs(1)) {
      if (!parseCount(args[++i], count))
        return fail("--switch-at-tick expects a tick count, got '" + args[i] + "'");
      options.switchAtTick = count;
    } else if (arg.size() > 1 && arg[0] == '+') {
      options.plusargs.push_back(arg.substr(1));
    } else if (arg.size() > 1 && arg[0] == '-') {
      return fail("unknown or incomplete option '" + arg + "' for an engine (see --help)");
    } else if (options.enginePath.empty()) {
      options.enginePath = arg;
    } else {
      return fail("unexpected argument '" + arg + "' after " + options.enginePath);
    }
  }
  if (options.enginePath.empty())
    return fail("no engine file given");
  if (options.switchAtTick) {
    if (engineGiven && options.engine != EngineChoice::Auto)
      return fail("--switch-at-tick needs --engine auto");
    options.engine = EngineChoice::Auto;
  }
  // A hypervisor's tenant runs on the compiled engine it builds there.
  if (options.remoteEngine && !engineGiven)
    options.engine = EngineChoice::Compiled;
  if (access(options.enginePath.c_str(), F_OK) != 0)
    return fail("no such file: " + options.enginePath);
  return runEngineFile(options);
}

}  // namespace synergy::engine
