//===- LimitOptions.cpp - parsing the values of resource-limit options ----===//
//
// Hand-written scanners rather than strtoull/strtod: those accept leading
// spaces, signs, exponents, "inf" and hexadecimal, and wrap or saturate on
// overflow, none of which a limit given by a tenant should mean.
//
//===----------------------------------------------------------------------===//
#include "util/LimitOptions.h"

namespace synergy::util {
namespace {

constexpr uint64_t kMaxByteCount = uint64_t(1) << 62;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<uint64_t> parseByteCount(const std::string& text, const std::string& option,
                                       std::string& error) {
  auto refuse = [&](const std::string& why) -> std::optional<uint64_t> {
    error = option + " expects a byte count such as 65536, 512K, 64MiB or 2G" + why + ", got '" +
            text + "'";
    return std::nullopt;
  };
  size_t pos = 0;
  uint64_t value = 0;
  while (pos < text.size() && isDigit(text[pos])) {
    if (value > kMaxByteCount / 10) return refuse(" (at most 2^62)");
    value = value * 10 + uint64_t(text[pos++] - '0');
  }
  if (pos == 0) return refuse("");
  std::string suffix = text.substr(pos);
  uint64_t unit = 1;
  if (suffix == "K" || suffix == "KiB")
    unit = uint64_t(1) << 10;
  else if (suffix == "M" || suffix == "MiB")
    unit = uint64_t(1) << 20;
  else if (suffix == "G" || suffix == "GiB")
    unit = uint64_t(1) << 30;
  else if (!suffix.empty())
    return refuse(" (suffixes K, M, G, KiB, MiB, GiB, all powers of 1024)");
  if (value == 0) return refuse(" (more than zero)");
  if (value > kMaxByteCount / unit) return refuse(" (at most 2^62)");
  return value * unit;
}

std::optional<std::chrono::nanoseconds> parseSeconds(const std::string& text,
                                                     const std::string& option,
                                                     std::string& error) {
  auto refuse = [&](const std::string& why) -> std::optional<std::chrono::nanoseconds> {
    error = option + " expects seconds such as 10 or 0.5" + why + ", got '" + text + "'";
    return std::nullopt;
  };
  size_t pos = 0;
  uint64_t whole = 0;
  while (pos < text.size() && isDigit(text[pos])) {
    whole = whole * 10 + uint64_t(text[pos++] - '0');
    if (whole > kMaxLimitSeconds) return refuse(" (at most one year)");
  }
  size_t wholeDigits = pos;
  uint64_t nanos = 0;
  size_t fractionDigits = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    // Digits past nanoseconds are read and dropped.
    for (uint64_t scale = 100000000; pos < text.size() && isDigit(text[pos]); ++pos) {
      nanos += uint64_t(text[pos] - '0') * scale;
      scale /= 10;
      ++fractionDigits;
    }
    if (fractionDigits == 0) return refuse("");
  }
  if (wholeDigits == 0 || pos != text.size()) return refuse("");
  if (whole == 0 && nanos == 0) return refuse(" (more than zero)");
  if (whole == kMaxLimitSeconds && nanos != 0) return refuse(" (at most one year)");
  return std::chrono::seconds(whole) + std::chrono::nanoseconds(nanos);
}

}  // namespace synergy::util
