//===- VerilogKeywords.h - Reserved words of Verilog and SystemVerilog ----===//
//
// The frontend mangles every user name into a plain identifier, and the
// runtime checks that an engine's Verilog holds only such identifiers. Both
// need to know which plain identifiers are reserved: Verilator parses the
// emitted module as SystemVerilog, so a user signal escaped as `\begin ` or
// named `bind` must never come out as that keyword.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string_view>

namespace synergy::hwlower {

// Whether `word` is a keyword of IEEE 1364-2005 or IEEE 1800-2017.
bool isVerilogKeyword(std::string_view word);

}  // namespace synergy::hwlower
