//===- Crc32cTest.cpp - CRC-32C against published check values ------------===//
//
// Both versions, the portable table and the SSE4.2 instruction, must give
// the CRC-32C check value of "123456789" and the iSCSI examples of RFC 3720
// (B.4), whatever the split of the input into update() calls and its
// alignment, and must agree with each other on arbitrary bytes. On a CPU
// without SSE4.2 the fast version is the portable one and the test says so.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "util/Crc32c.h"

namespace synergy::util {
namespace {

using Implementation = Crc32c::Implementation;

uint32_t crcOf(Implementation implementation, const std::string& bytes, size_t chunk) {
  Crc32c crc(implementation);
  for (size_t at = 0; at < bytes.size(); at += chunk)
    crc.update(bytes.data() + at, std::min(chunk, bytes.size() - at));
  return crc.value();
}

struct Example {
  std::string bytes;
  uint32_t crc;
};

std::vector<Example> publishedExamples() {
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending += char(i);
    descending += char(31 - i);
  }
  return {
      {"", 0x00000000u},
      {"123456789", 0xE3069283u},
      {std::string(32, '\0'), 0x8A9136AAu},
      {std::string(32, '\xff'), 0x62A8AB43u},
      {ascending, 0x46DD794Eu},
      {descending, 0x113FDB5Cu},
  };
}

void expectPublishedValues(Implementation implementation) {
  for (size_t chunk : {size_t(1), size_t(3), size_t(7), size_t(8), size_t(9), size_t(1) << 20})
    for (const Example& example : publishedExamples())
      EXPECT_EQ(crcOf(implementation, example.bytes, chunk), example.crc)
          << "input of " << example.bytes.size() << " bytes in chunks of " << chunk;
}

TEST(Crc32c, PortableGivesPublishedValues) { expectPublishedValues(Implementation::Portable); }

TEST(Crc32c, FastestGivesPublishedValues) {
  if (!Crc32c::cpuHasCrc32Instruction())
    GTEST_LOG_(INFO) << "no SSE4.2 here: the fastest version is the portable one";
  expectPublishedValues(Implementation::Fastest);
}

// Lengths and offsets around the 8-byte steps, and a megabyte in uneven
// chunks: both versions give the same value, and a flipped bit changes it.
TEST(Crc32c, VersionsAgreeAndSeeEveryBitFlip) {
  std::mt19937_64 random(22);
  std::string bytes(1 << 20, '\0');
  for (char& byte : bytes) byte = char(random());
  for (size_t offset : {size_t(0), size_t(1), size_t(5)})
    for (size_t length : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(15), size_t(4096),
                          bytes.size() - offset}) {
      std::string piece = bytes.substr(offset, length);
      EXPECT_EQ(crcOf(Implementation::Fastest, piece, 1000),
                crcOf(Implementation::Portable, piece, piece.size() + 1))
          << length << " bytes at offset " << offset;
    }
  uint32_t whole = crcOf(Implementation::Fastest, bytes, bytes.size());
  for (size_t bit : {size_t(0), size_t(12345), bytes.size() * 8 - 1}) {
    std::string flipped = bytes;
    flipped[bit / 8] = char(flipped[bit / 8] ^ (1 << (bit % 8)));
    EXPECT_NE(crcOf(Implementation::Fastest, flipped, flipped.size()), whole) << "bit " << bit;
  }
}

// Updates long enough for the three-lane blocks of the SSE4.2 version
// (3 x 4096 bytes), at lengths around their multiples and unaligned, also
// after a short update that leaves the register mid-stream.
TEST(Crc32c, VersionsAgreeOnLongUpdates) {
  std::mt19937_64 random(35);
  std::string bytes(1 << 20, '\0');
  for (char& byte : bytes) byte = char(random());
  const size_t block = 3 * 4096;
  for (size_t offset : {size_t(0), size_t(3)})
    for (size_t length : {block - 1, block, block + 1, 2 * block + 13, bytes.size() - offset}) {
      std::string piece = bytes.substr(offset, length);
      uint32_t portable = crcOf(Implementation::Portable, piece, piece.size());
      EXPECT_EQ(crcOf(Implementation::Fastest, piece, piece.size()), portable)
          << length << " bytes at offset " << offset;
      EXPECT_EQ(crcOf(Implementation::Fastest, piece, 5), portable);
      EXPECT_EQ(crcOf(Implementation::Fastest, piece, block + 7), portable);
    }
}

// A whole's CRC from its two halves' CRCs and the second's length, at
// split points from empty to all, against the CRC of the whole computed
// byte by byte.
TEST(Crc32c, CombineGivesTheCrcOfTheConcatenation) {
  std::mt19937_64 random(36);
  std::string bytes(3 * 4096 * 5 + 77, '\0');
  for (char& byte : bytes) byte = char(random());
  for (size_t whole : {size_t(0), size_t(1), size_t(9), size_t(4096), bytes.size()})
    for (size_t split : {size_t(0), size_t(1), whole / 3, whole - (whole > 0), whole}) {
      if (split > whole) continue;
      std::string_view first = std::string_view(bytes).substr(0, split);
      std::string_view second = std::string_view(bytes).substr(split, whole - split);
      uint32_t want = crcOf(Implementation::Portable, std::string(bytes.substr(0, whole)), whole);
      uint32_t got = Crc32c::combine(crcOf(Implementation::Portable, std::string(first), split),
                                     crcOf(Implementation::Fastest, std::string(second),
                                           second.size()),
                                     second.size());
      EXPECT_EQ(got, want) << whole << " bytes split at " << split;
    }
}

}  // namespace
}  // namespace synergy::util
