//===- FuzzCheckpointFile.cpp - libFuzzer target for checkpoint files ------===//
//
// This file implements the fuzz target for checkpoint::decodeCheckpoint, the
// parser of the files `--checkpoint-dir` writes. Any byte string must give
// either a checkpoint image or a one-line refusal, never a crash, undefined
// behaviour, a leak or an allocation sized by the input.
//
// The file's CRC-32C is checked before its sections, and random mutations
// almost never keep it right, so the target rewrites the checksum field of
// every input long enough to have one: mutations then reach the section
// parser. (The checksum comparison itself is what this leaves out.)
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "checkpoint/CheckpointFile.h"
#include "util/Crc32c.h"

namespace {
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 32 + 8 + 4;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file(reinterpret_cast<const char*>(data), size);
  if (file.size() >= kHeaderBytes) {
    synergy::util::Crc32c checksum;
    checksum.update(std::string_view(file).substr(0, kHeaderBytes - 4));
    checksum.update(std::string_view(file).substr(kHeaderBytes));
    uint32_t value = checksum.value();
    std::memcpy(file.data() + kHeaderBytes - 4, &value, sizeof value);
  }
  std::string error;
  auto image = synergy::checkpoint::decodeCheckpoint(file, error);
  if (!image && (error.empty() || error.find('\n') != std::string::npos)) {
    std::fprintf(stderr, "decodeCheckpoint refused the input without a one-line reason: '%s'\n",
                 error.c_str());
    std::abort();
  }
  return 0;
}
