//===- SoftwareCompiler.h - emitted Verilog -> software engine program -----===//
//
// Compiles the `synergy_engine` module of an .eng file, the same text the
// compiled engine gets from Verilator, into a SoftwareProgram. The text has
// passed checkEmittedVerilog already; this parser still checks every token
// it consumes, bounds nesting depth, widths (kMaxWideWidth) and storage,
// and refuses by name what it cannot run (a construct outside EmitVerilog's
// subset), so the runtime can wait for the compiled engine.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/SoftwareProgram.h"

namespace synergy::engine::software {

// nullptr and a one-line `refusal` ("line N: ...") when it cannot be compiled.
std::shared_ptr<const Program> compileSoftwareProgram(std::string_view verilog, std::string& refusal);

}  // namespace synergy::engine::software
