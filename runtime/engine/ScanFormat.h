//===- ScanFormat.h - $fscanf/$sscanf input matching -----------------------===//
//
// Matches Verilog scan formats against a character source, the way Icarus
// does: whitespace in the format skips any whitespace, other characters must
// match, and %d %h %x %o %b %c %s %e %f %g (with `*` to skip, and a field
// width) read one item each. The result is the number of items assigned, or
// -1 when the input was already at end of file before anything was read.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/BitValue.h"

namespace synergy::engine {

struct CharSource {
  std::function<int()> get;        // next byte, or EOF
  std::function<void(int)> unget;  // push one byte back
};

struct ScannedItem {
  char conversion = 0;  // d h o b c s e f g (lower case; x reads as h)
  std::string token;    // the characters matched
};

int scanFormatted(CharSource& source, const std::string& format, std::vector<ScannedItem>& items);

// The value a scanned token assigns to a target of `width` bits (as an IEEE
// double bit pattern when the target is real).
BitValue scannedValue(const ScannedItem& item, uint32_t width, bool targetIsReal);

// Parses digits in base 2, 8, 10 or 16 into `width` bits (wrapping); x, z and
// '_' digits are read as 0 and ignored respectively.
BitValue parseDigits(const std::string& digits, unsigned base, uint32_t width);

}  // namespace synergy::engine
