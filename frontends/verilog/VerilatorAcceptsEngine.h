//===- VerilatorAcceptsEngine.h - Verilator must accept the engine -------===//
//
// Internal to the Icarus target (synergy.tgt). The runtime builds an engine
// by running Verilator on the emitted module; a module Verilator rejects
// would otherwise compile without complaint and fail only at run time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "hwlower/HwIr.h"

namespace synergy::verilog {

// Runs Verilator as the runtime's engine build does (C++ generation only)
// on Design::verilog. Reports each Verilator error at the source statement
// its emitted line came from, and returns false on any.
bool checkVerilatorAcceptsEngine(const hwlower::Design& design, hwlower::Diagnostics& diags);

}  // namespace synergy::verilog
