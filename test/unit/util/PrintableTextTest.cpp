//===- PrintableTextTest.cpp - escaping and hex for messages --------------===//
#include <gtest/gtest.h>

#include <array>

#include "util/PrintableText.h"

namespace synergy::util {
namespace {

TEST(PrintableTextTest, PrintableAsciiStaysAsItIs) {
  EXPECT_EQ(printableText("count_1 [7:0]"), "count_1 [7:0]");
}

TEST(PrintableTextTest, ControlAndHighBytesBecomeHexEscapes) {
  EXPECT_EQ(printableText(std::string_view("a\nb\x1b[2J\x7f\xff\0z", 11)), "a\\x0ab\\x1b[2J\\x7f\\xff\\x00z");
}

TEST(PrintableTextTest, CallerChosenCharactersAreEscaped) {
  EXPECT_EQ(printableText("it's \"x\\y\"", "'\"\\"), "it\\x27s \\x22x\\x5cy\\x22");
  EXPECT_EQ(printableText("it's", ""), "it's");
}

TEST(PrintableTextTest, HexDigitsAreLowercaseInOrder) {
  std::array<uint8_t, 5> bytes = {0x00, 0x0f, 0xa0, 0xff, 0x5c};
  EXPECT_EQ(hexDigits(bytes), "000fa0ff5c");
  EXPECT_EQ(hexDigits({}), "");
}

}  // namespace
}  // namespace synergy::util
