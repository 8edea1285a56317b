//===- DisplayFormatter.h - Icarus-compatible $display formatting ----------===//
//
// Formats the arguments of $display, $write, $strobe, $monitor, $fdisplay and
// $fwrite exactly as Icarus Verilog's vvp prints them, so engine output can be
// compared byte for byte against vvp. Engines are 2-state, so x and z digits
// never occur and are not handled.
//
// As in IEEE 1364, every string-literal argument that is not consumed by a
// preceding specifier is itself a format; every other unconsumed argument is
// printed in the task's default radix (decimal for $display, hex for
// $displayh, ...).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/BitValue.h"

namespace synergy::engine {

struct DisplayArg {
  enum class Kind { Value, StringLiteral, Real };
  Kind kind = Kind::Value;
  BitValue value;    // Value; also the bytes of a StringLiteral
  std::string text;  // StringLiteral
  double real = 0;   // Real

  static DisplayArg ofValue(BitValue value);
  static DisplayArg ofString(std::string text);
  static DisplayArg ofReal(double real);
};

enum class DisplayRadix { Decimal, Hex, Binary, Octal };

struct DisplayContext {
  std::string scope;  // printed by %m; $time arrives as an ordinary 64-bit argument
};

std::string formatDisplay(const std::vector<DisplayArg>& args, DisplayRadix defaultRadix,
                          const DisplayContext& context);

// The digits of a value in one radix, without padding ("%0d", "%0h", ...).
std::string formatMinimalDigits(const BitValue& value, DisplayRadix radix);

}  // namespace synergy::engine
