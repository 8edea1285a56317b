//===- FieldCoding.h - the checkpoint file's little-endian fields ----------===//
//
// How the sections of a checkpoint file (CheckpointFile.cpp,
// MpiObjectSection.cpp) write their fields and read them back: a reader
// that refuses to run past the end of what it was given, and texts whose
// lengths share one budget so that no forged length makes the decoder
// allocate more than the file holds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace synergy::checkpoint {

template <typename T>
inline void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads fields off the front of a byte range, refusing to run past its end.
class FieldReader {
 public:
  explicit FieldReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool read(T& value) {
    if (bytes_.size() < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data(), sizeof(T));
    bytes_.remove_prefix(sizeof(T));
    return true;
  }
  bool take(uint64_t count, std::string_view& out) {
    if (count > bytes_.size()) return false;
    out = bytes_.substr(0, size_t(count));
    bytes_.remove_prefix(size_t(count));
    return true;
  }
  size_t left() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
};

inline void putText(std::string& out, const std::string& text) {
  put(out, uint32_t(text.size()));
  out += text;
}

inline bool readText(FieldReader& reader, uint64_t& budget, std::string& text) {
  uint32_t bytes = 0;
  std::string_view view;
  if (!reader.read(bytes) || bytes > budget || !reader.take(bytes, view)) return false;
  budget -= bytes;
  text.assign(view);
  return true;
}

}  // namespace synergy::checkpoint
