//===- VerilogRandom.h - $random and $urandom as Icarus computes them ------===//
//
// IEEE 1364-2005 (17.9.3) defines $random's sequence through its reference
// rtl_dist_uniform routine over a 32-bit seed. Icarus follows it, and its
// $urandom is the same sequence (from its own seed) with the top bit flipped,
// i.e. reinterpreted as unsigned; $urandom_range draws from that same seed. The seeds are plain 32-bit values so a
// $save can carry them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::engine {

// The standard's uniform integer in [start, end]; advances seed.
int32_t distUniform(int32_t& seed, int32_t start, int32_t end);

// $random(seed): a full-range signed 32-bit value.
int32_t verilogRandom(int32_t& seed);

// $urandom(seed): $random's sequence viewed as unsigned.
uint32_t verilogUrandom(int32_t& seed);

// $urandom_range(max, min) from the $urandom seed, exactly as Icarus 11's
// vvp computes it: the bounds are swapped when min > max, and bounds with
// bit 31 set overflow its 64-bit arithmetic into a fixed value (vvp returns
// 0 for $urandom_range(32'hffffffff, 0)) without advancing the seed.
uint32_t verilogUrandomRange(int32_t& seed, int32_t maxArg, int32_t minArg);

}  // namespace synergy::engine
