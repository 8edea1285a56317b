//===- ScanFormat.cpp - $fscanf/$sscanf input matching ---------------------===//
#include "engine/ScanFormat.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace synergy::engine {

static bool isDigitIn(int c, char conversion) {
  switch (conversion) {
  case 'd':
    return std::isdigit(c);
  case 'h':
    return std::isxdigit(c) || c == 'x' || c == 'X' || c == 'z' || c == 'Z' || c == '_';
  case 'o':
    return (c >= '0' && c <= '7') || c == 'x' || c == 'X' || c == 'z' || c == 'Z' || c == '_';
  case 'b':
    return c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z' || c == '_';
  default:
    return false;
  }
}

static bool isRealChar(int c) {
  return std::isdigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

int scanFormatted(CharSource& source, const std::string& format, std::vector<ScannedItem>& items) {
  int assigned = 0;
  bool readAnything = false;
  bool atEnd = false;
  auto get = [&] {
    int c = source.get();
    if (c == EOF)
      atEnd = true;
    else
      readAnything = true;
    return c;
  };
  auto skipSpace = [&] {
    int c;
    do
      c = get();
    while (c != EOF && std::isspace(c));
    if (c != EOF)
      source.unget(c);
  };
  auto endResult = [&] { return (!readAnything && atEnd && assigned == 0) ? -1 : assigned; };

  for (size_t i = 0; i < format.size(); ++i) {
    char f = format[i];
    if (std::isspace(static_cast<unsigned char>(f))) {
      skipSpace();
      continue;
    }
    if (f != '%' || i + 1 >= format.size()) {
      int c = get();
      if (c != f) {
        if (c != EOF)
          source.unget(c);
        return endResult();
      }
      continue;
    }
    ++i;
    bool suppress = false;
    if (format[i] == '*') {
      suppress = true;
      ++i;
    }
    size_t maxWidth = 0;
    while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
      maxWidth = maxWidth * 10 + static_cast<size_t>(format[i++] - '0');
    if (i >= format.size())
      break;
    char conversion = static_cast<char>(std::tolower(static_cast<unsigned char>(format[i])));
    if (conversion == 'x')
      conversion = 'h';
    if (conversion == '%') {
      skipSpace();
      int c = get();
      if (c != '%') {
        if (c != EOF)
          source.unget(c);
        return endResult();
      }
      continue;
    }
    std::string token;
    auto roomLeft = [&] { return maxWidth == 0 || token.size() < maxWidth; };
    if (conversion == 'c') {
      int c = get();
      if (c == EOF)
        return endResult();
      token.push_back(static_cast<char>(c));
    } else {
      skipSpace();
      int c = get();
      if (conversion == 's') {
        while (c != EOF && !std::isspace(c) && roomLeft()) {
          token.push_back(static_cast<char>(c));
          c = get();
        }
      } else if (conversion == 'e' || conversion == 'f' || conversion == 'g') {
        while (c != EOF && isRealChar(c) && roomLeft()) {
          token.push_back(static_cast<char>(c));
          c = get();
        }
      } else if (conversion == 'd' || conversion == 'h' || conversion == 'o' || conversion == 'b') {
        if (conversion == 'd' && (c == '-' || c == '+') && roomLeft()) {
          token.push_back(static_cast<char>(c));
          c = get();
        }
        while (c != EOF && isDigitIn(c, conversion) && roomLeft()) {
          token.push_back(static_cast<char>(c));
          c = get();
        }
      } else {
        // An unknown conversion ends the scan, as a mismatch would.
        if (c != EOF)
          source.unget(c);
        return endResult();
      }
      if (c != EOF)
        source.unget(c);
      bool onlySign = token == "-" || token == "+";
      if (token.empty() || onlySign)
        return endResult();
    }
    if (!suppress) {
      items.push_back({conversion, token});
      ++assigned;
    }
  }
  return assigned;
}

BitValue parseDigits(const std::string& digits, unsigned base, uint32_t width) {
  BitValue value = BitValue::zero(width);
  for (char c : digits) {
    if (c == '_')
      continue;
    unsigned digit = 0;
    if (std::isdigit(static_cast<unsigned char>(c)))
      digit = static_cast<unsigned>(c - '0');
    else if (std::isxdigit(static_cast<unsigned char>(c)))
      digit = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    // value = value * base + digit, wrapping at width.
    uint64_t carry = digit;
    for (uint32_t& word : value.words) {
      uint64_t product = static_cast<uint64_t>(word) * base + carry;
      word = static_cast<uint32_t>(product);
      carry = product >> 32;
    }
    value.normalize();
  }
  return value;
}

BitValue scannedValue(const ScannedItem& item, uint32_t width, bool targetIsReal) {
  if (targetIsReal || item.conversion == 'e' || item.conversion == 'f' || item.conversion == 'g') {
    double real = std::strtod(item.token.c_str(), nullptr);
    if (targetIsReal) {
      uint64_t bits;
      std::memcpy(&bits, &real, sizeof bits);
      return BitValue::fromUint64(bits, width);
    }
    return BitValue::fromInt64(static_cast<int64_t>(real), width);
  }
  switch (item.conversion) {
  case 'd': {
    bool negative = !item.token.empty() && item.token[0] == '-';
    size_t start = (!item.token.empty() && (item.token[0] == '-' || item.token[0] == '+')) ? 1 : 0;
    BitValue magnitude = parseDigits(item.token.substr(start), 10, width);
    if (!negative)
      return magnitude;
    uint64_t carry = 1;
    for (uint32_t& word : magnitude.words) {
      uint64_t sum = static_cast<uint64_t>(~word) + carry;
      word = static_cast<uint32_t>(sum);
      carry = sum >> 32;
    }
    magnitude.normalize();
    return magnitude;
  }
  case 'h':
    return parseDigits(item.token, 16, width);
  case 'o':
    return parseDigits(item.token, 8, width);
  case 'b':
    return parseDigits(item.token, 2, width);
  case 'c':
    return BitValue::fromUint64(static_cast<uint8_t>(item.token[0]), width);
  default: {
    // %s: the characters right-aligned, as a string literal assigns them.
    BitValue bytes = BitValue::fromString(item.token);
    bytes.isSigned = false;
    return bytes.resized(width);
  }
  }
}

}  // namespace synergy::engine
