//===- FabricProgram.cpp - a loaded combined program -----------------------===//
//
// This file implements FabricProgram.h with dlopen/dlsym, as EngineInstance
// loads a single engine: the entry points are those of
// fabric/FabricWrapper.cpp, checked for presence and ABI version before the
// model is created.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/FabricProgram.h"

#include <dlfcn.h>

namespace synergy::hypervisor {

namespace {

constexpr uint32_t kFabricAbiVersion = 1;

// A slot's engine belongs to its program, which finalizes them all at once.
void leaveSlotToProgram(SynergyEngine*) {}

}  // namespace

std::shared_ptr<FabricProgram> FabricProgram::load(const std::string& sharedObjectPath, uint32_t slots,
                                                   std::string& error) {
  std::shared_ptr<FabricProgram> program(new FabricProgram);
  program->library_ = dlopen(sharedObjectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!program->library_) {
    const char* reason = dlerror();
    error = "cannot load the combined program: " + std::string(reason ? reason : "unknown error");
    return nullptr;
  }
  bool complete = true;
  auto find = [&](auto& entry, const char* name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(program->library_, name));
    complete = complete && entry;
  };
  uint32_t (*abiVersion)(void) = nullptr;
  uint32_t (*slotCount)(void) = nullptr;
  struct SynergyFabric* (*create)(void) = nullptr;
  find(abiVersion, "synergy_fabric_abi_version");
  find(slotCount, "synergy_fabric_slots");
  find(create, "synergy_fabric_create");
  find(program->slotEngine_, "synergy_fabric_engine");
  find(program->finalizeFabric_, "synergy_fabric_finalize");
  engine::EngineEntryPoints& entry = program->entryPoints_;
  find(entry.getState, "synergy_engine_get_state");
  find(entry.setState, "synergy_engine_set_state");
  find(entry.evaluate, "synergy_engine_evaluate");
  find(entry.resume, "synergy_engine_resume");
  find(entry.update, "synergy_engine_update");
  find(entry.thereAreUpdates, "synergy_engine_there_are_updates");
  find(entry.openLoop, "synergy_engine_open_loop");
  entry.finalize = leaveSlotToProgram;
  if (!complete) {
    error = "the combined program lacks an entry point of the fabric ABI";
    return nullptr;
  }
  if (abiVersion() != kFabricAbiVersion || slotCount() != slots) {
    error = "the combined program is of another fabric ABI version or slot count";
    return nullptr;
  }
  program->slots_ = slots;
  program->fabric_ = create();
  return program;
}

FabricProgram::~FabricProgram() {
  if (fabric_)
    finalizeFabric_(fabric_);
  if (library_)
    dlclose(library_);
}

std::unique_ptr<engine::EngineInstance> FabricProgram::adoptSlot(uint32_t slot, engine::EngineCallCounter& calls) {
  return engine::EngineInstance::adopt([&] { return slotEngine_(fabric_, slot); }, entryPoints_, calls);
}

}  // namespace synergy::hypervisor
