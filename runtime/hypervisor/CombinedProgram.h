//===- CombinedProgram.h - many tenants' engines as one Verilog program ---===//
//
// Spatial multiplexing (issue 21, Fig. 6 of the paper): the hypervisor runs
// every tenant's engine inside one monolithic program. This builds its
// sources from the tenants' emitted Verilog: each distinct design becomes a
// module named synergy_design_<k> (a name we make; nothing a tenant wrote
// names a module), the top module synergy_fabric instantiates it once per
// engine, in slot order, and brings each slot's engine ABI ports out as
// s<slot>_<port>; fabric/FabricWrapper.cpp serves the engine ABI for each
// slot over those ports. The slots are ordered by the designs' SHA-256, so
// one set of designs always gives the same program, byte for byte, and the
// object cache (keyed by content) then starts it without a compile, however
// the tenants came and went.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/EngineBuilder.h"

namespace synergy::hypervisor {

struct CombinedProgram {
  engine::VerilatedObjectRecipe recipe;
  // The slot of each design, in the order combineEngines was given them.
  std::vector<uint32_t> slotOfDesign;
};

// `designs` are emitted engines that passed EmittedVerilogCheck (each opens
// with the engine ABI's module header). Nullopt and `error` for one that
// does not, or for none at all.
std::optional<CombinedProgram> combineEngines(const std::vector<std::string>& designs, std::string& error);

}  // namespace synergy::hypervisor
