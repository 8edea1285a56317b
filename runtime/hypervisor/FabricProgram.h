//===- FabricProgram.h - a loaded combined program -------------------------===//
//
// The hypervisor's handle on one built combined program (CombinedProgram.h):
// the shared object, the one Verilator model in it, and an EngineInstance
// per slot, so that the fabric thread serves a tenant from a slot exactly as
// it serves one from a solo engine. Whoever holds a slot's instance holds the
// program too (a shared_ptr declared before the instance), so a program is
// finalized and unloaded once its last engine has moved on or left.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/EngineInstance.h"

namespace synergy::hypervisor {

class FabricProgram {
 public:
  // Loads the object and creates every slot's engine after reset; nullptr
  // and `error` unless it is a combined program with exactly `slots` slots.
  static std::shared_ptr<FabricProgram> load(const std::string& sharedObjectPath, uint32_t slots,
                                             std::string& error);
  ~FabricProgram();
  FabricProgram(const FabricProgram&) = delete;
  FabricProgram& operator=(const FabricProgram&) = delete;

  uint32_t slots() const { return slots_; }
  // The engine in `slot` (< slots()), driven through an instance whose
  // calls step `calls`; the program must outlive it. Destroying it leaves
  // the slot's engine as it is, for the program's finalization.
  std::unique_ptr<engine::EngineInstance> adoptSlot(uint32_t slot, engine::EngineCallCounter& calls);

 private:
  FabricProgram() = default;

  void* library_ = nullptr;
  struct SynergyFabric* fabric_ = nullptr;
  uint32_t slots_ = 0;
  void (*finalizeFabric_)(struct SynergyFabric*) = nullptr;
  SynergyEngine* (*slotEngine_)(struct SynergyFabric*, uint32_t) = nullptr;
  engine::EngineEntryPoints entryPoints_{};
};

}  // namespace synergy::hypervisor
