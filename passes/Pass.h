//===- Pass.h - the Synergy wasm pass interface ----------------------------===//
//
// A pass is one transformation of a Binaryen module with a single `run`. Each
// pass lives in its own file and exports only its factory, declared here;
// PassRegistry.cpp gives each a kebab-case flag.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <binaryen-c.h>

#include <memory>
#include <string>

#include "passes/WasmBinaryCheck.h"

namespace synergy::passes {

// The module a pass transforms, plus what the 108 C API cannot report about it
// (read from the binary before parsing; passes keep it current).
struct WasmModule {
  BinaryenModuleRef binaryen = nullptr;
  WasmBinaryFacts facts;
  // What the output's target_features section will declare (the input's
  // declaration, minus what passes lowered away).
  BinaryenFeatures declaredFeatures = 0;
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Returns false and sets `error` (one line, no location) when the module
  // cannot be transformed; the module is then in an unspecified state.
  virtual bool run(WasmModule& module, std::string& error) = 0;
};

std::unique_ptr<Pass> createControlPointCensusPass();
std::unique_ptr<Pass> createAsyncifyControlPointsPass();
std::unique_ptr<Pass> createLowerAtomicsPass();
std::unique_ptr<Pass> createSerializeLibcPass();
std::unique_ptr<Pass> createExportThreadSupportPass();
std::unique_ptr<Pass> createThreadLocalErrnoPass();
std::unique_ptr<Pass> createDirectInvokesPass();
std::unique_ptr<Pass> createForwardLoopCarriedStoresPass();
std::unique_ptr<Pass> createAtomicSpinWaitLoadsPass();

}  // namespace synergy::passes
