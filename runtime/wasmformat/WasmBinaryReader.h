//===- WasmBinaryReader.h - bounds-checked reads of wasm binary fields ----===//
//
// The primitives of the wasm binary format (bytes, LEB128 integers,
// length-prefixed names, limits, value types, import descriptors) read from
// an untrusted buffer. Every read checks the remaining length first and
// fails instead of reading past the end, so the checks that run before
// anything else parses a module (passes/WasmBinaryCheck before Binaryen,
// granule/WasmModuleCheck and the name-section rewriter before wasm2c) walk
// hostile input without ever allocating or indexing by a value they have
// not bounded. It is the one reader both the compiler's passes and the
// runtime use, so they agree on what a well-formed field is.
//
// A failed read leaves problem() (what was wrong) and problemOffset() (where,
// in the whole file) for callers that report them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace synergy::wasmformat {

// A table's or memory's limits; 64-bit ones (flag bit 2) for memory64.
struct Limits {
  bool shared = false;
  bool is64 = false;
  uint64_t initial = 0;
  std::optional<uint64_t> maximum;
};

inline constexpr uint8_t kFunctionImport = 0;
inline constexpr uint8_t kTableImport = 1;
inline constexpr uint8_t kMemoryImport = 2;
inline constexpr uint8_t kGlobalImport = 3;
inline constexpr uint8_t kTagImport = 4;

// Value type bytes.
inline constexpr uint8_t kI32 = 0x7f;
inline constexpr uint8_t kI64 = 0x7e;
inline constexpr uint8_t kF32 = 0x7d;
inline constexpr uint8_t kF64 = 0x7c;
inline constexpr uint8_t kV128 = 0x7b;
inline constexpr uint8_t kFuncRef = 0x70;
inline constexpr uint8_t kExternRef = 0x6f;

class WasmBinaryReader {
 public:
  // `bytes` starts at `fileOffset` of the module, for problemOffset().
  explicit WasmBinaryReader(std::string_view bytes, size_t fileOffset = 0)
      : bytes_(bytes), fileOffset_(fileOffset) {}

  bool atEnd() const { return pos_ == bytes_.size(); }
  // Bytes read so far, from the start of `bytes`.
  size_t offset() const { return pos_; }
  size_t fileOffset() const { return fileOffset_ + pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  bool readByte(uint8_t& value);
  // An LEB128 of at most ceil(maxBits / 7) bytes whose value fits in
  // `maxBits` bits (unsigned) or whose padding bits are any (signed).
  bool readLeb(uint64_t& value, unsigned maxBits, bool isSigned);
  // The u32 of every count, index and length: at most five bytes, and a
  // value that fits in 32 bits.
  bool readU32(uint32_t& value);
  bool readBytes(size_t size, std::string_view& out);
  // A wasm `name`: a u32 length, then that many bytes.
  bool readName(std::string_view& name);
  // A flags byte (at most 7), a minimum, and a maximum when flag bit 0 is
  // set; 64-bit bounds when bit 2 is. Bit 1 (shared) is reported, not judged.
  bool readLimits(Limits& limits);
  // A table's element type: funcref or externref, the reference types
  // wasm2c 1.0.32 compiles. Typed references and GC types are refused here,
  // where the reason can still be named, not later by wasm2c.
  bool readReferenceType();
  // A global's type: a number, v128, funcref or externref.
  bool readValueType();
  // What follows an import's kind byte: a type index (function), a
  // reference type and limits (table), limits (memory), a value type and
  // mutability (global), or an attribute and type index (tag). `limits`
  // receives a table's or memory's. False for another kind.
  bool readImportDescriptor(uint8_t kind, Limits& limits);

  // Records `message` at the current position and returns false, for
  // problems the caller finds in what it read.
  bool fail(const char* message);
  bool failAt(const char* message, size_t fileOffset);

  const char* problem() const { return problem_; }
  size_t problemOffset() const { return problemOffset_; }

 private:
  std::string_view bytes_;
  size_t fileOffset_;
  size_t pos_ = 0;
  const char* problem_ = "";
  size_t problemOffset_ = 0;
};

}  // namespace synergy::wasmformat
