//===- LittleEndian.h - fixed-width little-endian fields in byte buffers --===//
//
// Every frame, job message and file format of the runtime stores its integers
// little-endian, one byte at a time, so that what one host writes another
// reads the same whatever its byte order, and so that a field may sit at any
// offset without alignment. These are the one set of helpers for that; callers
// check a buffer's length before they read from it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

namespace synergy::util {

// The low `bytes` bytes (at most 8) of `value`, written at `out`.
inline void writeLittleEndian(uint8_t* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[i] = uint8_t(value >> (8 * i));
}

// The `bytes`-byte (at most 8) unsigned field at `in`.
template <typename Byte>
inline uint64_t readLittleEndian(const Byte* in, size_t bytes) {
  static_assert(sizeof(Byte) == 1, "a field is read from a byte buffer");
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= uint64_t(uint8_t(in[i])) << (8 * i);
  return value;
}

// Appends the low `bytes` bytes of `value` to a byte container
// (std::vector<uint8_t> or std::string).
template <typename Buffer>
inline void appendLittleEndian(Buffer& out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    out.push_back(static_cast<typename Buffer::value_type>(uint8_t(value >> (8 * i))));
}

}  // namespace synergy::util
