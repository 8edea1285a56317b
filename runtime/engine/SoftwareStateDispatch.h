//===- SoftwareStateDispatch.h - jump to the state a tick is in ------------===//
//
// EmitVerilog lowers a design's processes to a state machine whose edge is
// one long run of `if (__task_r == 0 && __state == K) begin ... end`, K
// increasing, so that a state may fall through to a later one in the same
// edge. Tested one by one, the guards cost more than the states' bodies.
// formStateDispatch replaces each such run in the clocked blocks by one
// Dispatch statement that looks the state up in a table instead, with the
// same effect (see SoftwareProgram.h).
//
// Shared by SoftwareCompiler.cpp, which runs it last, and SoftwareEngine.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "engine/SoftwareProgram.h"

namespace synergy::engine::software {

void formStateDispatch(Program& program);

}  // namespace synergy::engine::software
