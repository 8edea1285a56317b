//===- MergeOp.h - how a replica's change to a value enters the main copy --===//
//
// When several replicas change the same variable (an OpenMP reduction), the
// last diff would win if diffs were simply copied. A merge op instead
// combines the replica's change with whatever the main copy holds now, using
// four values (Faabric, Table 3):
//
//   A0  the value in the main copy now
//   B0  the replica's baseline value (what it started from)
//   B1  the replica's new value
//   A1  what is written to the main copy
//
//   Overwrite A1 = B1             Min    A1 = min(A0, B1)
//   Sum       A1 = A0 + (B1 - B0) Max    A1 = max(A0, B1)
//   Subtract  A1 = A0 - (B0 - B1) Xor    A1 = A0 ^ B0 ^ B1
//   Product   A1 = A0 * B1 / B0   Ignore A1 = A0
//   Divide    A1 = A0 / (B0 / B1)
//
// I32 and I64 are signed two's-complement values that wrap like wasm
// integers. Product and Divide apply the replica's multiplicative change
// (factor B1 / B0, divisor B0 / B1): integer Product evaluates A0 * B1 / B0
// in double width so an exact factor stays exact, integer Divide uses the
// truncated divisor B0 / B1. When the change cannot be expressed that way
// (B0 == 0 for Product; B0 == 0, B1 == 0 or a zero integer divisor for
// Divide), the replica's value wins: A1 = B1. Min and Max of floats keep A0
// when a comparison involves NaN. Xor works on the bits of every type.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::snapshot {

enum class MergeOp { Overwrite, Sum, Subtract, Product, Divide, Min, Max, Xor, Ignore };
enum class MergeType { I32, I64, F32, F64 };

// Bytes [offset, offset + length) of the memory hold consecutive elements of
// `type`, merged with `op`. A trailing part shorter than one element is not
// part of the region.
struct MergeRegion {
  uint64_t offset;
  uint64_t length;
  MergeOp op;
  MergeType type;
};

// 4 for I32 and F32, 8 for I64 and F64.
uint64_t mergeTypeBytes(MergeType type);

// Combines one element: reads A0 from `main` and writes A1 there; `baseline`
// holds B0 and `replica` B1. Pointers need no alignment.
void mergeElement(MergeOp op, MergeType type, uint8_t* main, const uint8_t* baseline,
                  const uint8_t* replica);

}  // namespace synergy::snapshot
