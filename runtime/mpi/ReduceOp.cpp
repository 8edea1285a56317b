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

// The operands of one application: out[i] = in[i] op other[i]. With
// InPlace, `other` is `out` itself and is read through `out` (the
// MPI_User_function convention, inout = in op inout); without it, the
// three buffers are distinct, so the result is written in the same pass
// that reads both operands, with no copy of one of them first.
template <bool InPlace>
struct Operands {
  const uint8_t* in;
  const uint8_t* other;
  uint8_t* out;
};

// out[i] = combine(in[i], other[i]) for `n` elements of T. The op is
// chosen once per buffer, outside the loop, so that the loop vectorizes;
// the buffers never overlap (MPI forbids aliased arguments, staged
// contributions are private copies, and the in-place form never touches
// `other`).
template <typename T, bool InPlace, typename Combine>
void combineEach(Operands<InPlace> operands, int64_t n, Combine combine) {
  const uint8_t* __restrict in = operands.in;
  const uint8_t* __restrict other = operands.other;
  uint8_t* __restrict out = operands.out;
  for (int64_t i = 0; i < n; ++i) {
    T b = InPlace ? load<T>(out + i * sizeof(T)) : load<T>(other + i * sizeof(T));
    store<T>(out + i * sizeof(T), combine(load<T>(in + i * sizeof(T)), b));
  }
}

template <typename T, bool InPlace>
void arithmetic(PredefinedOp op, Operands<InPlace> x, int64_t n) {
  switch (op) {
    case PredefinedOp::Max:
      return combineEach<T>(x, n, [](T a, T b) { return a > b ? a : b; });
    case PredefinedOp::Min:
      return combineEach<T>(x, n, [](T a, T b) { return a < b ? a : b; });
    case PredefinedOp::Sum: return combineEach<T>(x, n, [](T a, T b) { return T(a + b); });
    case PredefinedOp::Prod: return combineEach<T>(x, n, [](T a, T b) { return T(a * b); });
    case PredefinedOp::Land:
      return combineEach<T>(x, n, [](T a, T b) { return T((a != T(0)) && (b != T(0))); });
    case PredefinedOp::Lor:
      return combineEach<T>(x, n, [](T a, T b) { return T((a != T(0)) || (b != T(0))); });
    case PredefinedOp::Lxor:
      return combineEach<T>(x, n, [](T a, T b) { return T((a != T(0)) != (b != T(0))); });
    case PredefinedOp::Replace: return combineEach<T>(x, n, [](T a, T) { return a; });
    default: return;
  }
}

template <typename T, bool InPlace>
void bitwise(PredefinedOp op, Operands<InPlace> x, int64_t n) {
  switch (op) {
    case PredefinedOp::Band: return combineEach<T>(x, n, [](T a, T b) { return T(a & b); });
    case PredefinedOp::Bor: return combineEach<T>(x, n, [](T a, T b) { return T(a | b); });
    case PredefinedOp::Bxor: return combineEach<T>(x, n, [](T a, T b) { return T(a ^ b); });
    default: return arithmetic<T>(op, x, n);
  }
}

// Complex values as (re, im) pairs of T; only SUM, PROD and REPLACE apply.
template <typename T, bool InPlace>
void complexOp(PredefinedOp op, Operands<InPlace> x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* a = x.in + i * 2 * sizeof(T);
    const uint8_t* b = (InPlace ? x.out : x.other) + i * 2 * sizeof(T);
    uint8_t* r = x.out + i * 2 * sizeof(T);
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
    store<T>(r, rr);
    store<T>(r + sizeof(T), ri);
  }
}

// (value, index) pairs: the better value wins, ties keep the lower index.
// C's pair types have an int index, Fortran's one of the value's type.
template <typename V, typename Index = int32_t, bool InPlace>
void locOp(PredefinedOp op, Operands<InPlace> x, int64_t n, int64_t indexOffset,
           int64_t pairSize) {
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* a = x.in + i * pairSize;
    const uint8_t* b = (InPlace ? x.out : x.other) + i * pairSize;
    uint8_t* r = x.out + i * pairSize;
    if (op == PredefinedOp::Replace) {
      std::memcpy(r, a, size_t(pairSize));
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
      store<V>(r, av);
      store<Index>(r + indexOffset, ai);
    } else if (!InPlace) {
      store<V>(r, bv);
      store<Index>(r + indexOffset, bi);
    }
  }
}

template <bool InPlace>
void apply(PredefinedOp op, ElementKind kind, Operands<InPlace> x, int64_t n) {
  switch (kind) {
    case ElementKind::Int8: bitwise<int8_t>(op, x, n); break;
    case ElementKind::UInt8: bitwise<uint8_t>(op, x, n); break;
    case ElementKind::Byte: bitwise<uint8_t>(op, x, n); break;
    case ElementKind::Bool: bitwise<uint8_t>(op, x, n); break;
    case ElementKind::Int16: bitwise<int16_t>(op, x, n); break;
    case ElementKind::UInt16: bitwise<uint16_t>(op, x, n); break;
    case ElementKind::Int32: bitwise<int32_t>(op, x, n); break;
    case ElementKind::UInt32: bitwise<uint32_t>(op, x, n); break;
    case ElementKind::Int64: bitwise<int64_t>(op, x, n); break;
    case ElementKind::UInt64: bitwise<uint64_t>(op, x, n); break;
    case ElementKind::Float: arithmetic<float>(op, x, n); break;
    case ElementKind::Double: arithmetic<double>(op, x, n); break;
    case ElementKind::LongDouble: arithmetic<__float128>(op, x, n); break;
    case ElementKind::ComplexFloat: complexOp<float>(op, x, n); break;
    case ElementKind::ComplexDouble: complexOp<double>(op, x, n); break;
    case ElementKind::ComplexLongDouble: complexOp<__float128>(op, x, n); break;
    case ElementKind::FloatInt: locOp<float>(op, x, n, 4, 8); break;
    case ElementKind::DoubleInt: locOp<double>(op, x, n, 8, 12); break;
    case ElementKind::Int32Int: locOp<int32_t>(op, x, n, 4, 8); break;
    case ElementKind::ShortInt: locOp<int16_t>(op, x, n, 2, 6); break;
    case ElementKind::LongDoubleInt: locOp<__float128>(op, x, n, 16, 20); break;
    case ElementKind::FloatFloat: locOp<float, float>(op, x, n, 4, 8); break;
    case ElementKind::DoubleDouble: locOp<double, double>(op, x, n, 8, 16); break;
    case ElementKind::Mixed: case ElementKind::None: break;
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
  apply(op, kind, Operands<true>{in, nullptr, inout}, n);
}

void applyPredefinedOpInto(PredefinedOp op, ElementKind kind, const uint8_t* in,
                           const uint8_t* other, uint8_t* out, int64_t n) {
  if (op == PredefinedOp::NoOp) {
    std::memcpy(out, other, size_t(n * packedElementSize(kind)));
    return;
  }
  apply(op, kind, Operands<false>{in, other, out}, n);
}

}  // namespace synergy::mpi
