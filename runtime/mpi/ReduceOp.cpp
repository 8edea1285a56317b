//===- ReduceOp.cpp - the predefined MPI reduction operations --------------===//
//
// Elements are loaded and stored with memcpy: packed pair elements are not
// naturally aligned, and guest buffers need not be either. MPI_LONG_DOUBLE is
// wasm32's binary128, computed with the host's __float128.
//
//===----------------------------------------------------------------------===//
#include "mpi/ReduceOp.h"

#include <complex>
#include <cstring>

namespace synergy::mpi {

namespace {

template <typename T>
T load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void store(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

enum class Family { Integer, Floating, Complex, Logical, Bytes, Pair, None };

Family familyOf(ElementKind kind) {
  switch (kind) {
    case ElementKind::Int8: case ElementKind::UInt8: case ElementKind::Int16:
    case ElementKind::UInt16: case ElementKind::Int32: case ElementKind::UInt32:
    case ElementKind::Int64: case ElementKind::UInt64:
      return Family::Integer;
    case ElementKind::Float: case ElementKind::Double: case ElementKind::LongDouble:
      return Family::Floating;
    case ElementKind::ComplexFloat: case ElementKind::ComplexDouble:
    case ElementKind::ComplexLongDouble:
      return Family::Complex;
    case ElementKind::Bool:
      return Family::Logical;
    case ElementKind::Byte:
      return Family::Bytes;
    case ElementKind::FloatInt: case ElementKind::DoubleInt: case ElementKind::Int32Int:
    case ElementKind::ShortInt: case ElementKind::LongDoubleInt: case ElementKind::FloatFloat:
    case ElementKind::DoubleDouble:
      return Family::Pair;
    default:
      return Family::None;
  }
}

// inout[i] = combine(in[i], inout[i]) for `n` elements of T. The op is
// chosen once per buffer, outside the loop, so that the loop vectorizes;
// the two buffers never overlap (MPI forbids aliased arguments, and staged
// contributions are private copies).
template <typename T, typename Combine>
void combineEach(const uint8_t* __restrict in, uint8_t* __restrict inout, int64_t n,
                 Combine combine) {
  for (int64_t i = 0; i < n; ++i)
    store<T>(inout + i * sizeof(T),
             combine(load<T>(in + i * sizeof(T)), load<T>(inout + i * sizeof(T))));
}

template <typename T>
void arithmetic(PredefinedOp op, const uint8_t* in, uint8_t* inout, int64_t n) {
  switch (op) {
    case PredefinedOp::Max:
      return combineEach<T>(in, inout, n, [](T a, T b) { return a > b ? a : b; });
    case PredefinedOp::Min:
      return combineEach<T>(in, inout, n, [](T a, T b) { return a < b ? a : b; });
    case PredefinedOp::Sum: return combineEach<T>(in, inout, n, [](T a, T b) { return T(a + b); });
    case PredefinedOp::Prod: return combineEach<T>(in, inout, n, [](T a, T b) { return T(a * b); });
    case PredefinedOp::Land:
      return combineEach<T>(in, inout, n,
                            [](T a, T b) { return T((a != T(0)) && (b != T(0))); });
    case PredefinedOp::Lor:
      return combineEach<T>(in, inout, n,
                            [](T a, T b) { return T((a != T(0)) || (b != T(0))); });
    case PredefinedOp::Lxor:
      return combineEach<T>(in, inout, n,
                            [](T a, T b) { return T((a != T(0)) != (b != T(0))); });
    case PredefinedOp::Replace: return combineEach<T>(in, inout, n, [](T a, T) { return a; });
    default: return;
  }
}

template <typename T>
void bitwise(PredefinedOp op, const uint8_t* in, uint8_t* inout, int64_t n) {
  switch (op) {
    case PredefinedOp::Band: return combineEach<T>(in, inout, n, [](T a, T b) { return T(a & b); });
    case PredefinedOp::Bor: return combineEach<T>(in, inout, n, [](T a, T b) { return T(a | b); });
    case PredefinedOp::Bxor: return combineEach<T>(in, inout, n, [](T a, T b) { return T(a ^ b); });
    default: return arithmetic<T>(op, in, inout, n);
  }
}

// Complex values as (re, im) pairs of T; only SUM, PROD and REPLACE apply.
template <typename T>
void complexOp(PredefinedOp op, const uint8_t* in, uint8_t* inout, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* a = in + i * 2 * sizeof(T);
    uint8_t* b = inout + i * 2 * sizeof(T);
    T ar = load<T>(a), ai = load<T>(a + sizeof(T));
    T br = load<T>(b), bi = load<T>(b + sizeof(T));
    T rr = br, ri = bi;
    if (op == PredefinedOp::Sum) {
      rr = ar + br;
      ri = ai + bi;
    } else if (op == PredefinedOp::Prod) {
      rr = ar * br - ai * bi;
      ri = ar * bi + ai * br;
    } else if (op == PredefinedOp::Replace) {
      rr = ar;
      ri = ai;
    }
    store<T>(b, rr);
    store<T>(b + sizeof(T), ri);
  }
}

// (value, index) pairs: the better value wins, ties keep the lower index.
// C's pair types have an int index, Fortran's one of the value's type.
template <typename V, typename Index = int32_t>
void locOp(PredefinedOp op, const uint8_t* in, uint8_t* inout, int64_t n, int64_t indexOffset,
           int64_t pairSize) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* a = in + i * pairSize;
    uint8_t* b = inout + i * pairSize;
    if (op == PredefinedOp::Replace) {
      std::memcpy(b, a, size_t(pairSize));
      continue;
    }
    V av = load<V>(a), bv = load<V>(b);
    Index ai = load<Index>(a + indexOffset), bi = load<Index>(b + indexOffset);
    bool takeA;
    if (av == bv)
      takeA = ai < bi;
    else
      takeA = op == PredefinedOp::Maxloc ? av > bv : av < bv;
    if (takeA) {
      store<V>(b, av);
      store<Index>(b + indexOffset, ai);
    }
  }
}

}  // namespace

const char* predefinedOpName(int op) {
  static const char* const kNames[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",    "MPI_SUM",
                                       "MPI_PROD",    "MPI_LAND", "MPI_BAND",   "MPI_LOR",
                                       "MPI_BOR",     "MPI_LXOR", "MPI_BXOR",   "MPI_MAXLOC",
                                       "MPI_MINLOC",  "MPI_REPLACE", "MPI_NO_OP"};
  if (op < 0 || op > 14) return "a user-defined op";
  return kNames[op];
}

bool opAppliesTo(PredefinedOp op, ElementKind kind) {
  Family family = familyOf(kind);
  if (op == PredefinedOp::Replace || op == PredefinedOp::NoOp) return family != Family::None;
  switch (op) {
    case PredefinedOp::Max: case PredefinedOp::Min:
      return family == Family::Integer || family == Family::Floating;
    case PredefinedOp::Sum: case PredefinedOp::Prod:
      return family == Family::Integer || family == Family::Floating || family == Family::Complex;
    case PredefinedOp::Land: case PredefinedOp::Lor: case PredefinedOp::Lxor:
      return family == Family::Integer || family == Family::Logical;
    case PredefinedOp::Band: case PredefinedOp::Bor: case PredefinedOp::Bxor:
      return family == Family::Integer || family == Family::Bytes;
    case PredefinedOp::Maxloc: case PredefinedOp::Minloc:
      return family == Family::Pair;
    default:
      return false;
  }
}

void applyPredefinedOp(PredefinedOp op, ElementKind kind, const uint8_t* in, uint8_t* inout,
                       int64_t n) {
  if (op == PredefinedOp::NoOp) return;
  switch (kind) {
    case ElementKind::Int8: bitwise<int8_t>(op, in, inout, n); break;
    case ElementKind::UInt8: bitwise<uint8_t>(op, in, inout, n); break;
    case ElementKind::Byte: bitwise<uint8_t>(op, in, inout, n); break;
    case ElementKind::Bool: bitwise<uint8_t>(op, in, inout, n); break;
    case ElementKind::Int16: bitwise<int16_t>(op, in, inout, n); break;
    case ElementKind::UInt16: bitwise<uint16_t>(op, in, inout, n); break;
    case ElementKind::Int32: bitwise<int32_t>(op, in, inout, n); break;
    case ElementKind::UInt32: bitwise<uint32_t>(op, in, inout, n); break;
    case ElementKind::Int64: bitwise<int64_t>(op, in, inout, n); break;
    case ElementKind::UInt64: bitwise<uint64_t>(op, in, inout, n); break;
    case ElementKind::Float: arithmetic<float>(op, in, inout, n); break;
    case ElementKind::Double: arithmetic<double>(op, in, inout, n); break;
    case ElementKind::LongDouble: arithmetic<__float128>(op, in, inout, n); break;
    case ElementKind::ComplexFloat: complexOp<float>(op, in, inout, n); break;
    case ElementKind::ComplexDouble: complexOp<double>(op, in, inout, n); break;
    case ElementKind::ComplexLongDouble: complexOp<__float128>(op, in, inout, n); break;
    case ElementKind::FloatInt: locOp<float>(op, in, inout, n, 4, 8); break;
    case ElementKind::DoubleInt: locOp<double>(op, in, inout, n, 8, 12); break;
    case ElementKind::Int32Int: locOp<int32_t>(op, in, inout, n, 4, 8); break;
    case ElementKind::ShortInt: locOp<int16_t>(op, in, inout, n, 2, 6); break;
    case ElementKind::LongDoubleInt: locOp<__float128>(op, in, inout, n, 16, 20); break;
    case ElementKind::FloatFloat: locOp<float, float>(op, in, inout, n, 4, 8); break;
    case ElementKind::DoubleDouble: locOp<double, double>(op, in, inout, n, 8, 16); break;
    case ElementKind::Mixed: case ElementKind::None: break;
  }
}

}  // namespace synergy::mpi
