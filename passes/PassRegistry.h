//===- PassRegistry.h - every Synergy wasm pass by flag --------------------===//
//
// The one list of passes: a kebab-case flag, a one-line description and the
// factory. synergy-opt's --pass=<flag> and the default pipeline look passes up
// here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "passes/Pass.h"

namespace synergy::passes {

struct PassInfo {
  std::string_view flag;
  std::string_view description;
  std::unique_ptr<Pass> (*create)();
};

std::span<const PassInfo> registeredPasses();

// nullptr when no pass has that flag.
const PassInfo* findPass(std::string_view flag);

}  // namespace synergy::passes
