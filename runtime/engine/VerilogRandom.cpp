//===- VerilogRandom.cpp - $random and $urandom as Icarus computes them ----===//
//
// A fresh implementation of the algorithm IEEE 1364 specifies: a 69069
// linear congruential step whose top 23 bits become the mantissa of a float
// in [1, 2), scaled onto the requested range. Checked against vvp by
// test/unit/engine/VerilogRandomTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "engine/VerilogRandom.h"

#include <cstring>
#include <limits>

namespace synergy::engine {

static constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
static constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

static double uniformReal(int32_t& seed, int32_t start, int32_t end) {
  if (seed == 0)
    seed = 259341593;
  double low = 0.0;
  double high = 2147483647.0;
  if (start < end) {
    low = start;
    high = end;
  }
  seed = static_cast<int32_t>(69069u * static_cast<uint32_t>(seed) + 1u);
  uint32_t mantissaBits = (static_cast<uint32_t>(seed) >> 9) | 0x3f800000u;
  float inUnitInterval;
  std::memcpy(&inUnitInterval, &mantissaBits, sizeof inUnitInterval);
  double fraction = inUnitInterval;
  fraction += fraction * 0.00000011920928955078125;
  return (high - low) * (fraction - 1.0) + low;
}

// The standard truncates toward minus infinity into a 32-bit long.
static int32_t floorToInt32(double real) {
  int64_t whole = real >= 0 ? static_cast<int64_t>(real) : static_cast<int64_t>(real - 1);
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(whole)));
}

int32_t distUniform(int32_t& seed, int32_t start, int32_t end) {
  if (start >= end)
    return start;
  if (end != kInt32Max) {
    int32_t exclusiveEnd = end + 1;
    int32_t result = floorToInt32(uniformReal(seed, start, exclusiveEnd));
    if (result < start)
      result = start;
    if (result >= exclusiveEnd)
      result = exclusiveEnd - 1;
    return result;
  }
  if (start != kInt32Min) {
    int32_t exclusiveStart = start - 1;
    int32_t result = floorToInt32(uniformReal(seed, exclusiveStart, end) + 1.0);
    if (result <= exclusiveStart)
      result = exclusiveStart + 1;
    if (result > end)
      result = end;
    return result;
  }
  double real = (uniformReal(seed, start, end) + 2147483648.0) / 4294967295.0;
  real = real * 4294967296.0 - 2147483648.0;
  return floorToInt32(real);
}

int32_t verilogRandom(int32_t& seed) { return distUniform(seed, kInt32Min, kInt32Max); }

uint32_t verilogUrandom(int32_t& seed) {
  return static_cast<uint32_t>(verilogRandom(seed)) ^ 0x80000000u;
}

}  // namespace synergy::engine
