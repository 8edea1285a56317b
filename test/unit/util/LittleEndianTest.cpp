#include "util/LittleEndian.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using synergy::util::appendLittleEndian;
using synergy::util::readLittleEndian;
using synergy::util::writeLittleEndian;

TEST(LittleEndian, WritesLowBytesFirstAndOnlyTheWidthAsked) {
  uint8_t bytes[9] = {0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee};
  writeLittleEndian(bytes, 0x0102030405060708ull, 3);
  EXPECT_EQ(bytes[0], 0x08);
  EXPECT_EQ(bytes[1], 0x07);
  EXPECT_EQ(bytes[2], 0x06);
  EXPECT_EQ(bytes[3], 0xee);
  writeLittleEndian(bytes, 0x0102030405060708ull, 8);
  EXPECT_EQ(bytes[7], 0x01);
  EXPECT_EQ(bytes[8], 0xee);
}

TEST(LittleEndian, ReadsWhatWasWrittenAtEveryWidth) {
  const uint64_t value = 0xfedcba9876543210ull;
  for (size_t width = 1; width <= 8; ++width) {
    uint8_t bytes[8] = {};
    writeLittleEndian(bytes, value, width);
    const uint64_t mask = width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
    EXPECT_EQ(readLittleEndian(bytes, width), value & mask) << width;
  }
}

TEST(LittleEndian, CharBuffersReadHighBytesUnsigned) {
  const std::string text("\xff\x80", 2);
  EXPECT_EQ(readLittleEndian(text.data(), 2), 0x80ffu);
}

TEST(LittleEndian, AppendsToVectorsAndStringsAlike) {
  std::vector<uint8_t> vector;
  std::string string;
  appendLittleEndian(vector, 0xa1b2c3d4u, 4);
  appendLittleEndian(string, 0xa1b2c3d4u, 4);
  ASSERT_EQ(vector.size(), 4u);
  ASSERT_EQ(string.size(), 4u);
  EXPECT_EQ(vector[0], 0xd4);
  EXPECT_EQ(uint8_t(string[3]), 0xa1);
  EXPECT_EQ(readLittleEndian(vector.data(), 4), readLittleEndian(string.data(), 4));
}
