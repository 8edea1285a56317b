//===- FuzzWasmModule.cpp - libFuzzer target for the .wasm loader check ---===//
//
// This file implements the fuzz target for the structural check synergy-run
// applies to a .wasm file before any tool (wasm2c, clang) sees it:
// granule::checkWasmFraming, which reads the magic, the version and every
// section's LEB128 length. Any byte string must give either acceptance or a
// refusal, never a crash, undefined behaviour or a leak.
//
// Beyond the sanitizers, the target checks the contract: a refusal carries a
// one-line reason (synergy-run prints it after "error: ").
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "granule/AotCompiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  bool accepted = synergy::granule::checkWasmFraming(bytes, error);
  if (!accepted && (error.empty() || error.find('\n') != std::string::npos)) {
    std::fprintf(stderr, "checkWasmFraming refused the input without a one-line reason: '%s'\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
