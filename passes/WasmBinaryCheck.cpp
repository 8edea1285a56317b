//===- WasmBinaryCheck.cpp - framing check before Binaryen parses ----------===//
//
// A walk over the module bytes with the bounds-checked reader the runtime
// uses too (wasmformat/WasmBinaryReader.h). It validates what a parser must
// trust before it can even find the code: the magic and version, every
// section's id, order and size, every LEB128's length, and the import and
// memory entries. Function bodies are left to Binaryen, whose failures the
// runner contains in a child process.
//
//===----------------------------------------------------------------------===//
#include "passes/WasmBinaryCheck.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "wasmformat/WasmBinaryReader.h"

namespace synergy::passes {

namespace {

using wasmformat::Limits;
using wasmformat::WasmBinaryReader;

constexpr uint8_t kCustomSectionId = 0;
constexpr uint8_t kImportSectionId = 2;
constexpr uint8_t kMemorySectionId = 5;
constexpr uint8_t kMaxSectionId = 13;

// Position of each known section id in the order the spec requires
// (datacount, 12, sits before code; tag, 13, between memory and global).
constexpr std::array<int, kMaxSectionId + 1> kSectionRank = {
    0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6};

// "0x<offset>: <problem>" from the reader that failed.
bool report(const WasmBinaryReader& reader, std::string& error) {
  char where[32];
  std::snprintf(where, sizeof where, "0x%zx: ", reader.problemOffset());
  error = std::string(where) + reader.problem();
  return false;
}

void recordMemory(const Limits& limits, MemoryFacts& memory) {
  memory.present = true;
  memory.shared = limits.shared;
  memory.is64 = limits.is64;
  memory.initialPages = limits.initial;
  memory.maximumPages = limits.maximum;
}

bool readImportSection(WasmBinaryReader& in, MemoryFacts& memory) {
  uint32_t count = 0;
  if (!in.readU32(count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view module, field;
    uint8_t kind = 0;
    Limits limits;
    if (!in.readName(module) || !in.readName(field) || !in.readByte(kind)) return false;
    if (kind == wasmformat::kMemoryImport && memory.present) return in.fail("more than one memory");
    if (!in.readImportDescriptor(kind, limits)) return false;
    if (kind == wasmformat::kMemoryImport) {
      recordMemory(limits, memory);
      memory.imported = true;
    }
  }
  if (!in.atEnd()) return in.fail("import section has trailing bytes");
  return true;
}

bool readMemorySection(WasmBinaryReader& in, MemoryFacts& memory) {
  uint32_t count = 0;
  if (!in.readU32(count)) return false;
  if (uint64_t(count) + (memory.present ? 1 : 0) > 1) return in.fail("more than one memory");
  if (count == 1) {
    Limits limits;
    if (!in.readLimits(limits)) return false;
    recordMemory(limits, memory);
  }
  if (!in.atEnd()) return in.fail("memory section has trailing bytes");
  return true;
}

}  // namespace

bool checkWasmBinary(std::span<const uint8_t> bytes, WasmBinaryFacts& facts, std::string& error) {
  facts = {};
  MemoryFacts& memory = facts.memory;
  static constexpr std::array<uint8_t, 8> kHeader = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
  if (bytes.size() < 4 || !std::equal(kHeader.begin(), kHeader.begin() + 4, bytes.begin())) {
    error = "0x0: not a wasm module (bad magic number)";
    return false;
  }
  if (bytes.size() < 8 || !std::equal(kHeader.begin() + 4, kHeader.end(), bytes.begin() + 4)) {
    error = "0x4: unsupported wasm version (expected 1)";
    return false;
  }
  std::string_view module(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  WasmBinaryReader in(module.substr(8), 8);
  int lastRank = -1;
  while (!in.atEnd()) {
    uint8_t id = 0;
    uint32_t size = 0;
    size_t idOffset = in.fileOffset();
    if (!in.readByte(id)) return report(in, error);
    if (id > kMaxSectionId) {
      in.failAt("unknown section id", idOffset);
      return report(in, error);
    }
    if (!in.readU32(size)) return report(in, error);
    if (size > in.remaining()) {
      in.fail("section extends past the end of the file");
      return report(in, error);
    }
    size_t payloadOffset = in.fileOffset();
    std::string_view body;
    in.readBytes(size, body);
    WasmBinaryReader payload(body, payloadOffset);
    if (id == kCustomSectionId) {
      uint32_t nameLength = 0;
      if (!payload.readU32(nameLength)) return report(payload, error);
      if (nameLength > payload.remaining()) {
        payload.fail("custom section name extends past its section");
        return report(payload, error);
      }
      std::string_view name;
      payload.readBytes(nameLength, name);
      facts.customSectionNames.emplace_back(name);
      continue;
    }
    if (kSectionRank[id] <= lastRank) {
      in.failAt("section out of order or duplicated", idOffset);
      return report(in, error);
    }
    lastRank = kSectionRank[id];
    if (id == kImportSectionId && !readImportSection(payload, memory)) return report(payload, error);
    if (id == kMemorySectionId && !readMemorySection(payload, memory)) return report(payload, error);
  }
  return true;
}

}  // namespace synergy::passes
