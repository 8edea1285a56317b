//===- EngineInstance.h - a loaded engine shared object --------------------===//
//
// The runtime's handle on one engine: the entry points of EngineAbi.h found
// in a built shared object, plus whole-value state access on top of the
// 64-bit-word state port (a variable of width w spans ceil(w/64) words).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/BitValue.h"
#include "engine/EngineAbi.h"
#include "util/FunctionRef.h"

namespace synergy::engine {

// Counts the entries into and the returns from an engine's code (its
// creation, evaluations, state accesses): odd while a call is running. One
// thread calls into the engine, so a load and a store suffice; the
// EvaluationWatchdog reads the count from another thread.
class EngineCallCounter {
 public:
  uint64_t count() const { return calls_.load(std::memory_order_relaxed); }

 private:
  friend class EngineInstance;
  void step() { calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  std::atomic<uint64_t> calls_{0};
};

// The entry points of an engine held in the runtime itself (the software
// engine), in the shape of EngineAbi.h.
struct EngineEntryPoints {
  SynergyEngineFinalizeFn finalize;
  SynergyEngineGetStateFn getState;
  SynergyEngineSetStateFn setState;
  SynergyEngineEvaluateFn evaluate;
  SynergyEngineResumeFn resume;
  SynergyEngineUpdateFn update;
  SynergyEngineThereAreUpdatesFn thereAreUpdates;
  SynergyEngineOpenLoopFn openLoop;
};

class EngineInstance {
 public:
  // Loads the object and creates a fresh engine; nullptr and `error` on
  // failure. Every call into the engine, its creation included, steps
  // `calls`, which must outlive the instance.
  static std::unique_ptr<EngineInstance> load(const std::string& sharedObjectPath, EngineCallCounter& calls,
                                              std::string& error);
  // Creates an engine held in the runtime itself with `create`, which runs
  // the design's power-on blocks and so is a call into the engine like
  // load's creation, and drives it through `entryPoints`; its calls step
  // `calls`, as load's do.
  static std::unique_ptr<EngineInstance> adopt(util::FunctionRef<SynergyEngine*()> create,
                                               const EngineEntryPoints& entryPoints, EngineCallCounter& calls);
  ~EngineInstance();  // finalize, then unload
  // Exchanges the engines behind two instances, so that everything holding
  // a reference to this one (the TaskServicer) drives the other's engine
  // from now on: the hand-off from the software to the compiled engine.
  void swapEngines(EngineInstance& other);
  // The counter this instance's calls step, for an engine that takes over
  // from it.
  EngineCallCounter& callCounter() { return *calls_; }
  EngineInstance(const EngineInstance&) = delete;
  EngineInstance& operator=(const EngineInstance&) = delete;

  BitValue getState(uint32_t id, uint64_t element, uint32_t width, bool isSigned);
  void setState(uint32_t id, uint64_t element, const BitValue& value);
  // One 64-bit word (the first unless `word` says otherwise), for variables
  // of at most 64 bits: file descriptors and task results, on every trap,
  // without a BitValue; and for the hypervisor, which serves the state port
  // word by word.
  uint64_t getWord(uint32_t id, uint64_t element, uint32_t word = 0) { return readWord(id, element, word); }
  void setWord(uint32_t id, uint64_t element, uint64_t bits, uint32_t word = 0) {
    writeWord(id, element, word, bits);
  }

  // Returns the trapped task id, or 0 once the engine is quiescent.
  uint32_t evaluate(uint64_t& edgeBudget) {
    CallInProgress call(*calls_);
    return evaluate_(engine_, &edgeBudget);
  }
  void resume() {
    CallInProgress call(*calls_);
    resume_(engine_);
  }
  void update() {
    CallInProgress call(*calls_);
    update_(engine_);
  }
  bool thereAreUpdates() { return thereAreUpdates_(engine_) != 0; }
  uint32_t openLoop(uint32_t ticks, uint64_t edgesPerTick, uint32_t& ticksRun) {
    CallInProgress call(*calls_);
    return openLoop_(engine_, ticks, edgesPerTick, &ticksRun);
  }

 private:
  explicit EngineInstance(EngineCallCounter& calls) : calls_(&calls) {}

  class CallInProgress {
   public:
    explicit CallInProgress(EngineCallCounter& calls) : calls_(calls) { calls_.step(); }
    ~CallInProgress() { calls_.step(); }
    CallInProgress(const CallInProgress&) = delete;
    CallInProgress& operator=(const CallInProgress&) = delete;

   private:
    EngineCallCounter& calls_;
  };

  // A state access clocks the model, which runs its always blocks.
  uint64_t readWord(uint32_t id, uint64_t element, uint32_t word) {
    CallInProgress call(*calls_);
    return getState_(engine_, id, static_cast<uint32_t>(element), word);
  }
  void writeWord(uint32_t id, uint64_t element, uint32_t word, uint64_t bits) {
    CallInProgress call(*calls_);
    setState_(engine_, id, static_cast<uint32_t>(element), word, bits);
  }

  EngineCallCounter* calls_;
  void* library_ = nullptr;
  SynergyEngine* engine_ = nullptr;
  SynergyEngineFinalizeFn finalize_ = nullptr;
  SynergyEngineGetStateFn getState_ = nullptr;
  SynergyEngineSetStateFn setState_ = nullptr;
  SynergyEngineEvaluateFn evaluate_ = nullptr;
  SynergyEngineResumeFn resume_ = nullptr;
  SynergyEngineUpdateFn update_ = nullptr;
  SynergyEngineThereAreUpdatesFn thereAreUpdates_ = nullptr;
  SynergyEngineOpenLoopFn openLoop_ = nullptr;
};

}  // namespace synergy::engine
