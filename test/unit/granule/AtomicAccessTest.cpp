// Unit tests for one wasm atomic access as a value (granule/AtomicAccess.h):
// every operation at every width gives the old value and leaves the cell as
// plain arithmetic on the truncated operands says, touching no neighbouring
// byte; accesses outside the memory, misaligned or of unknown shape are
// refused before use.
#include <gtest/gtest.h>

#include <cstring>

#include "granule/AtomicAccess.h"

using namespace synergy::granule;

namespace {

uint64_t truncated(uint64_t value, uint32_t width) {
  return width == 8 ? value : value & ((uint64_t(1) << (8 * width)) - 1);
}

// What the cell holds after `op` on `old`, by plain arithmetic.
uint64_t expectedAfter(AtomicOp op, uint64_t old, uint64_t operand, uint64_t replacement,
                       uint32_t width) {
  operand = truncated(operand, width);
  switch (op) {
    case AtomicOp::Load: return old;
    case AtomicOp::Store: return operand;
    case AtomicOp::Add: return truncated(old + operand, width);
    case AtomicOp::Sub: return truncated(old - operand, width);
    case AtomicOp::And: return old & operand;
    case AtomicOp::Or: return old | operand;
    case AtomicOp::Xor: return old ^ operand;
    case AtomicOp::Xchg: return operand;
    case AtomicOp::Cmpxchg: return old == operand ? truncated(replacement, width) : old;
  }
  return 0;
}

TEST(AtomicAccessTest, EveryOperationAndWidthMatchesPlainArithmetic) {
  const uint64_t initial = 0x8877665544332211ull;
  for (uint32_t width : {1u, 2u, 4u, 8u}) {
    for (uint8_t code = 0; code <= uint8_t(kLastAtomicOp); ++code) {
      AtomicOp op = AtomicOp(code);
      for (uint64_t operand : {uint64_t(0), uint64_t(1), truncated(initial, width),
                               uint64_t(0xfedcba9876543210ull)}) {
        alignas(8) uint8_t memory[24];
        std::memset(memory, 0xa5, sizeof memory);
        std::memcpy(memory + 8, &initial, width);
        AtomicAccess access{op, width, 8, operand, 0x0123456789abcdefull};
        uint64_t old = applyAtomicAccess(memory + 8, access);
        uint64_t cell = 0;
        std::memcpy(&cell, memory + 8, width);
        uint64_t before = truncated(initial, width);
        EXPECT_EQ(old, op == AtomicOp::Store ? 0 : before) << int(code) << " " << width;
        EXPECT_EQ(cell, expectedAfter(op, before, operand, access.replacement, width))
            << int(code) << " " << width << " " << operand;
        for (size_t i = 0; i < sizeof memory; ++i)
          if (i < 8 || i >= 8 + width) EXPECT_EQ(memory[i], 0xa5) << i;
      }
    }
  }
}

TEST(AtomicAccessTest, RefusesAccessesOutsideTheMemoryMisalignedOrUnknown) {
  const uint64_t size = 65536;
  EXPECT_TRUE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 8, 65528, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 8, 65536, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 4, 65534, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 4, 6, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 3, 0, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Add, 0, 0, 1, 0}, size));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp(uint8_t(kLastAtomicOp) + 1), 4, 0, 1, 0},
                                size));
  // The last cell of a 4 GiB memory, where address + width overflows 32 bits.
  EXPECT_TRUE(atomicAccessFits(AtomicAccess{AtomicOp::Load, 4, 0xfffffffc, 0, 0},
                               uint64_t(1) << 32));
  EXPECT_FALSE(atomicAccessFits(AtomicAccess{AtomicOp::Load, 8, 0xfffffffc, 0, 0},
                                uint64_t(1) << 32));
}

}  // namespace
