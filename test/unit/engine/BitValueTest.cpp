//===- BitValueTest.cpp - width changes and 64-bit views of BitValue -------===//
//
// resized() and toUint64() work a word at a time; these tests hold them to
// the bit-by-bit definition (truncate, or extend with zeros or the sign bit)
// at widths on both sides of every word boundary.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "engine/BitValue.h"

namespace synergy::engine {
namespace {

// A value of `width` bits whose bit i is set when i % 3 != 1, with the top
// bit forced to `top`: a pattern that differs from its neighbours in every
// word.
BitValue patterned(uint32_t width, bool isSigned, bool top) {
  BitValue value = BitValue::zero(width, isSigned);
  for (uint32_t i = 0; i < width; ++i) value.setBit(i, i % 3 != 1);
  if (width) value.setBit(width - 1, top);
  return value;
}

TEST(BitValueTest, ResizedMatchesBitwiseDefinition) {
  const uint32_t widths[] = {1, 5, 31, 32, 33, 63, 64, 65, 95, 96, 97, 130};
  for (uint32_t from : widths)
    for (uint32_t to : widths)
      for (bool isSigned : {false, true})
        for (bool top : {false, true}) {
          BitValue value = patterned(from, isSigned, top);
          BitValue result = value.resized(to);
          SCOPED_TRACE("from " + std::to_string(from) + " to " + std::to_string(to) +
                       (isSigned ? " signed" : " unsigned") + (top ? " top 1" : " top 0"));
          ASSERT_EQ(result.width, to);
          ASSERT_EQ(result.isSigned, isSigned);
          ASSERT_EQ(result.words.size(), (to + 31) / 32);
          bool fill = isSigned && top;
          for (uint32_t i = 0; i < to; ++i)
            ASSERT_EQ(result.bit(i), i < from ? value.bit(i) : fill) << "bit " << i;
          if (to % 32) EXPECT_EQ(result.words.back() >> (to % 32), 0u) << "bits above width";
        }
}

TEST(BitValueTest, ToUint64ExtendsPerSignedness) {
  EXPECT_EQ(BitValue::fromUint64(0x5, 3).toUint64(), 0x5u);
  EXPECT_EQ(BitValue::fromUint64(0x5, 3, /*isSigned=*/true).toUint64(), ~uint64_t(0) - 2);
  EXPECT_EQ(BitValue::fromInt64(-2, 40).toInt64(), -2);
  EXPECT_EQ(BitValue::fromUint64(0x8000000000000001ull, 64).toUint64(), 0x8000000000000001ull);
  EXPECT_EQ(BitValue::fromUint64(0x1234, 0).toUint64(), 0u);
  BitValue wide = patterned(100, /*isSigned=*/true, /*top=*/true);
  EXPECT_EQ(wide.toUint64(),
            (static_cast<uint64_t>(wide.words[1]) << 32) | wide.words[0]);
}

}  // namespace
}  // namespace synergy::engine
