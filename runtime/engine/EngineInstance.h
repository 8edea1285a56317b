//===- EngineInstance.h - a loaded engine shared object --------------------===//
//
// The runtime's handle on one engine: the entry points of EngineAbi.h found
// in a built shared object, plus whole-value state access on top of the
// 64-bit-word state port (a variable of width w spans ceil(w/64) words).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/BitValue.h"
#include "engine/EngineAbi.h"

namespace synergy::engine {

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
  // Loads the object and creates a fresh engine; nullptr and `error` on failure.
  static std::unique_ptr<EngineInstance> load(const std::string& sharedObjectPath, std::string& error);
  // Takes ownership of `engine`, driven through `entryPoints`.
  static std::unique_ptr<EngineInstance> adopt(SynergyEngine* engine, const EngineEntryPoints& entryPoints);
  ~EngineInstance();  // finalize, then unload
  // Exchanges the engines behind two instances, so that everything holding
  // a reference to this one (the TaskServicer) drives the other's engine
  // from now on: the hand-off from the software to the compiled engine.
  void swapEngines(EngineInstance& other);
  EngineInstance(const EngineInstance&) = delete;
  EngineInstance& operator=(const EngineInstance&) = delete;

  BitValue getState(uint32_t id, uint64_t element, uint32_t width, bool isSigned);
  void setState(uint32_t id, uint64_t element, const BitValue& value);
  // The first 64-bit word alone, for variables of at most 64 bits: file
  // descriptors and task results, on every trap, without a BitValue.
  uint64_t getWord(uint32_t id, uint64_t element) {
    return getState_(engine_, id, static_cast<uint32_t>(element), 0);
  }
  void setWord(uint32_t id, uint64_t element, uint64_t bits) {
    setState_(engine_, id, static_cast<uint32_t>(element), 0, bits);
  }

  // Returns the trapped task id, or 0 once the engine is quiescent.
  uint32_t evaluate(uint64_t& edgeBudget) { return evaluate_(engine_, &edgeBudget); }
  void resume() { resume_(engine_); }
  void update() { update_(engine_); }
  bool thereAreUpdates() { return thereAreUpdates_(engine_) != 0; }
  uint32_t openLoop(uint32_t ticks, uint64_t edgesPerTick, uint32_t& ticksRun) {
    return openLoop_(engine_, ticks, edgesPerTick, &ticksRun);
  }

 private:
  EngineInstance() = default;

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
