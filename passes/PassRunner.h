//===- PassRunner.h - run passes on a wasm file, crash-proof ---------------===//
//
// Reads a wasm file, checks its framing, and runs a list of passes on it in a
// child process, so that nothing Binaryen does on bad input (it ends the
// process on some parse errors) can take the caller down.
//
// SYNERGY_DEBUG_PASSES=1 prints each pass as it runs and validates the module
// after it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "passes/PassRegistry.h"

namespace synergy::passes {

// Runs `passes` in order on inputWasm and writes the result to outputWasm
// (which may be the same file). With no passes, the module is still parsed,
// validated and rewritten. On failure returns false with `error` set to one
// diagnostic line, `<file>[:0x<offset>]: error: <message>`.
bool runPassesOnFile(const std::string& inputWasm, const std::string& outputWasm,
                     const std::vector<const PassInfo*>& passes, std::string& error);

}  // namespace synergy::passes
