//===- ReduceOpTest.cpp - the one-pass form of the predefined ops ---------===//
//
// applyPredefinedOpInto() writes `in op other` to a third buffer, so that a
// reduction across hosts folds an operand where it arrived instead of
// copying it into the result first. It must give exactly what that copy
// followed by the in-place applyPredefinedOp() gives, for every op on every
// element kind it applies to, and leave both operands as they were. The
// operands are pseudo-random bytes (ties included, for MAXLOC/MINLOC), and
// a count that is no multiple of a vector's width checks the loop's tail.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "mpi/ReduceOp.h"

using namespace synergy::mpi;

namespace {

constexpr int64_t kElements = 1027;

// Bytes for `elements` packed elements of `kind`: every element drawn from
// few values, so that equal values (MAXLOC's ties) occur, and floating
// ones are never NaN (a NaN compares unequal to itself).
std::vector<uint8_t> operand(ElementKind kind, int64_t elements, std::mt19937& random) {
  std::vector<uint8_t> bytes(size_t(elements * packedElementSize(kind)));
  for (uint8_t& byte : bytes) byte = uint8_t(random() % 4);
  return bytes;
}

TEST(ReduceOpTest, OnePassIntoAThirdBufferEqualsCopyThenInPlace) {
  std::mt19937 random(17);
  int checked = 0;
  for (int kind = 0; kind <= int(ElementKind::DoubleDouble); ++kind) {
    for (int op = int(PredefinedOp::Max); op <= int(PredefinedOp::NoOp); ++op) {
      auto element = ElementKind(kind);
      if (!opAppliesTo(PredefinedOp(op), element)) continue;
      std::vector<uint8_t> in = operand(element, kElements, random);
      std::vector<uint8_t> other = operand(element, kElements, random);
      std::vector<uint8_t> inBefore = in, otherBefore = other;
      std::vector<uint8_t> expected = other;
      applyPredefinedOp(PredefinedOp(op), element, in.data(), expected.data(), kElements);
      std::vector<uint8_t> out(other.size(), 0xa5);
      applyPredefinedOpInto(PredefinedOp(op), element, in.data(), other.data(), out.data(),
                            kElements);
      EXPECT_EQ(out, expected) << predefinedOpName(op) << " on element kind " << kind;
      EXPECT_EQ(in, inBefore);
      EXPECT_EQ(other, otherBefore);
      ++checked;
    }
  }
  // Every kind has REPLACE and NO_OP; most have more.
  EXPECT_GT(checked, 2 * int(ElementKind::DoubleDouble));
}

}  // namespace
