//===- WasmBinaryReader.h - bounds-checked reads of wasm binary fields ----===//
//
// The primitives of the wasm binary format (bytes, LEB128 u32, length-prefixed
// names) read from an untrusted buffer. Every read checks the remaining length
// first and reports failure instead of reading past the end, so the module
// checker and the name-section rewriter can walk hostile input without ever
// allocating or indexing by a value they have not bounded.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace synergy::granule {

class WasmBinaryReader {
 public:
  explicit WasmBinaryReader(std::string_view bytes) : bytes_(bytes) {}

  bool atEnd() const { return pos_ == bytes_.size(); }
  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  bool readByte(uint8_t& value) {
    if (pos_ >= bytes_.size()) return false;
    value = uint8_t(bytes_[pos_++]);
    return true;
  }

  // Unsigned LEB128 of at most five bytes whose value fits in 32 bits, as the
  // wasm spec requires of every count, index and length.
  bool readU32(uint32_t& value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      uint8_t byte;
      if (!readByte(byte)) return false;
      result |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        if (result > UINT32_MAX) return false;
        value = uint32_t(result);
        return true;
      }
    }
    return false;
  }

  bool readBytes(size_t size, std::string_view& out) {
    if (size > remaining()) return false;
    out = bytes_.substr(pos_, size);
    pos_ += size;
    return true;
  }

  // A wasm `name`: a u32 length, then that many bytes.
  bool readName(std::string_view& name) {
    uint32_t size;
    return readU32(size) && readBytes(size, name);
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace synergy::granule
