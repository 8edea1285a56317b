//===- FuzzSavedState.cpp - libFuzzer target for the state-file parser ----===//
//
// This file implements the fuzz target for engine::parseSavedState, the
// parser behind `synergy-run --restart`. A state file is as untrusted as any
// other input: any byte string must give either a saved state or a refusal,
// never a crash, undefined behaviour, a leak or an allocation sized by the
// input.
//
// A state file ends in a SHA-256 of everything before it, and the parser
// checks it first. Random mutations almost never keep that checksum right, so
// a fuzzer fed whole files would only ever exercise the checksum test. The
// input is therefore the file *body*: the target appends the matching
// "checksum" line, which lets mutations reach the record parser. (The
// checksum test itself is one string comparison that this target leaves out.)
//
// Beyond the sanitizers, the target checks the parser's contract: a refusal
// carries a one-line reason (synergy-run prints it after "error: ").
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/StateFile.h"
#include "util/Sha256.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  synergy::util::Sha256 hash;
  hash.update(text);
  text += "checksum " + hash.hexDigest() + "\n";
  std::string error;
  auto state = synergy::engine::parseSavedState(text, error);
  if (!state && (error.empty() || error.find('\n') != std::string::npos)) {
    std::fprintf(stderr, "parseSavedState refused the input without a one-line reason: '%s'\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
