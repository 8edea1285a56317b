//===- BitValue.h - a 2-state Verilog value of any width -------------------===//
//
// Engines are 2-state (Verilator drops x and z), so a variable's value is just
// its bits. BitValue holds them little-endian in 32-bit words, the same layout
// Verilator uses for wide signals and the state-access port transfers, plus
// the width and signedness that display formatting and sign extension need.
// Bits above `width` are always zero.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synergy::engine {

struct BitValue {
  uint32_t width = 0;
  bool isSigned = false;
  std::vector<uint32_t> words;  // ceil(width / 32) words, least significant first

  static BitValue zero(uint32_t width, bool isSigned = false);
  static BitValue fromUint64(uint64_t value, uint32_t width, bool isSigned = false);
  static BitValue fromInt64(int64_t value, uint32_t width);
  // A string literal as Verilog sees it: 8 bits per character, first character
  // in the most significant byte.
  static BitValue fromString(const std::string& text);

  // Inline: $readmem and the formatters set and test bits one at a
  // time on every trap.
  bool bit(uint32_t index) const { return index < width && (words[index / 32] >> (index % 32)) & 1; }
  void setBit(uint32_t index, bool value) {
    if (index >= width)
      return;
    uint32_t mask = 1u << (index % 32);
    words[index / 32] = value ? words[index / 32] | mask : words[index / 32] & ~mask;
  }
  bool isNegative() const { return isSigned && width > 0 && bit(width - 1); }
  bool isZero() const;
  // Low 64 bits, zero- or sign-extended per isSigned.
  uint64_t toUint64() const;
  int64_t toInt64() const;
  // Numeric value (two's complement if signed), for %e/%f/%g and $itor-like uses.
  double toDouble() const;
  // Same bits viewed at a new width: truncates, or extends per isSigned.
  BitValue resized(uint32_t newWidth) const;
  // Bytes from the most significant end, as %s prints them.
  std::string toBytes() const;
  // Clears the bits above width; call after editing words directly.
  void normalize();
};

}  // namespace synergy::engine
