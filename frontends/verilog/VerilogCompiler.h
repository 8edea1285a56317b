//===- VerilogCompiler.h - Compile Verilog sources into an engine file ----===//
//
// The one entry point synergy-cc and synergy-hwc use for .v/.sv inputs. It
// runs Icarus (`iverilog -B<dir> -tsynergy`) with Synergy's loadable target,
// which elaborates, lowers and writes the .eng file. Icarus diagnostics pass
// through unchanged (file:line), and any failure returns non-zero with no
// output file written.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace synergy::verilog {

struct VerilogCompileOptions {
  std::vector<std::string> inputs;       // .v / .sv files
  std::vector<std::string> includeDirs;  // -I
  std::vector<std::string> defines;      // -D NAME or NAME=VALUE
  std::string top;                       // -top NAME (empty: Icarus picks the root)
  std::string output;                    // the .eng file
  std::string emitVerilog;               // optional: also write the engine's Verilog here
  std::string ivlDir;                    // the -B directory; empty: next to the executable
};

int compileVerilog(const VerilogCompileOptions& options);

// Parses a hardware-compiler command line (argv without the program name):
//   [-I dir] [-D NAME[=VALUE]] [-top NAME] files.v|.sv... [-o out.eng]
//   [--emit-verilog out.v]
// Returns false with a one-line `error` on an unknown option or a missing value.
bool parseVerilogCommandLine(const std::vector<std::string>& args, VerilogCompileOptions& options,
                             std::string& error);

// Whether `path` names a Verilog source (.v, .sv, .vh, .svh).
bool isVerilogSource(const std::string& path);

// The -B directory installed with the tools: <exe>/../lib/synergy/ivl, or
// $SYNERGY_IVL_DIR when set.
std::string defaultIvlDir();

}  // namespace synergy::verilog
