//===- Sha256.h - content hashing for caches -------------------------------===//
//
// SHA-256 (FIPS 180-4). The AOT and engine caches are keyed by the hash of a
// module's bytes plus the toolchain identity, so a collision-resistant hash is
// what keeps two different programs from sharing one cached object.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace synergy::util {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  std::array<uint8_t, 32> digest();
  std::string hexDigest();

 private:
  void compressBlock(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

}  // namespace synergy::util
