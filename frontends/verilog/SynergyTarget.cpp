//===- SynergyTarget.cpp - The Icarus loadable target synergy.tgt ---------===//
//
// Icarus's driver runs its elaborator `ivl`, which loads this shared object
// (named by `flag:DLL=synergy.tgt` in synergy.conf) and calls
// target_design() with the elaborated design. The target builds the HW IR
// (IvlReader), runs the hwlower pipeline, checks that Verilator accepts the
// emitted module (VerilatorAcceptsEngine), and writes the .eng file named by
// iverilog's -o, through a temporary file so a failure leaves nothing.
// `-pemit-verilog=<path>` also writes the emitted Verilog, for lit and yosys.
// A non-zero return makes iverilog exit non-zero.
//
//===----------------------------------------------------------------------===//
#include <ivl_target.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "frontends/verilog/VerilatorAcceptsEngine.h"
#include "frontends/verilog/IvlReader.h"
#include "hwlower/EngineManifest.h"
#include "hwlower/Pipeline.h"

using namespace synergy;

static std::string designFlag(ivl_design_t des, const char* key) {
  const char* value = ivl_design_flag(des, key);
  return value ? value : "";
}

static bool writeTextAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

extern "C" int target_design(ivl_design_t des) {
  hwlower::Design design;
  hwlower::Diagnostics diags;
  if (!verilog::IvlReader(des, design, diags).read()) return 1;
  hwlower::EngineManifest manifest;
  if (!hwlower::lowerDesign(design, diags, manifest)) return 1;

  std::string verilogPath = designFlag(des, "emit-verilog");
  if (!verilogPath.empty() && !writeTextAtomically(verilogPath, manifest.verilog)) {
    std::cerr << "error: cannot write '" << verilogPath << "'\n";
    return 1;
  }
  // After --emit-verilog wrote the module, so a rejected one can be read.
  if (!verilog::checkVerilatorAcceptsEngine(design, diags)) return 1;
  std::string outPath = designFlag(des, "-o");
  if (!outPath.empty() && outPath != "/dev/null") {
    std::string error;
    if (!hwlower::writeEngineFile(manifest, outPath, error)) {
      std::cerr << "error: " << error << "\n";
      return 1;
    }
  }
  return 0;
}
