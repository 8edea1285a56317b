//===- EmittedVerilogCheck.h - Only our own Verilog reaches Verilator -----===//
//
// Verilator turns parts of its input into host C++: `$c(...)`, DPI imports,
// `/*verilator ...*/` metacomments, `systemc_*` and `verilator_config`
// blocks, `include. An .eng file is untrusted input, so before the runtime
// builds one, this check proves that its Verilog lies within the subset that
// hwlower/EmitVerilog.cpp produces. It is an allow-list at the lexer level:
// only the characters, identifiers, keywords, system functions, numbers and
// punctuation our emitter writes are accepted, and the module must open with
// exactly the header of hwlower/EngineManifest.h and end at its `endmodule`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace synergy::engine {

// Returns nullopt when `verilog` is within the emitted subset, otherwise a
// one-line error naming the first construct outside it and its line
// ("line 12: system function '$c' is not one synergy-cc emits").
std::optional<std::string> checkEmittedVerilog(std::string_view verilog);

}  // namespace synergy::engine
