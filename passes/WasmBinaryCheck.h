//===- WasmBinaryCheck.h - framing check before Binaryen parses ------------===//
//
// BinaryenModuleRead ends the process on some malformed input, so every file
// is first checked here: header, section ids, order and sizes, and the import
// and memory sections entry by entry. The check also decodes the memory's
// limits and the custom section names, which the 108 C API has no getters
// for.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace synergy::passes {

struct MemoryFacts {
  bool present = false;
  bool imported = false;
  bool shared = false;
  bool is64 = false;
  uint64_t initialPages = 0;
  std::optional<uint64_t> maximumPages;
};

// What the check learns on the way, for passes that need it.
struct WasmBinaryFacts {
  MemoryFacts memory;
  std::vector<std::string> customSectionNames;
};

// Returns false and sets `error` to "0x<offset>: <message>" for the first
// framing problem found.
bool checkWasmBinary(std::span<const uint8_t> bytes, WasmBinaryFacts& facts, std::string& error);

}  // namespace synergy::passes
