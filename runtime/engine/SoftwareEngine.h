//===- SoftwareEngine.h - run an engine without Verilator ------------------===//
//
// The software engine executes the `synergy_engine` module of an .eng file,
// the very text the compiled engine is built from, so it runs the same state
// machine with the same state ids, task traps and state-access port. It
// implements the engine ABI of EngineAbi.h, and the runtime holds it in an
// EngineInstance like a compiled one: the TaskServicer, $save/$restart and
// open loop serve both, and a run can move from one to the other at a tick
// boundary by copying every state variable across.
//
// It needs no C++ compiler, so a design starts at once; it is slower per
// tick than the Verilator build. What it cannot run (see SoftwareCompiler.h)
// it refuses by name, and the runtime then waits for the compiled engine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/EngineInstance.h"

namespace synergy::engine {

// A fresh software engine for `verilog` (after reset, like
// synergy_engine_create), or nullptr and a one-line `refusal` naming the
// construct it cannot run. Its calls step `calls`, as a loaded engine's do.
std::unique_ptr<EngineInstance> createSoftwareEngine(std::string_view verilog, EngineCallCounter& calls, std::string& refusal);

}  // namespace synergy::engine
