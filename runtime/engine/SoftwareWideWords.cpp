//===- SoftwareWideWords.cpp - the software engine's wide arithmetic -------===//
//
// This file implements the word-array operations of SoftwareWideWords.h:
// carries through unsigned __int128 for addition and multiplication, and
// shift-and-subtract long division, which is quadratic in the width but
// needs no temporary wider than its operands. Signed operations work on
// magnitudes and fix the sign afterwards, as two's complement allows.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareWideWords.h"

#include <algorithm>
#include <bit>

#include "engine/SoftwareProgram.h"

namespace synergy::engine::software {

void maskToWidth(Words& value, uint32_t width) {
  size_t words = wordsFor(width);
  value.resize(words, 0);
  if (width % 64)
    value.back() &= (uint64_t(1) << (width % 64)) - 1;
}

bool isZeroWords(const Words& value) {
  for (uint64_t word : value)
    if (word) return false;
  return true;
}

bool isNegativeWords(const Words& value, uint32_t width) {
  uint32_t top = width - 1;
  return top / 64 < value.size() && (value[top / 64] >> (top % 64)) & 1;
}

Words resizeWords(const Words& value, uint32_t fromWidth, uint32_t toWidth, bool signExtend) {
  Words result(value.begin(), value.begin() + std::min(value.size(), size_t(wordsFor(fromWidth))));
  maskToWidth(result, fromWidth);
  if (signExtend && toWidth > fromWidth && isNegativeWords(result, fromWidth)) {
    if (fromWidth % 64)
      result.back() |= ~uint64_t(0) << (fromWidth % 64);
    result.resize(wordsFor(toWidth), ~uint64_t(0));
  }
  maskToWidth(result, toWidth);
  return result;
}

uint64_t extractWord(const uint64_t* words, size_t count, uint64_t start) {
  uint64_t index = start / 64, shift = start % 64;
  if (index >= count)
    return 0;
  uint64_t low = words[index] >> shift;
  if (shift && index + 1 < count)
    low |= words[index + 1] << (64 - shift);
  return low;
}

bool depositBits(uint64_t* words, uint32_t width, int64_t position, uint64_t chunk, uint32_t bits) {
  if (bits == 0 || position >= int64_t(width) || position + int64_t(bits) <= 0)
    return false;
  if (position < 0) {
    chunk >>= -position;
    bits -= static_cast<uint32_t>(-position);
    position = 0;
  }
  if (position + int64_t(bits) > int64_t(width))
    bits = static_cast<uint32_t>(int64_t(width) - position);
  uint64_t fieldMask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  chunk &= fieldMask;
  uint64_t index = static_cast<uint64_t>(position) / 64, shift = static_cast<uint64_t>(position) % 64;
  bool changed = false;
  auto write = [&](uint64_t& word, uint64_t mask, uint64_t value) {
    uint64_t updated = (word & ~mask) | (value & mask);
    changed |= updated != word;
    word = updated;
  };
  write(words[index], fieldMask << shift, chunk << shift);
  if (shift && shift + bits > 64)
    write(words[index + 1], fieldMask >> (64 - shift), chunk >> (64 - shift));
  return changed;
}

Words addWords(const Words& a, const Words& b, uint32_t width) {
  Words sum(wordsFor(width));
  unsigned __int128 carry = 0;
  for (size_t k = 0; k < sum.size(); ++k) {
    carry += static_cast<unsigned __int128>(k < a.size() ? a[k] : 0) + (k < b.size() ? b[k] : 0);
    sum[k] = static_cast<uint64_t>(carry);
    carry >>= 64;
  }
  maskToWidth(sum, width);
  return sum;
}

Words negateWords(const Words& a, uint32_t width) {
  Words inverted(wordsFor(width));
  for (size_t k = 0; k < inverted.size(); ++k) inverted[k] = ~(k < a.size() ? a[k] : 0);
  return addWords(inverted, Words{1}, width);
}

Words subtractWords(const Words& a, const Words& b, uint32_t width) {
  return addWords(a, negateWords(b, width), width);
}

Words multiplyWords(const Words& a, const Words& b, uint32_t width) {
  size_t words = wordsFor(width);
  Words product(words, 0);
  for (size_t i = 0; i < std::min(a.size(), words); ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; i + j < words; ++j) {
      carry += static_cast<unsigned __int128>(a[i]) * (j < b.size() ? b[j] : 0) + product[i + j];
      product[i + j] = static_cast<uint64_t>(carry);
      carry >>= 64;
    }
  }
  maskToWidth(product, width);
  return product;
}

int compareWords(const Words& a, const Words& b, uint32_t width, bool isSigned) {
  if (isSigned) {
    bool negativeA = isNegativeWords(a, width), negativeB = isNegativeWords(b, width);
    if (negativeA != negativeB)
      return negativeA ? -1 : 1;
  }
  for (size_t k = wordsFor(width); k-- > 0;) {
    uint64_t x = k < a.size() ? a[k] : 0, y = k < b.size() ? b[k] : 0;
    if (x != y)
      return x < y ? -1 : 1;
  }
  return 0;
}

Words shiftLeftWords(const Words& a, uint64_t amount, uint32_t width) {
  Words result(wordsFor(width), 0);
  if (amount >= width)
    return result;
  for (size_t k = 0; k < result.size(); ++k) {
    uint64_t start = k * 64;
    if (start + 64 <= amount)
      continue;
    // Bits [start - amount, start - amount + 64) of `a`, zero below bit 0.
    if (start >= amount) {
      result[k] = extractWord(a.data(), a.size(), start - amount);
    } else {
      uint64_t shift = amount - start;
      result[k] = extractWord(a.data(), a.size(), 0) << shift;
    }
  }
  maskToWidth(result, width);
  return result;
}

Words shiftRightWords(const Words& a, uint64_t amount, uint32_t width, bool arithmetic) {
  bool fill = arithmetic && isNegativeWords(a, width);
  Words result(wordsFor(width), fill ? ~uint64_t(0) : 0);
  if (amount >= width) {
    maskToWidth(result, width);
    return result;
  }
  Words source = a;
  maskToWidth(source, width);
  if (fill && width % 64)
    source.back() |= ~uint64_t(0) << (width % 64);
  for (size_t k = 0; k < result.size(); ++k) {
    uint64_t start = k * 64 + amount;
    uint64_t word = extractWord(source.data(), source.size(), start);
    uint64_t available = start >= source.size() * 64 ? 0 : source.size() * 64 - start;
    if (fill && available < 64)
      word |= ~uint64_t(0) << available;
    result[k] = word;
  }
  maskToWidth(result, width);
  return result;
}

Words divideWords(const Words& a, const Words& b, uint32_t width, bool isSigned, bool remainder) {
  Words zero(wordsFor(width), 0);
  if (isZeroWords(b))
    return zero;
  bool negativeA = isSigned && isNegativeWords(a, width), negativeB = isSigned && isNegativeWords(b, width);
  Words dividend = negativeA ? negateWords(a, width) : resizeWords(a, width, width, false);
  Words divisor = negativeB ? negateWords(b, width) : resizeWords(b, width, width, false);
  Words quotient = zero, rest = zero;
  // One more word than the width so that the doubled remainder never carries out.
  uint32_t restWidth = static_cast<uint32_t>(zero.size() * 64 + 64);
  rest.resize(wordsFor(restWidth), 0);
  for (uint32_t bit = width; bit-- > 0;) {
    rest = shiftLeftWords(rest, 1, restWidth);
    rest[0] |= (dividend[bit / 64] >> (bit % 64)) & 1;
    if (compareWords(rest, divisor, restWidth, false) >= 0) {
      rest = subtractWords(rest, divisor, restWidth);
      quotient[bit / 64] |= uint64_t(1) << (bit % 64);
    }
  }
  rest.resize(zero.size());
  if (remainder)
    return negativeA ? negateWords(rest, width) : rest;
  return negativeA != negativeB ? negateWords(quotient, width) : quotient;
}

uint64_t populationCount(const Words& a) {
  uint64_t count = 0;
  for (uint64_t word : a) count += static_cast<uint64_t>(std::popcount(word));
  return count;
}

double wordsToDouble(const Words& a, uint32_t width, bool isSigned) {
  bool negative = isSigned && isNegativeWords(a, width);
  Words magnitude = negative ? negateWords(a, width) : resizeWords(a, width, width, false);
  double value = 0;
  for (size_t k = magnitude.size(); k-- > 0;) value = value * 18446744073709551616.0 + double(magnitude[k]);
  return negative ? -value : value;
}

}  // namespace synergy::engine::software
