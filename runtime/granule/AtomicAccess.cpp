//===- AtomicAccess.cpp - one wasm atomic access, as a value ---------------===//
#include "granule/AtomicAccess.h"

namespace synergy::granule {
namespace {

template <typename T>
uint64_t apply(T* cell, const AtomicAccess& access) {
  T operand = T(access.operand);
  switch (access.op) {
    case AtomicOp::Load: return __atomic_load_n(cell, __ATOMIC_SEQ_CST);
    case AtomicOp::Store: __atomic_store_n(cell, operand, __ATOMIC_SEQ_CST); return 0;
    case AtomicOp::Add: return __atomic_fetch_add(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::Sub: return __atomic_fetch_sub(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::And: return __atomic_fetch_and(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::Or: return __atomic_fetch_or(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::Xor: return __atomic_fetch_xor(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::Xchg: return __atomic_exchange_n(cell, operand, __ATOMIC_SEQ_CST);
    case AtomicOp::Cmpxchg: {
      T expected = operand;
      __atomic_compare_exchange_n(cell, &expected, T(access.replacement), false,
                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      return expected;
    }
  }
  return 0;
}

}  // namespace

bool atomicAccessFits(const AtomicAccess& access, uint64_t memoryBytes) {
  if (access.op > kLastAtomicOp) return false;
  if (access.width != 1 && access.width != 2 && access.width != 4 && access.width != 8)
    return false;
  return access.address % access.width == 0 &&
         uint64_t(access.address) + access.width <= memoryBytes;
}

uint64_t applyAtomicAccess(uint8_t* cell, const AtomicAccess& access) {
  switch (access.width) {
    case 1: return apply(cell, access);
    case 2: return apply(reinterpret_cast<uint16_t*>(cell), access);
    case 4: return apply(reinterpret_cast<uint32_t*>(cell), access);
    default: return apply(reinterpret_cast<uint64_t*>(cell), access);
  }
}

}  // namespace synergy::granule
