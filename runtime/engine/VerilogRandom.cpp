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
#include <utility>

namespace synergy::engine {

static constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
static constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

static double uniformReal(int32_t& seed, int64_t start, int64_t end) {
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

// The standard truncates toward minus infinity into a `long`.
static int64_t floorToLong(double real) {
  return real >= 0 ? static_cast<int64_t>(real) : static_cast<int64_t>(real - 1);
}

// Icarus computes in a 64-bit `long` and only compares the bounds against
// the 32-bit extremes, which $urandom_range's unsigned bounds rely on.
static int64_t distUniformLong(int32_t& seed, int64_t start, int64_t end) {
  if (start >= end)
    return start;
  if (end != kInt32Max) {
    int64_t exclusiveEnd = end + 1;
    int64_t result = floorToLong(uniformReal(seed, start, exclusiveEnd));
    if (result < start)
      result = start;
    if (result >= exclusiveEnd)
      result = exclusiveEnd - 1;
    return result;
  }
  if (start != kInt32Min) {
    int64_t exclusiveStart = start - 1;
    int64_t result = floorToLong(uniformReal(seed, exclusiveStart, end) + 1.0);
    if (result <= exclusiveStart)
      result = exclusiveStart + 1;
    if (result > end)
      result = end;
    return result;
  }
  double real = (uniformReal(seed, start, end) + 2147483648.0) / 4294967295.0;
  real = real * 4294967296.0 - 2147483648.0;
  return floorToLong(real);
}

int32_t distUniform(int32_t& seed, int32_t start, int32_t end) {
  return static_cast<int32_t>(static_cast<uint32_t>(distUniformLong(seed, start, end)));
}

int32_t verilogRandom(int32_t& seed) { return distUniform(seed, kInt32Min, kInt32Max); }

uint32_t verilogUrandom(int32_t& seed) {
  return static_cast<uint32_t>(verilogRandom(seed)) ^ 0x80000000u;
}

uint32_t verilogUrandomRange(int32_t& seed, int32_t maxArg, int32_t minArg) {
  // vvp reads both bounds as C ints and widens them to unsigned long, so a
  // bound with bit 31 set becomes a huge 64-bit value.
  uint64_t high = static_cast<uint64_t>(static_cast<int64_t>(maxArg));
  uint64_t low = static_cast<uint64_t>(static_cast<int64_t>(minArg));
  if (low > high)
    std::swap(low, high);
  const uint64_t bias = static_cast<uint64_t>(static_cast<int64_t>(kInt32Min));
  int64_t result = distUniformLong(seed, static_cast<int64_t>(low + bias), static_cast<int64_t>(high + bias));
  return static_cast<uint32_t>(static_cast<uint64_t>(result) - bias);
}

}  // namespace synergy::engine
