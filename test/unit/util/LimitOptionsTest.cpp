// Unit tests for the values of --max-memory and --time-limit: every suffix
// and the exact boundaries, and that nothing half-parsed is accepted.
#include <gtest/gtest.h>

#include "util/LimitOptions.h"

using namespace synergy::util;
using std::chrono::nanoseconds;

namespace {

std::optional<uint64_t> bytes(const std::string& text) {
  std::string error;
  auto value = parseByteCount(text, "--max-memory", error);
  EXPECT_EQ(value.has_value(), error.empty()) << text;
  return value;
}

std::optional<nanoseconds> seconds(const std::string& text) {
  std::string error;
  auto value = parseSeconds(text, "--time-limit", error);
  EXPECT_EQ(value.has_value(), error.empty()) << text;
  return value;
}

TEST(LimitOptionsTest, ByteCountSuffixesArePowersOf1024) {
  EXPECT_EQ(bytes("65536"), 65536u);
  EXPECT_EQ(bytes("3K"), 3u << 10);
  EXPECT_EQ(bytes("3KiB"), 3u << 10);
  EXPECT_EQ(bytes("5M"), 5u << 20);
  EXPECT_EQ(bytes("5MiB"), 5u << 20);
  EXPECT_EQ(bytes("7G"), uint64_t(7) << 30);
  EXPECT_EQ(bytes("7GiB"), uint64_t(7) << 30);
  EXPECT_EQ(bytes("4611686018427387904"), uint64_t(1) << 62);
  EXPECT_EQ(bytes("4294967296G"), uint64_t(1) << 62);
}

TEST(LimitOptionsTest, ByteCountRefusals) {
  for (const char* text : {"", "0", "0K", "-1", "+1", " 1", "1 ", "1.5M", "1k", "1KB", "1T",
                           "K", "0x10", "4611686018427387905", "4294967297G",
                           "99999999999999999999999"})
    EXPECT_FALSE(bytes(text)) << text;
  std::string error;
  parseByteCount("16X", "--max-memory", error);
  EXPECT_EQ(error,
            "--max-memory expects a byte count such as 65536, 512K, 64MiB or 2G (suffixes K, M, "
            "G, KiB, MiB, GiB, all powers of 1024), got '16X'");
}

TEST(LimitOptionsTest, SecondsWithFractions) {
  EXPECT_EQ(seconds("2"), nanoseconds(2000000000));
  EXPECT_EQ(seconds("0.25"), nanoseconds(250000000));
  EXPECT_EQ(seconds("1.000000001"), nanoseconds(1000000001));
  // Past nanoseconds, digits are dropped, not rounded.
  EXPECT_EQ(seconds("0.0000000019"), nanoseconds(1));
  EXPECT_EQ(seconds("31536000"), std::chrono::seconds(kMaxLimitSeconds));
}

TEST(LimitOptionsTest, SecondsRefusals) {
  for (const char* text : {"", "0", "0.0", "0.0000000001", "-1", "+1", ".5", "5.", "1e3",
                           "0x10", "inf", "nan", "1 ", "1,5", "31536000.5", "31536001",
                           "99999999999999999999999"})
    EXPECT_FALSE(seconds(text)) << text;
  std::string error;
  parseSeconds("0", "--time-limit", error);
  EXPECT_EQ(error, "--time-limit expects seconds such as 10 or 0.5 (more than zero), got '0'");
}

}  // namespace
