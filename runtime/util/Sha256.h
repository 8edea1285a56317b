//===- Sha256.h - content hashing for caches -------------------------------===//
//
// SHA-256 (FIPS 180-4). The AOT and engine caches are keyed by the hash of a
// module's bytes plus the toolchain identity, so a collision-resistant hash is
// what keeps two different programs from sharing one cached object. Every
// warm start re-hashes each cached object before loading it, so the block
// function uses the x86 SHA extensions when the CPU has them (a few times
// faster than the portable code) and the portable code otherwise; both give
// the same digests.
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
  // Which block function hashes: the fastest the CPU has, or the portable
  // one (so tests can compare both on a machine with the extensions).
  enum class Implementation { Fastest, Portable };

  explicit Sha256(Implementation implementation = Implementation::Fastest);
  void update(const void* data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  std::array<uint8_t, 32> digest();
  std::string hexDigest();

  // Whether this CPU has the SHA extensions (and the SSE4.1 they need).
  static bool cpuHasShaExtensions();

 private:
  using CompressFn = void (*)(uint32_t* state, const uint8_t* blocks, size_t count);
  CompressFn compress_;
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

}  // namespace synergy::util
