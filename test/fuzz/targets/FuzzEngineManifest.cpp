//===- FuzzEngineManifest.cpp - libFuzzer target for the .eng reader ------===//
//
// This file implements the fuzz target for hwlower::readEngineManifest, the
// parser synergy-run applies to every .eng file before it builds or drives an
// engine. An engine file may come from anywhere, so the reader must turn any
// byte string into either a manifest or a refusal: never a crash, undefined
// behaviour, a leak or an allocation sized by the input.
//
// Beyond the sanitizers, the target checks the reader's contract: a refusal
// carries a one-line reason (synergy-run prints it after "error: ").
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "hwlower/EngineManifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string error;
  auto manifest = synergy::hwlower::readEngineManifest(in, error);
  if (!manifest && (error.empty() || error.find('\n') != std::string::npos)) {
    std::fprintf(stderr, "readEngineManifest refused the input without a one-line reason: '%s'\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
