//===- Crc32c.cpp - CRC-32C checksums for files the runtime writes itself -===//
//
// This file implements Crc32c: the reflected CRC over the Castagnoli
// polynomial 0x1EDC6F41 (0x82F63B78 bit-reversed), with an initial value
// and final complement of all ones. The portable version takes a byte at a
// time through a 256-entry table; the SSE4.2 version folds 8 bytes per
// crc32 instruction, which computes exactly that CRC step, on three lanes
// at once for long inputs.
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
__attribute__((target("sse4.2"))) uint32_t updateOneStream(uint32_t state, const uint8_t* bytes,
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

// One crc32 instruction takes 3 cycles and a new one can start every
// cycle, so one stream of them leaves two thirds of the unit idle: long
// inputs go in blocks of three lanes of kLaneBytes, each lane's CRC
// computed independently and interleaved, then combined. The CRC register
// is linear: the register after lane B, started from register r, is
// shift(r) ^ crc(0, B), where shift(r) is r carried through kLaneBytes
// zero bytes; shift is a fixed linear map, applied as four 256-entry tables.
constexpr size_t kLaneBytes = 4096;

struct LaneShift {
  std::array<std::array<uint32_t, 256>, 4> tables{};

  uint32_t operator()(uint32_t state) const {
    return tables[0][state & 0xff] ^ tables[1][(state >> 8) & 0xff] ^
           tables[2][(state >> 16) & 0xff] ^ tables[3][state >> 24];
  }
};

const LaneShift& laneShift() {
  static const LaneShift shift = [] {
    static const uint8_t zeros[kLaneBytes] = {};
    std::array<uint32_t, 32> ofBit{};
    for (int bit = 0; bit < 32; ++bit) ofBit[bit] = updateOneStream(1u << bit, zeros, kLaneBytes);
    LaneShift built;
    for (int table = 0; table < 4; ++table)
      for (uint32_t byte = 0; byte < 256; ++byte)
        for (int bit = 0; bit < 8; ++bit)
          if (byte >> bit & 1) built.tables[table][byte] ^= ofBit[table * 8 + bit];
    return built;
  }();
  return shift;
}

__attribute__((target("sse4.2"))) uint32_t updateWithCrc32Instruction(uint32_t state,
                                                                      const uint8_t* bytes,
                                                                      size_t size) {
  constexpr size_t kBlockBytes = 3 * kLaneBytes;
  if (size >= kBlockBytes) {
    const LaneShift& shift = laneShift();
    for (; size >= kBlockBytes; bytes += kBlockBytes, size -= kBlockBytes) {
      uint64_t a = state, b = 0, c = 0;
      for (size_t at = 0; at < kLaneBytes; at += 8) {
        uint64_t wordA, wordB, wordC;
        std::memcpy(&wordA, bytes + at, 8);
        std::memcpy(&wordB, bytes + kLaneBytes + at, 8);
        std::memcpy(&wordC, bytes + 2 * kLaneBytes + at, 8);
        a = _mm_crc32_u64(a, wordA);
        b = _mm_crc32_u64(b, wordB);
        c = _mm_crc32_u64(c, wordC);
      }
      state = shift(shift(uint32_t(a)) ^ uint32_t(b)) ^ uint32_t(c);
    }
  }
  return updateOneStream(state, bytes, size);
}
#endif

// Polynomials modulo the CRC's, in its reflected order (bit 31 is x^0):
// a times b.
uint32_t multiplyModPolynomial(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >> 1) ^ kReflectedPolynomial : b >> 1;
  }
  return product;
}

}  // namespace

// The register is linear and the complements cancel: the CRC of A then B is
// A's CRC carried through |B| zero bytes (multiplied by x^(8|B|)) xor B's.
uint32_t Crc32c::combine(uint32_t first, uint32_t second, uint64_t secondBytes) {
  uint32_t power = 1u << 31;     // x^0
  uint32_t square = 1u << 23;    // x^8, one byte
  for (uint64_t bytes = secondBytes; bytes != 0; bytes >>= 1) {
    if (bytes & 1) power = multiplyModPolynomial(power, square);
    square = multiplyModPolynomial(square, square);
  }
  return multiplyModPolynomial(first, power) ^ second;
}

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
  // Asked once: cpuid traps to the hypervisor in a virtual machine (tens of
  // microseconds), and a checkpoint's write takes a checksum per 64 KiB.
  static const bool hasCrc32Instruction = cpuHasCrc32Instruction();
  if (implementation == Implementation::Fastest && hasCrc32Instruction)
    update_ = updateWithCrc32Instruction;
#else
  (void)implementation;
#endif
}

void Crc32c::update(const void* data, size_t size) {
  state_ = update_(state_, static_cast<const uint8_t*>(data), size);
}

}  // namespace synergy::util
