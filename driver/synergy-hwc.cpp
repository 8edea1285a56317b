//===- synergy-hwc.cpp - The hardware compiler on its own -----------------===//
//
// A thin main over compileVerilog, for testing the Verilog pipeline without
// the C driver:
//   synergy-hwc [-I dir] [-D X[=V]] [-top NAME] a.v b.v -o out.eng
//               [--emit-verilog out.v]
//
//===----------------------------------------------------------------------===//
#include <iostream>

#include "frontends/verilog/VerilogCompiler.h"

static void usage() {
  std::cerr << "usage: synergy-hwc [-I dir] [-D NAME[=VALUE]] [-top NAME] files.v... -o out.eng\n"
               "                   [--emit-verilog out.v]\n"
               "examples:\n"
               "  synergy-hwc counter.v -o counter.eng\n"
               "  synergy-hwc -I rtl -D WIDTH=8 -top tb tb.v rtl/alu.v -o tb.eng\n"
               "  synergy-hwc sum.v --emit-verilog sum.engine.v\n";
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    }
  }
  synergy::verilog::VerilogCompileOptions opts;
  std::string error;
  if (!synergy::verilog::parseVerilogCommandLine(args, opts, error)) {
    std::cerr << "synergy-hwc: error: " << error << "\n";
    usage();
    return 1;
  }
  if (opts.output.empty() && opts.emitVerilog.empty()) {
    std::cerr << "synergy-hwc: error: nothing to do: give -o out.eng and/or --emit-verilog out.v\n";
    return 1;
  }
  return synergy::verilog::compileVerilog(opts);
}
