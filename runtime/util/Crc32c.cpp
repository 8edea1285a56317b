//===- Crc32c.cpp - CRC-32C checksums for files the runtime writes itself -===//
//
// This file implements Crc32c: the reflected CRC over the Castagnoli
// polynomial 0x1EDC6F41 (0x82F63B78 bit-reversed), with an initial value
// and final complement of all ones. The portable version takes a byte at a
// time through a 256-entry table; the SSE4.2 version folds 8 bytes per
// crc32 instruction, which computes exactly that CRC step.
//
//===----------------------------------------------------------------------===//
#include "util/Crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#endif

namespace synergy::util {
namespace {

constexpr uint32_t kReflectedPolynomial = 0x82F63B78u;

constexpr std::array<uint32_t, 256> makeByteTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (crc & 1 ? kReflectedPolynomial : 0);
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kByteTable = makeByteTable();

uint32_t updatePortable(uint32_t state, const uint8_t* bytes, size_t size) {
  for (size_t at = 0; at < size; ++at) state = (state >> 8) ^ kByteTable[(state ^ bytes[at]) & 0xff];
  return state;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t updateWithCrc32Instruction(uint32_t state,
                                                                      const uint8_t* bytes,
                                                                      size_t size) {
  uint64_t wide = state;
  size_t at = 0;
  for (; at + 8 <= size; at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + at, sizeof word);
    wide = _mm_crc32_u64(wide, word);
  }
  uint32_t narrow = uint32_t(wide);
  for (; at < size; ++at) narrow = _mm_crc32_u8(narrow, bytes[at]);
  return narrow;
}
#endif

}  // namespace

bool Crc32c::cpuHasCrc32Instruction() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2);
#else
  return false;
#endif
}

Crc32c::Crc32c(Implementation implementation) : update_(updatePortable) {
#if defined(__x86_64__)
  if (implementation == Implementation::Fastest && cpuHasCrc32Instruction())
    update_ = updateWithCrc32Instruction;
#else
  (void)implementation;
#endif
}

void Crc32c::update(const void* data, size_t size) {
  state_ = update_(state_, static_cast<const uint8_t*>(data), size);
}

}  // namespace synergy::util
