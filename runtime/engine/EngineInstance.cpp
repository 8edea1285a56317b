//===- EngineInstance.cpp - a loaded engine shared object ------------------===//
#include "engine/EngineInstance.h"

#include <dlfcn.h>

#include <utility>

namespace synergy::engine {

template <typename Fn>
static bool findSymbol(void* library, const char* name, Fn& out, std::string& error) {
  out = reinterpret_cast<Fn>(dlsym(library, name));
  if (!out)
    error = std::string("engine object lacks ") + name;
  return out != nullptr;
}

std::unique_ptr<EngineInstance> EngineInstance::load(const std::string& sharedObjectPath, EngineCallCounter& calls,
                                                     std::string& error) {
  // RTLD_LOCAL: each engine keeps its own Verilator globals.
  void* library = dlopen(sharedObjectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = std::string("cannot load engine: ") + dlerror();
    return nullptr;
  }
  std::unique_ptr<EngineInstance> instance(new EngineInstance(calls));
  instance->library_ = library;
  SynergyEngineAbiVersionFn version = nullptr;
  SynergyEngineCreateFn create = nullptr;
  bool found = findSymbol(library, "synergy_engine_abi_version", version, error) &&
               findSymbol(library, "synergy_engine_create", create, error) &&
               findSymbol(library, "synergy_engine_finalize", instance->finalize_, error) &&
               findSymbol(library, "synergy_engine_get_state", instance->getState_, error) &&
               findSymbol(library, "synergy_engine_set_state", instance->setState_, error) &&
               findSymbol(library, "synergy_engine_evaluate", instance->evaluate_, error) &&
               findSymbol(library, "synergy_engine_resume", instance->resume_, error) &&
               findSymbol(library, "synergy_engine_update", instance->update_, error) &&
               findSymbol(library, "synergy_engine_there_are_updates", instance->thereAreUpdates_, error) &&
               findSymbol(library, "synergy_engine_open_loop", instance->openLoop_, error);
  if (!found)
    return nullptr;
  if (version() != SYNERGY_ENGINE_ABI_VERSION) {
    error = "engine object was built for ABI version " + std::to_string(version());
    return nullptr;
  }
  // Creation runs the design's initial blocks.
  CallInProgress call(calls);
  instance->engine_ = create();
  return instance;
}

std::unique_ptr<EngineInstance> EngineInstance::adopt(util::FunctionRef<SynergyEngine*()> create,
                                                      const EngineEntryPoints& entryPoints, EngineCallCounter& calls) {
  std::unique_ptr<EngineInstance> instance(new EngineInstance(calls));
  instance->finalize_ = entryPoints.finalize;
  instance->getState_ = entryPoints.getState;
  instance->setState_ = entryPoints.setState;
  instance->evaluate_ = entryPoints.evaluate;
  instance->resume_ = entryPoints.resume;
  instance->update_ = entryPoints.update;
  instance->thereAreUpdates_ = entryPoints.thereAreUpdates;
  instance->openLoop_ = entryPoints.openLoop;
  CallInProgress call(calls);
  instance->engine_ = create();
  return instance;
}

void EngineInstance::swapEngines(EngineInstance& other) {
  std::swap(library_, other.library_);
  std::swap(engine_, other.engine_);
  std::swap(finalize_, other.finalize_);
  std::swap(getState_, other.getState_);
  std::swap(setState_, other.setState_);
  std::swap(evaluate_, other.evaluate_);
  std::swap(resume_, other.resume_);
  std::swap(update_, other.update_);
  std::swap(thereAreUpdates_, other.thereAreUpdates_);
  std::swap(openLoop_, other.openLoop_);
}

EngineInstance::~EngineInstance() {
  if (engine_) {
    CallInProgress call(*calls_);  // runs the design's final blocks
    finalize_(engine_);
  }
  if (library_)
    dlclose(library_);
}

BitValue EngineInstance::getState(uint32_t id, uint64_t element, uint32_t width, bool isSigned) {
  BitValue value = BitValue::zero(width, isSigned);
  for (uint32_t word = 0; word * 64 < width; ++word) {
    uint64_t bits = readWord(id, element, word);
    value.words[word * 2] = static_cast<uint32_t>(bits);
    if (word * 2 + 1 < value.words.size())
      value.words[word * 2 + 1] = static_cast<uint32_t>(bits >> 32);
  }
  value.normalize();
  return value;
}

void EngineInstance::setState(uint32_t id, uint64_t element, const BitValue& value) {
  for (uint32_t word = 0; word * 64 < value.width; ++word) {
    uint64_t bits = value.words[word * 2];
    if (word * 2 + 1 < value.words.size())
      bits |= static_cast<uint64_t>(value.words[word * 2 + 1]) << 32;
    writeWord(id, element, word, bits);
  }
}

}  // namespace synergy::engine
