//===- Crc32c.h - CRC-32C checksums for files the runtime writes itself ---===//
//
// A checkpoint file carries a checksum of its bytes so that a torn, cut or
// bit-flipped file is refused before anything of it is applied. That is
// integrity, not authenticity: the checksum sits in the file it covers, so
// whoever writes a file can give it a matching one whatever the function,
// and a hostile file is stopped by the decoders' checks of every field
// instead. CRC-32C (Castagnoli, as in iSCSI and ext4) detects every burst
// error of up to 32 bits and costs a few percent of SHA-256 over the
// hundreds of MiB a checkpoint of large ranks holds: with SSE4.2 one crc32
// instruction per 8 bytes; a portable table-driven version otherwise, and
// both give the same values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace synergy::util {

class Crc32c {
 public:
  // Which function computes: the fastest the CPU has, or the portable one
  // (so tests can compare both on a machine with SSE4.2).
  enum class Implementation { Fastest, Portable };

  explicit Crc32c(Implementation implementation = Implementation::Fastest);
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The CRC-32C of everything given to update() so far.
  uint32_t value() const { return ~state_; }
  // The CRC-32C of A followed by B from A's, B's and B's length alone: a
  // file's checksum from the checksums its pieces got while they were being
  // written, without another pass over their bytes.
  static uint32_t combine(uint32_t first, uint32_t second, uint64_t secondBytes);

  static bool cpuHasCrc32Instruction();

 private:
  using UpdateFn = uint32_t (*)(uint32_t state, const uint8_t* bytes, size_t size);
  UpdateFn update_;
  uint32_t state_ = ~0u;
};

}  // namespace synergy::util
