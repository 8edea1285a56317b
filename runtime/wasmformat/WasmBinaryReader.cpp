//===- WasmBinaryReader.cpp - bounds-checked reads of wasm binary fields --===//
//
// This file implements WasmBinaryReader (WasmBinaryReader.h). A read that
// fails on a malformed LEB128 rewinds to its first byte, so the offset it
// reports is where the integer starts.
//
//===----------------------------------------------------------------------===//
#include "wasmformat/WasmBinaryReader.h"

namespace synergy::wasmformat {

bool WasmBinaryReader::fail(const char* message) { return failAt(message, fileOffset()); }

bool WasmBinaryReader::failAt(const char* message, size_t fileOffset) {
  problem_ = message;
  problemOffset_ = fileOffset;
  return false;
}

bool WasmBinaryReader::readByte(uint8_t& value) {
  if (pos_ >= bytes_.size()) return fail("unexpected end of data");
  value = uint8_t(bytes_[pos_++]);
  return true;
}

bool WasmBinaryReader::readLeb(uint64_t& value, unsigned maxBits, bool isSigned) {
  value = 0;
  unsigned shift = 0;
  size_t start = pos_;
  for (;;) {
    uint8_t byte = 0;
    if (!readByte(byte)) return false;
    if (shift < 64) value |= uint64_t(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) break;
    if (shift >= maxBits) {
      pos_ = start;
      return fail("LEB128 integer too long");
    }
  }
  if (!isSigned && maxBits < 64 && shift > maxBits && (value >> maxBits) != 0) {
    pos_ = start;
    return fail("LEB128 integer out of range");
  }
  return true;
}

bool WasmBinaryReader::readU32(uint32_t& value) {
  uint64_t wide = 0;
  if (!readLeb(wide, 32, false)) return false;
  value = uint32_t(wide);
  return true;
}

bool WasmBinaryReader::readBytes(size_t size, std::string_view& out) {
  if (size > remaining()) return fail("length extends past the end of its section");
  out = bytes_.substr(pos_, size);
  pos_ += size;
  return true;
}

bool WasmBinaryReader::readName(std::string_view& name) {
  uint32_t size = 0;
  return readU32(size) && readBytes(size, name);
}

bool WasmBinaryReader::readLimits(Limits& limits) {
  uint8_t flags = 0;
  if (!readByte(flags)) return false;
  if (flags > 7) return fail("invalid limits flags");
  limits = {};
  limits.shared = flags & 2;
  limits.is64 = flags & 4;
  unsigned bits = limits.is64 ? 64 : 32;
  if (!readLeb(limits.initial, bits, false)) return false;
  if (flags & 1) {
    uint64_t maximum = 0;
    if (!readLeb(maximum, bits, false)) return false;
    limits.maximum = maximum;
  }
  return true;
}

bool WasmBinaryReader::readReferenceType() {
  uint8_t type = 0;
  if (!readByte(type)) return false;
  if (type == kFuncRef || type == kExternRef) return true;
  --pos_;
  return fail("unsupported reference type");
}

bool WasmBinaryReader::readValueType() {
  uint8_t type = 0;
  if (!readByte(type)) return false;
  switch (type) {
    case kI32: case kI64: case kF32: case kF64: case kV128: case kFuncRef: case kExternRef:
      return true;
    default:
      --pos_;
      return fail("unsupported value type");
  }
}

bool WasmBinaryReader::readImportDescriptor(uint8_t kind, Limits& limits) {
  uint32_t index = 0;
  uint8_t byte = 0;
  switch (kind) {
    case kFunctionImport: return readU32(index);
    case kTableImport: return readReferenceType() && readLimits(limits);
    case kMemoryImport: return readLimits(limits);
    case kGlobalImport: return readValueType() && readByte(byte);
    case kTagImport: return readByte(byte) && readU32(index);
    default: return fail("invalid import kind");
  }
}

}  // namespace synergy::wasmformat
