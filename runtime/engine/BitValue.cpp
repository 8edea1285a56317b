//===- BitValue.cpp - a 2-state Verilog value of any width -----------------===//
//
// Construction, bit access and width changes for BitValue. Everything keeps
// the invariant that bits above `width` are zero.
//
//===----------------------------------------------------------------------===//
#include "engine/BitValue.h"

#include <algorithm>
#include <cmath>

namespace synergy::engine {

static size_t wordCount(uint32_t width) { return (width + 31) / 32; }

BitValue BitValue::zero(uint32_t width, bool isSigned) {
  BitValue value;
  value.width = width;
  value.isSigned = isSigned;
  value.words.assign(wordCount(width), 0);
  return value;
}

BitValue BitValue::fromUint64(uint64_t raw, uint32_t width, bool isSigned) {
  BitValue value = zero(width, isSigned);
  if (!value.words.empty())
    value.words[0] = static_cast<uint32_t>(raw);
  if (value.words.size() > 1)
    value.words[1] = static_cast<uint32_t>(raw >> 32);
  value.normalize();
  return value;
}

BitValue BitValue::fromInt64(int64_t raw, uint32_t width) {
  BitValue value = zero(width, true);
  for (size_t i = 0; i < value.words.size(); ++i) {
    uint32_t shift = static_cast<uint32_t>(i * 32);
    value.words[i] = shift < 64 ? static_cast<uint32_t>(static_cast<uint64_t>(raw) >> shift)
                                : (raw < 0 ? 0xffffffffu : 0u);
  }
  value.normalize();
  return value;
}

BitValue BitValue::fromString(const std::string& text) {
  BitValue value = zero(static_cast<uint32_t>(text.size() * 8));
  for (size_t i = 0; i < text.size(); ++i) {
    uint32_t byteIndex = static_cast<uint32_t>(text.size() - 1 - i);
    uint8_t byte = static_cast<uint8_t>(text[i]);
    value.words[byteIndex / 4] |= static_cast<uint32_t>(byte) << (8 * (byteIndex % 4));
  }
  return value;
}

bool BitValue::isZero() const {
  for (uint32_t word : words)
    if (word)
      return false;
  return true;
}

uint64_t BitValue::toUint64() const {
  uint64_t value = words.empty() ? 0 : words[0];
  if (words.size() > 1)
    value |= static_cast<uint64_t>(words[1]) << 32;
  if (width < 64 && isNegative())
    value |= ~uint64_t(0) << width;
  return value;
}

int64_t BitValue::toInt64() const { return static_cast<int64_t>(toUint64()); }

double BitValue::toDouble() const {
  bool negative = isNegative();
  BitValue magnitude = *this;
  if (negative) {
    // Two's complement negate: invert and add one.
    uint64_t carry = 1;
    for (uint32_t& word : magnitude.words) {
      uint64_t sum = static_cast<uint64_t>(~word) + carry;
      word = static_cast<uint32_t>(sum);
      carry = sum >> 32;
    }
    magnitude.normalize();
  }
  double result = 0;
  for (size_t i = magnitude.words.size(); i-- > 0;)
    result = result * 4294967296.0 + magnitude.words[i];
  return negative ? -result : result;
}

BitValue BitValue::resized(uint32_t newWidth) const {
  BitValue value = zero(newWidth, isSigned);
  size_t kept = std::min(words.size(), value.words.size());
  std::copy(words.begin(), words.begin() + kept, value.words.begin());
  if (newWidth > width && isNegative()) {
    // Sign extension: ones from bit `width` up, the top word trimmed below.
    if (width % 32)
      value.words[width / 32] |= ~uint32_t(0) << (width % 32);
    std::fill(value.words.begin() + wordCount(width), value.words.end(), ~uint32_t(0));
  }
  value.normalize();
  return value;
}

std::string BitValue::toBytes() const {
  std::string bytes;
  uint32_t byteCount = (width + 7) / 8;
  for (uint32_t i = byteCount; i-- > 0;) {
    uint32_t byte = 0;
    for (uint32_t b = 0; b < 8; ++b)
      byte |= static_cast<uint32_t>(bit(i * 8 + b)) << b;
    bytes.push_back(static_cast<char>(byte));
  }
  return bytes;
}

void BitValue::normalize() {
  words.resize(wordCount(width));
  if (width % 32 && !words.empty())
    words.back() &= (1u << (width % 32)) - 1;
}

}  // namespace synergy::engine
