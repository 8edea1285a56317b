//===- WasmBinaryCheck.cpp - framing check before Binaryen parses ----------===//
//
// A bounds-checked reader over the module bytes. It validates what a parser
// must trust before it can even find the code: the magic and version, every
// section's id, order and size, every LEB128's length, and the import and
// memory entries. Function bodies are left to Binaryen, whose failures the
// runner contains in a child process.
//
//===----------------------------------------------------------------------===//
#include "passes/WasmBinaryCheck.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace synergy::passes {

namespace {

constexpr uint8_t kCustomSectionId = 0;
constexpr uint8_t kImportSectionId = 2;
constexpr uint8_t kMemorySectionId = 5;
constexpr uint8_t kMaxSectionId = 13;

// Position of each known section id in the order the spec requires
// (datacount, 12, sits before code; tag, 13, between memory and global).
constexpr std::array<int, kMaxSectionId + 1> kSectionRank = {
    0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6};

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, size_t base) : bytes_(bytes), base_(base) {}

  bool atEnd() const { return pos_ == bytes_.size(); }
  size_t offset() const { return base_ + pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  bool byte(uint8_t& value, std::string& error) {
    if (pos_ >= bytes_.size()) return fail("unexpected end of data", error);
    value = bytes_[pos_++];
    return true;
  }

  bool leb(uint64_t& value, unsigned maxBits, bool isSigned, std::string& error) {
    value = 0;
    unsigned shift = 0;
    size_t start = pos_;
    for (;;) {
      uint8_t b = 0;
      if (!byte(b, error)) return false;
      if (shift < 64) value |= uint64_t(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
      if (shift >= maxBits) {
        pos_ = start;
        return fail("LEB128 integer too long", error);
      }
    }
    if (!isSigned && maxBits < 64 && shift > maxBits && (value >> maxBits) != 0) {
      pos_ = start;
      return fail("LEB128 integer out of range", error);
    }
    return true;
  }

  bool u32(uint64_t& value, std::string& error) { return leb(value, 32, false, error); }

  bool skip(uint64_t count, std::string& error) {
    if (count > remaining()) return fail("length extends past the end of its section", error);
    pos_ += count;
    return true;
  }

  std::span<const uint8_t> take(uint64_t count) {
    std::span<const uint8_t> part = bytes_.subspan(pos_, count);
    pos_ += count;
    return part;
  }

  bool name(std::string& error) {
    uint64_t length = 0;
    return u32(length, error) && skip(length, error);
  }

  bool fail(const char* message, std::string& error) const {
    char where[32];
    std::snprintf(where, sizeof where, "0x%zx: ", offset());
    error = std::string(where) + message;
    return false;
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t base_;
  size_t pos_ = 0;
};

bool readLimits(Reader& in, MemoryFacts* memory, std::string& error) {
  uint8_t flags = 0;
  if (!in.byte(flags, error)) return false;
  if (flags > 7) return in.fail("invalid limits flags", error);
  bool is64 = flags & 4;
  uint64_t initial = 0, maximum = 0;
  if (!in.leb(initial, is64 ? 64 : 32, false, error)) return false;
  if ((flags & 1) && !in.leb(maximum, is64 ? 64 : 32, false, error)) return false;
  if (memory) {
    memory->present = true;
    memory->shared = flags & 2;
    memory->is64 = is64;
    memory->initialPages = initial;
    if (flags & 1) memory->maximumPages = maximum;
  }
  return true;
}

bool readValueType(Reader& in, std::string& error) {
  uint8_t type = 0;
  if (!in.byte(type, error)) return false;
  // (ref ht) and (ref null ht) carry a heap type as a signed LEB128.
  if (type == 0x6b || type == 0x6c) {
    uint64_t heapType = 0;
    return in.leb(heapType, 33, true, error);
  }
  return true;
}

bool readImportSection(Reader& in, MemoryFacts& memory, std::string& error) {
  uint64_t count = 0;
  if (!in.u32(count, error)) return false;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t kind = 0;
    uint64_t index = 0;
    if (!in.name(error) || !in.name(error) || !in.byte(kind, error)) return false;
    switch (kind) {
      case 0:  // function: type index
        if (!in.u32(index, error)) return false;
        break;
      case 1:  // table: reference type, limits
        if (!readValueType(in, error) || !readLimits(in, nullptr, error)) return false;
        break;
      case 2:  // memory
        if (memory.present) return in.fail("more than one memory", error);
        if (!readLimits(in, &memory, error)) return false;
        memory.imported = true;
        break;
      case 3: {  // global: value type, mutability
        uint8_t mutability = 0;
        if (!readValueType(in, error) || !in.byte(mutability, error)) return false;
        break;
      }
      case 4: {  // tag: attribute, type index
        uint8_t attribute = 0;
        if (!in.byte(attribute, error) || !in.u32(index, error)) return false;
        break;
      }
      default:
        return in.fail("invalid import kind", error);
    }
  }
  if (!in.atEnd()) return in.fail("import section has trailing bytes", error);
  return true;
}

bool readMemorySection(Reader& in, MemoryFacts& memory, std::string& error) {
  uint64_t count = 0;
  if (!in.u32(count, error)) return false;
  if (count + (memory.present ? 1 : 0) > 1) return in.fail("more than one memory", error);
  if (count == 1 && !readLimits(in, &memory, error)) return false;
  if (!in.atEnd()) return in.fail("memory section has trailing bytes", error);
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
  Reader in(bytes.subspan(8), 8);
  int lastRank = -1;
  while (!in.atEnd()) {
    uint8_t id = 0;
    uint64_t size = 0;
    size_t idOffset = in.offset();
    if (!in.byte(id, error)) return false;
    if (id > kMaxSectionId) {
      Reader at(bytes.subspan(idOffset), idOffset);
      return at.fail("unknown section id", error);
    }
    if (!in.u32(size, error)) return false;
    if (size > in.remaining()) return in.fail("section extends past the end of the file", error);
    size_t payloadOffset = in.offset();
    Reader payload(in.take(size), payloadOffset);
    if (id == kCustomSectionId) {
      uint64_t nameLength = 0;
      if (!payload.u32(nameLength, error)) return false;
      if (nameLength > payload.remaining())
        return payload.fail("custom section name extends past its section", error);
      std::span<const uint8_t> name = payload.take(nameLength);
      facts.customSectionNames.emplace_back(name.begin(), name.end());
      continue;
    }
    if (kSectionRank[id] <= lastRank) {
      Reader at(bytes.subspan(idOffset), idOffset);
      return at.fail("section out of order or duplicated", error);
    }
    lastRank = kSectionRank[id];
    if (id == kImportSectionId && !readImportSection(payload, memory, error)) return false;
    if (id == kMemorySectionId && !readMemorySection(payload, memory, error)) return false;
  }
  return true;
}

}  // namespace synergy::passes
