//===- SoftwareWideWords.h - the software engine's wide arithmetic ---------===//
//
// Verilog arithmetic on values wider than one 64-bit word, for the software
// engine. A value is a little-endian array of wordsFor(width) words whose
// bits above `width` are zero, the layout the engine keeps wide variables in.
// Every operation takes the width it computes at, as the emitted Verilog's
// sizing rules give it, and returns a value in that layout; signed operations
// read the top bit as the sign. Division by zero gives 0, as in Verilator's
// 2-state model.
//
// Shared by SoftwareEngine.cpp only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace synergy::engine::software {

using Words = std::vector<uint64_t>;

// Clears the bits at and above `width`.
void maskToWidth(Words& value, uint32_t width);
// `value` (bits above fromWidth ignored) at toWidth: truncated, or extended
// with zeros or, when signExtend, with its bit fromWidth - 1.
Words resizeWords(const Words& value, uint32_t fromWidth, uint32_t toWidth, bool signExtend);
bool isZeroWords(const Words& value);
bool isNegativeWords(const Words& value, uint32_t width);

// The 64 bits of `words` (count of them) from bit `start`; zeros past the end.
uint64_t extractWord(const uint64_t* words, size_t count, uint64_t start);
// Writes the low `bits` bits of `chunk` at bit `position` of a `width`-bit
// value; bits that fall outside [0, width) are dropped. Returns whether any
// stored bit changed.
bool depositBits(uint64_t* words, uint32_t width, int64_t position, uint64_t chunk, uint32_t bits);

Words addWords(const Words& a, const Words& b, uint32_t width);
Words subtractWords(const Words& a, const Words& b, uint32_t width);
Words multiplyWords(const Words& a, const Words& b, uint32_t width);
Words negateWords(const Words& a, uint32_t width);
// Quotient or remainder (the sign of the dividend's, as Verilog's %).
Words divideWords(const Words& a, const Words& b, uint32_t width, bool isSigned, bool remainder);
// -1, 0 or 1.
int compareWords(const Words& a, const Words& b, uint32_t width, bool isSigned);
// Shifts by `amount` bits; `amount` at or past `width` shifts everything out.
Words shiftLeftWords(const Words& a, uint64_t amount, uint32_t width);
Words shiftRightWords(const Words& a, uint64_t amount, uint32_t width, bool arithmetic);
// The number of set bits, for the xor reductions.
uint64_t populationCount(const Words& a);
// The numeric value, as $itor and a real assignment convert an integer.
double wordsToDouble(const Words& a, uint32_t width, bool isSigned);

}  // namespace synergy::engine::software
