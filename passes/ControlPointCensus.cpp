//===- ControlPointCensus.cpp - record control points in a custom section -===//
//
// Finds every control-point import (see ControlPoints.cpp for which imports
// count) and every direct call to one, and stores the result as the custom
// section `synergy.control_points` (format: ControlPointSection.h). The
// runtime reads it to know where a granule can stop, without re-analysing
// code.
//
// Runs first: the counts describe the program as linked, before other passes
// add runtime calls. Guarantees the module carries exactly one such section; a
// module without control points gets one with the header line only. A module
// that already has one was processed before (and asyncified), so it is
// refused rather than given a second, stale-looking census.
//
//===----------------------------------------------------------------------===//
#include "passes/ControlPointSection.h"
#include "passes/ControlPoints.h"
#include "passes/Pass.h"

namespace synergy::passes {

namespace {

class ControlPointCensusPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    std::string sectionName(kControlPointSectionName);
    for (const std::string& name : module.facts.customSectionNames)
      if (name == sectionName)
        return fail("module already has a " + sectionName +
                        " section; the Synergy passes have run on it before",
                    error);
    ControlPointCensus census;
    if (!takeControlPointCensus(module.binaryen, census, error)) return false;
    ControlPointSection section;
    section.imports = census.imports;
    for (const auto& [key, count] : census.callCounts) {
      const auto& [function, importIndex] = key;
      section.calls.push_back({function, census.imports[importIndex], count});
    }
    std::string payload = encodeControlPointSection(section);
    BinaryenAddCustomSection(module.binaryen, sectionName.c_str(), payload.data(),
                             BinaryenIndex(payload.size()));
    module.facts.customSectionNames.push_back(sectionName);
    return true;
  }

 private:
  static bool fail(std::string message, std::string& error) {
    error = std::move(message);
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> createControlPointCensusPass() {
  return std::make_unique<ControlPointCensusPass>();
}

}  // namespace synergy::passes
