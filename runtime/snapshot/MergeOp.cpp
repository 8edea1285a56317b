//===- MergeOp.cpp - how a replica's change to a value enters the main copy ===//
#include "snapshot/MergeOp.h"

#include <cstring>
#include <type_traits>

namespace synergy::snapshot {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <typename T>
void store(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof value);
}

template <typename Int>
Int mergeInteger(MergeOp op, Int a0, Int b0, Int b1) {
  using Unsigned = std::make_unsigned_t<Int>;
  // Wide enough for any product of two Ints and for INT_MIN / -1.
  using Wide = std::conditional_t<sizeof(Int) == 4, int64_t, __int128>;
  switch (op) {
    case MergeOp::Sum:
      return Int(Unsigned(a0) + (Unsigned(b1) - Unsigned(b0)));
    case MergeOp::Subtract:
      return Int(Unsigned(a0) - (Unsigned(b0) - Unsigned(b1)));
    case MergeOp::Product:
      if (b0 == 0) return b1;
      return Int(Wide(a0) * Wide(b1) / Wide(b0));
    case MergeOp::Divide: {
      if (b1 == 0) return b1;
      Wide divisor = Wide(b0) / Wide(b1);
      if (divisor == 0) return b1;
      return Int(Wide(a0) / divisor);
    }
    case MergeOp::Min:
      return b1 < a0 ? b1 : a0;
    case MergeOp::Max:
      return b1 > a0 ? b1 : a0;
    default:
      return b1;
  }
}

template <typename Float>
Float mergeFloat(MergeOp op, Float a0, Float b0, Float b1) {
  switch (op) {
    case MergeOp::Sum:
      return a0 + (b1 - b0);
    case MergeOp::Subtract:
      return a0 - (b0 - b1);
    case MergeOp::Product:
      if (b0 == 0) return b1;
      return a0 * (b1 / b0);
    case MergeOp::Divide:
      if (b0 == 0 || b1 == 0) return b1;
      return a0 / (b0 / b1);
    case MergeOp::Min:
      return b1 < a0 ? b1 : a0;
    case MergeOp::Max:
      return b1 > a0 ? b1 : a0;
    default:
      return b1;
  }
}

template <typename T>
void mergeTyped(MergeOp op, uint8_t* main, const uint8_t* baseline, const uint8_t* replica) {
  T a0 = load<T>(main), b0 = load<T>(baseline), b1 = load<T>(replica);
  if constexpr (std::is_integral_v<T>)
    store(main, mergeInteger(op, a0, b0, b1));
  else
    store(main, mergeFloat(op, a0, b0, b1));
}

}  // namespace

uint64_t mergeTypeBytes(MergeType type) {
  return type == MergeType::I32 || type == MergeType::F32 ? 4 : 8;
}

void mergeElement(MergeOp op, MergeType type, uint8_t* main, const uint8_t* baseline,
                  const uint8_t* replica) {
  uint64_t bytes = mergeTypeBytes(type);
  // The type-independent ops work on raw bytes.
  switch (op) {
    case MergeOp::Overwrite:
      std::memcpy(main, replica, bytes);
      return;
    case MergeOp::Ignore:
      return;
    case MergeOp::Xor:
      for (uint64_t i = 0; i < bytes; ++i) main[i] ^= baseline[i] ^ replica[i];
      return;
    default:
      break;
  }
  switch (type) {
    case MergeType::I32:
      return mergeTyped<int32_t>(op, main, baseline, replica);
    case MergeType::I64:
      return mergeTyped<int64_t>(op, main, baseline, replica);
    case MergeType::F32:
      return mergeTyped<float>(op, main, baseline, replica);
    case MergeType::F64:
      return mergeTyped<double>(op, main, baseline, replica);
  }
}

}  // namespace synergy::snapshot
