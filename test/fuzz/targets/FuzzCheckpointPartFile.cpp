//===- FuzzCheckpointPartFile.cpp - libFuzzer target for checkpoint part files -===//
//
// This file implements the fuzz target for checkpoint::decodePartFile, which
// part 0 of a job spread over hosts runs on the files the other parts write
// to a shared directory (checkpoint/PartFile.h). Any byte string must give
// either the part's sections, each inside the input, or a one-line refusal,
// never a crash, undefined behaviour or an allocation sized by the input.
//
// Part 0 knows which ranks a part holds, and the decoder refuses a file
// naming others before it reads further, so the target takes what part 0
// expects from the input's own head (at most 64 ranks); and it rewrites
// the checksum field where the head says it is, as random mutations almost
// never keep it right: mutations then reach the length checks and the
// split into sections.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "checkpoint/PartFile.h"
#include "util/Crc32c.h"

namespace {

constexpr size_t kMagicBytes = 8;
constexpr uint32_t kMaxFuzzedRanks = 64;

template <typename T>
bool readAt(const std::string& bytes, size_t& at, T& value) {
  if (bytes.size() - at < sizeof value) return false;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  at += sizeof value;
  return true;
}

// What part 0 would expect of this input, read from its head; the offset
// of its checksum field, 0 when the head is too short to have one.
synergy::checkpoint::PartSections expectedOf(const std::string& file, size_t& checksumAt) {
  synergy::checkpoint::PartSections expected;
  checksumAt = 0;
  size_t at = kMagicBytes + 4;
  uint32_t rankCount = 0, textBytes = 0;
  if (file.size() < at || !readAt(file, at, expected.sequence) || !readAt(file, at, expected.part) ||
      !readAt(file, at, rankCount))
    return expected;
  for (uint32_t i = 0; i < rankCount && i < kMaxFuzzedRanks; ++i) {
    uint32_t rank = 0;
    uint64_t sectionBytes = 0;
    if (!readAt(file, at, rank) || !readAt(file, at, sectionBytes)) return expected;
    expected.ranks.push_back(rank);
  }
  if (rankCount > kMaxFuzzedRanks || !readAt(file, at, textBytes) ||
      file.size() - at < size_t(textBytes) + 4)
    return expected;
  checksumAt = at + textBytes;
  return expected;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file(reinterpret_cast<const char*>(data), size);
  size_t checksumAt = 0;
  synergy::checkpoint::PartSections expected = expectedOf(file, checksumAt);
  if (checksumAt != 0) {
    synergy::util::Crc32c checksum;
    checksum.update(std::string_view(file).substr(0, checksumAt));
    checksum.update(std::string_view(file).substr(checksumAt + 4));
    uint32_t value = checksum.value();
    std::memcpy(file.data() + checksumAt, &value, sizeof value);
  }
  std::string error;
  auto part = synergy::checkpoint::decodePartFile(file, expected, error);
  if (!part) {
    if (error.empty() || error.find('\n') != std::string::npos) {
      std::fprintf(stderr, "decodePartFile refused the input without a one-line reason: '%s'\n",
                   error.c_str());
      std::abort();
    }
    return 0;
  }
  // Every section is a view inside the input, one per expected rank.
  if (part->sections.size() != expected.ranks.size()) std::abort();
  for (std::string_view section : part->sections)
    if (section.data() < file.data() || section.data() + section.size() > file.data() + file.size())
      std::abort();
  return 0;
}
