//===- PrintableText.cpp - bytes as text that fits one message line -------===//
//
// This file implements hexDigits and printableText (PrintableText.h).
//
//===----------------------------------------------------------------------===//
#include "util/PrintableText.h"

namespace synergy::util {

namespace {
constexpr char kHexDigits[] = "0123456789abcdef";
}  // namespace

std::string hexDigits(std::span<const uint8_t> bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (uint8_t byte : bytes) {
    text.push_back(kHexDigits[byte >> 4]);
    text.push_back(kHexDigits[byte & 15]);
  }
  return text;
}

std::string printableText(std::string_view text, std::string_view alsoEscaped) {
  std::string shown;
  shown.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<uint8_t>(c);
    if (byte >= 0x20 && byte < 0x7f && alsoEscaped.find(c) == std::string_view::npos) {
      shown.push_back(c);
    } else {
      shown += "\\x";
      shown.push_back(kHexDigits[byte >> 4]);
      shown.push_back(kHexDigits[byte & 15]);
    }
  }
  return shown;
}

}  // namespace synergy::util
