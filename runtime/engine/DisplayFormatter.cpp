//===- DisplayFormatter.cpp - Icarus-compatible $display formatting --------===//
//
// The padding rules below were measured against vvp (Icarus 11) and are
// checked by test/unit/engine/DisplayFormatterTest.cpp, which runs vvp:
//  - without a width, %h/%o/%b zero-pad to the digits the bit width needs and
//    %d space-pads to the widest decimal the width can hold (one more column
//    for the sign when signed); %0x prints no padding at all;
//  - with a width, %d starts from its minimal digits and %h/%o/%b from their
//    zero-padded digits, then both pad with spaces (zeros under a leading 0)
//    on the left, or on the right under '-';
//  - %s prints every byte of a value, leading NUL bytes as spaces, unless %0s;
//  - %t prints the value in decimal right-aligned in 20 columns;
//  - %e/%f/%g follow C printf on the value converted to real;
//  - a real has no bit width: %d prints it rounded half away from zero with
//    every integer digit and pads only to an explicit width, and a real
//    with no format prints as C's %#g.
//
//===----------------------------------------------------------------------===//
#include "engine/DisplayFormatter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace synergy::engine {

DisplayArg DisplayArg::ofValue(BitValue value) {
  DisplayArg arg;
  arg.kind = Kind::Value;
  arg.value = std::move(value);
  return arg;
}

DisplayArg DisplayArg::ofString(std::string text) {
  DisplayArg arg;
  arg.kind = Kind::StringLiteral;
  arg.text = std::move(text);
  return arg;
}

DisplayArg DisplayArg::ofReal(double real) {
  DisplayArg arg;
  arg.kind = Kind::Real;
  arg.real = real;
  return arg;
}

// Unsigned decimal digits of the magnitude held in `words`, by repeated
// division by 10^9 so any width works.
static std::string unsignedDecimal(std::vector<uint32_t> words) {
  if (words.size() <= 2) {
    uint64_t low = words.empty() ? 0 : words[0];
    uint64_t high = words.size() == 2 ? words[1] : 0;
    return std::to_string(high << 32 | low);
  }
  std::string digits;
  auto isZero = [&] { return std::all_of(words.begin(), words.end(), [](uint32_t w) { return w == 0; }); };
  if (isZero())
    return "0";
  while (!isZero()) {
    uint64_t remainder = 0;
    for (size_t i = words.size(); i-- > 0;) {
      uint64_t current = (remainder << 32) | words[i];
      words[i] = static_cast<uint32_t>(current / 1000000000u);
      remainder = current % 1000000000u;
    }
    for (int i = 0; i < 9; ++i) {
      digits.push_back(static_cast<char>('0' + remainder % 10));
      remainder /= 10;
      if (isZero() && remainder == 0)
        break;
    }
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

static std::vector<uint32_t> negatedWords(const BitValue& value) {
  BitValue negated = value;
  uint64_t carry = 1;
  for (uint32_t& word : negated.words) {
    uint64_t sum = static_cast<uint64_t>(~word) + carry;
    word = static_cast<uint32_t>(sum);
    carry = sum >> 32;
  }
  negated.normalize();
  return negated.words;
}

static std::string signedDecimal(const BitValue& value) {
  if (value.isNegative())
    return "-" + unsignedDecimal(negatedWords(value));
  return unsignedDecimal(value.words);
}

static unsigned bitsPerDigit(DisplayRadix radix) {
  switch (radix) {
  case DisplayRadix::Hex:
    return 4;
  case DisplayRadix::Octal:
    return 3;
  case DisplayRadix::Binary:
    return 1;
  case DisplayRadix::Decimal:
    break;
  }
  return 0;
}

// %h/%o/%b digits zero-padded to the width the value's bit count needs.
static std::string naturalPowerOfTwoDigits(const BitValue& value, DisplayRadix radix) {
  unsigned bits = bitsPerDigit(radix);
  uint32_t width = std::max<uint32_t>(value.width, 1);
  uint32_t digitCount = (width + bits - 1) / bits;
  std::string digits(digitCount, '0');
  for (uint32_t d = 0; d < digitCount; ++d) {
    // A digit's bits start at d * bits; an octal digit may straddle words.
    uint32_t first = d * bits;
    uint64_t window = first / 32 < value.words.size() ? value.words[first / 32] : 0;
    if (first / 32 + 1 < value.words.size())
      window |= static_cast<uint64_t>(value.words[first / 32 + 1]) << 32;
    digits[digitCount - 1 - d] = "0123456789abcdef"[(window >> (first % 32)) & ((1u << bits) - 1)];
  }
  return digits;
}

std::string formatMinimalDigits(const BitValue& value, DisplayRadix radix) {
  if (radix == DisplayRadix::Decimal)
    return signedDecimal(value);
  std::string digits = naturalPowerOfTwoDigits(value, radix);
  size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

// The column count %d pads to without an explicit width: the digits of the
// largest magnitude the width holds, plus a sign column when signed. Every
// $display of a variable asks again, so the count is kept per width.
static size_t naturalDecimalWidth(const BitValue& value) {
  uint32_t width = std::max<uint32_t>(value.width, 1);
  static thread_local std::unordered_map<uint64_t, size_t> known;
  uint64_t key = uint64_t(width) << 1 | (value.isSigned ? 1 : 0);
  if (auto found = known.find(key); found != known.end())
    return found->second;
  BitValue largest = BitValue::zero(width);
  size_t columns;
  if (value.isSigned) {
    largest.setBit(width - 1, true);  // 2^(n-1), the largest negative magnitude
    columns = unsignedDecimal(largest.words).size() + 1;
  } else {
    for (uint32_t i = 0; i < width; ++i)
      largest.setBit(i, true);
    columns = unsignedDecimal(largest.words).size();
  }
  known.emplace(key, columns);
  return columns;
}

namespace {
struct Spec {
  bool leftJustify = false;
  bool plusSign = false;
  bool zeroPad = false;
  int width = -1;  // -1: not given; 0: minimal
  int precision = -1;
  char conversion = 0;
};
}  // namespace

static std::string pad(std::string text, const Spec& spec) {
  if (spec.width <= 0 || text.size() >= static_cast<size_t>(spec.width))
    return text;
  size_t fill = static_cast<size_t>(spec.width) - text.size();
  if (spec.leftJustify)
    return text + std::string(fill, ' ');
  if (spec.zeroPad) {
    size_t signLength = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    return text.substr(0, signLength) + std::string(fill, '0') + text.substr(signLength);
  }
  return std::string(fill, ' ') + text;
}

// The bits an integer conversion prints: the value itself, or for a literal
// or a real one made in `scratch`.
static const BitValue& argAsValue(const DisplayArg& arg, BitValue& scratch) {
  if (arg.kind == DisplayArg::Kind::Real)
    return scratch = BitValue::fromInt64(static_cast<int64_t>(std::llround(arg.real)), 64);
  if (arg.kind == DisplayArg::Kind::StringLiteral)
    return scratch = BitValue::fromString(arg.text);
  return arg.value;
}

static double argAsReal(const DisplayArg& arg) {
  if (arg.kind == DisplayArg::Kind::Real)
    return arg.real;
  return arg.value.toDouble();
}

static std::string formatDecimal(const BitValue& value, const Spec& spec) {
  std::string digits = signedDecimal(value);
  if (spec.plusSign && digits[0] != '-')
    digits.insert(digits.begin(), '+');
  if (spec.width == 0)
    return digits;
  if (spec.width < 0) {
    Spec natural = spec;
    natural.width = static_cast<int>(naturalDecimalWidth(value));
    return pad(digits, natural);
  }
  return pad(digits, spec);
}

static std::string formatPowerOfTwo(const BitValue& value, DisplayRadix radix, const Spec& spec) {
  if (spec.width == 0)
    return formatMinimalDigits(value, radix);
  return pad(naturalPowerOfTwoDigits(value, radix), spec);
}

static std::string formatString(const DisplayArg& arg, const Spec& spec) {
  std::string text;
  if (arg.kind == DisplayArg::Kind::StringLiteral) {
    text = arg.text;
  } else {
    BitValue scratch;
    text = argAsValue(arg, scratch).toBytes();
    size_t firstNonNul = text.find_first_not_of('\0');
    if (firstNonNul == std::string::npos)
      firstNonNul = text.size();
    if (spec.width == 0)
      text.erase(0, firstNonNul);
    else
      std::fill(text.begin(), text.begin() + static_cast<long>(firstNonNul), ' ');
  }
  return pad(text, spec);
}

static std::string formatTime(const BitValue& value, const Spec& spec) {
  std::string digits = signedDecimal(value);
  if (spec.width == 0)
    return digits;
  Spec timeSpec = spec;
  if (timeSpec.width < 0)
    timeSpec.width = 20;
  return pad(digits, timeSpec);
}

static std::string formatReal(double real, const Spec& spec) {
  std::string cFormat = "%";
  if (spec.leftJustify)
    cFormat += '-';
  if (spec.plusSign)
    cFormat += '+';
  if (spec.zeroPad)
    cFormat += '0';
  if (spec.width > 0)
    cFormat += std::to_string(spec.width);
  if (spec.precision >= 0)
    cFormat += "." + std::to_string(spec.precision);
  cFormat += static_cast<char>(std::tolower(static_cast<unsigned char>(spec.conversion)));
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, cFormat.c_str(), real);
  return buffer;
}

static std::string formatRealAsDecimal(double real, const Spec& spec) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, spec.plusSign ? "%+.0f" : "%.0f", std::round(real));
  return pad(buffer, spec);
}

static std::string formatDefault(const DisplayArg& arg, DisplayRadix radix) {
  Spec spec;
  if (arg.kind == DisplayArg::Kind::Real) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, "%#g", arg.real);
    return buffer;
  }
  BitValue scratch;
  const BitValue& value = argAsValue(arg, scratch);
  if (radix == DisplayRadix::Decimal)
    return formatDecimal(value, spec);
  return formatPowerOfTwo(value, radix, spec);
}

// Formats one format string, consuming arguments from `next` onward.
static void formatOne(const std::string& format, const std::vector<DisplayArg>& args, size_t& next,
                      const DisplayContext& context, std::string& out) {
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c != '%' || i + 1 >= format.size()) {
      out.push_back(c);
      continue;
    }
    Spec spec;
    size_t j = i + 1;
    for (; j < format.size(); ++j) {
      if (format[j] == '-')
        spec.leftJustify = true;
      else if (format[j] == '+')
        spec.plusSign = true;
      else
        break;
    }
    if (j < format.size() && format[j] == '0') {
      size_t k = j;
      while (k < format.size() && format[k] == '0')
        ++k;
      if (k < format.size() && std::isdigit(static_cast<unsigned char>(format[k])))
        spec.zeroPad = true;
      else
        spec.width = 0;
      j = k;
    }
    if (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j]))) {
      spec.width = 0;
      while (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j])))
        spec.width = spec.width * 10 + (format[j++] - '0');
    }
    if (j < format.size() && format[j] == '.') {
      spec.precision = 0;
      ++j;
      while (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j])))
        spec.precision = spec.precision * 10 + (format[j++] - '0');
    }
    if (j >= format.size()) {
      out.append(format, i, std::string::npos);
      return;
    }
    spec.conversion = format[j];
    i = j;
    char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(spec.conversion)));
    if (lower == '%') {
      out.push_back('%');
      continue;
    }
    if (lower == 'm') {
      out += pad(context.scope, spec);
      continue;
    }
    if (next >= args.size()) {
      // vvp prints a missing argument's specifier unchanged.
      out.push_back('%');
      out.push_back(spec.conversion);
      continue;
    }
    const DisplayArg& arg = args[next++];
    BitValue scratch;
    switch (lower) {
    case 'd':
      if (arg.kind == DisplayArg::Kind::Real)
        out += formatRealAsDecimal(arg.real, spec);
      else
        out += formatDecimal(argAsValue(arg, scratch), spec);
      break;
    case 'h':
    case 'x':
      out += formatPowerOfTwo(argAsValue(arg, scratch), DisplayRadix::Hex, spec);
      break;
    case 'o':
      out += formatPowerOfTwo(argAsValue(arg, scratch), DisplayRadix::Octal, spec);
      break;
    case 'b':
      out += formatPowerOfTwo(argAsValue(arg, scratch), DisplayRadix::Binary, spec);
      break;
    case 's':
      out += formatString(arg, spec);
      break;
    case 'c':
      out += pad(std::string(1, static_cast<char>(argAsValue(arg, scratch).resized(8).words[0])), spec);
      break;
    case 't':
      out += formatTime(argAsValue(arg, scratch), spec);
      break;
    case 'e':
    case 'f':
    case 'g':
      out += formatReal(argAsReal(arg), spec);
      break;
    default:
      // An unknown specifier consumes nothing and prints as written.
      --next;
      out.push_back('%');
      out.push_back(spec.conversion);
      break;
    }
  }
}

std::string formatDisplay(const std::vector<DisplayArg>& args, DisplayRadix defaultRadix,
                          const DisplayContext& context) {
  std::string out;
  size_t next = 0;
  while (next < args.size()) {
    const DisplayArg& arg = args[next++];
    if (arg.kind == DisplayArg::Kind::StringLiteral)
      formatOne(arg.text, args, next, context, out);
    else
      out += formatDefault(arg, defaultRadix);
  }
  return out;
}

}  // namespace synergy::engine
