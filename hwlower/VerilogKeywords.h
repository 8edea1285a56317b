//===- VerilogKeywords.h - Reserved words of Verilog and SystemVerilog ----===//
//
// The frontend mangles every user name into a plain identifier, and the
// runtime checks that an engine's Verilog holds only such identifiers. Both
// need to know which plain identifiers are reserved: Verilator parses the
// emitted module as SystemVerilog, so a user signal escaped as `\begin ` or
// named `bind` must never come out as that keyword. Both also need the one
// list of system functions the emitted Verilog may call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string_view>

namespace synergy::hwlower {

// Whether `word` is a keyword of IEEE 1364-2005 or IEEE 1800-2017.
bool isVerilogKeyword(std::string_view word);

// Whether `name` is a system function of reals that the emitted Verilog
// computes itself instead of trapping ($realtobits, $sqrt, ...): Verilator and
// vvp both evaluate them with the C library. The frontend emits exactly these,
// and the runtime's check of an engine's Verilog accepts exactly these.
bool isInlineRealSystemFunction(std::string_view name);

}  // namespace synergy::hwlower
