//===- AtomicAccess.h - one wasm atomic access, as a value -----------------===//
//
// A lowered wasm atomic (granule/AtomicHostFunctions.cpp) is usually done
// where it is called, on the granule's own memory. A thread whose memory's
// owner is another process (a thread host's, omp/ThreadHostSync.h) hands it
// to that owner instead, so that every atomic on a cell is applied in one
// place, in one order, exactly as on one host. This is the access both sides
// apply: its operation, width, address and operands.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace synergy::granule {

enum class AtomicOp : uint8_t { Load, Store, Add, Sub, And, Or, Xor, Xchg, Cmpxchg };
inline constexpr AtomicOp kLastAtomicOp = AtomicOp::Cmpxchg;

struct AtomicAccess {
  AtomicOp op = AtomicOp::Load;
  uint32_t width = 4;      // bytes: 1, 2, 4 or 8
  uint32_t address = 0;    // with the memarg offset added
  uint64_t operand = 0;    // stored, combined or (cmpxchg) expected
  uint64_t replacement = 0;  // cmpxchg's new value
};

// Whether `access` names a known operation, a wasm atomic width, and an
// aligned cell inside a memory of `memoryBytes` bytes.
bool atomicAccessFits(const AtomicAccess& access, uint64_t memoryBytes);

// Performs `access` on the cell at `cell` (aligned to its width), sequentially
// consistent; returns the cell's old value zero-extended (0 for a store).
// Operands are truncated to the width, as a narrow wasm atomic does.
uint64_t applyAtomicAccess(uint8_t* cell, const AtomicAccess& access);

}  // namespace synergy::granule
