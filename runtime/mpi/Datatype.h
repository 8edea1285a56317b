//===- Datatype.h - MPI datatypes as byte layouts --------------------------===//
//
// A datatype is reduced to what moving and reducing data needs: the byte
// segments one instance occupies (in type-map order, adjacent ones merged),
// its bounds and extent, and the single basic element kind it is made of when
// there is one (reductions need that). Derived-type constructors build new
// layouts from old ones; typed copies stream the data bytes of one buffer into
// another through both layouts, so a message is copied once whatever the
// send and receive types are.
//
// Layouts are immutable and shared (a message in flight keeps its sender's
// layout alive even if the sender frees the handle).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace synergy::mpi {

// The basic element kinds reductions understand. Pair kinds are the
// MAXLOC/MINLOC types, stored packed (value then int) in packed buffers.
enum class ElementKind : uint8_t {
  Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64,
  Float, Double, LongDouble,
  ComplexFloat, ComplexDouble, ComplexLongDouble,
  Bool, Byte,
  FloatInt, DoubleInt, Int32Int, ShortInt, LongDoubleInt,
  FloatFloat, DoubleDouble,  // Fortran's pairs: the index has the value's type
  Mixed,  // several kinds: movable, not reducible by predefined ops
  None,   // no data at all
};

// Bytes one element of `kind` occupies in a packed buffer.
int64_t packedElementSize(ElementKind kind);

struct TypeSegment {
  int64_t offset;
  int64_t length;
};

struct TypeLayout;

// The arguments a derived type was built from, as MPI_Type_get_contents
// reports them: its integers, its addresses and its old types (with the
// handle of each that is predefined, 0 for a derived one).
struct TypeRecipe {
  std::vector<int32_t> integers;
  std::vector<int64_t> addresses;
  std::vector<std::pair<int, std::shared_ptr<const TypeLayout>>> types;
};

struct TypeLayout {
  std::vector<TypeSegment> segments;  // one instance's data bytes
  int64_t size = 0;                   // data bytes of one instance
  int64_t lb = 0, ub = 0;             // extent = ub - lb
  int64_t trueLb = 0, trueUb = 0;     // bounds of the data bytes alone
  int64_t alignment = 1;              // for padding struct extents
  ElementKind element = ElementKind::None;
  int combiner = 0;                   // MPI_COMBINER_*
  bool committed = false;
  bool predefined = false;
  std::shared_ptr<const TypeRecipe> recipe;  // derived types only

  int64_t extent() const { return ub - lb; }
  // One segment that fills the whole extent: `count` instances are one run.
  bool isContiguous() const {
    return segments.size() == 1 && segments[0].offset == lb && segments[0].length == extent();
  }
  // Elements of `element` kind in one instance, when element is a basic kind.
  int64_t elementsPerInstance() const;
};

using Layout = std::shared_ptr<const TypeLayout>;

// The predefined type with handle `handle` (1..abi::kLastPredefinedType).
Layout predefinedLayout(int handle);
// The MPI name of a predefined type, for messages.
const char* predefinedTypeName(int handle);

// The most byte segments one derived datatype may flatten into. A layout
// lists every segment of one instance, so without a bound one guest call such
// as MPI_Type_create_hvector(1 << 28, 1, 0, MPI_INT) makes the host build
// gigabytes of segments for minutes; 2^22 segments (64 MiB) is far above any
// type a real program builds. Constructors refuse more blocks than this too.
inline constexpr int64_t kMaxTypeSegments = int64_t(1) << 22;

// `index` units of `unit` bytes, or false when that leaves int64_t.
inline bool scaledOffset(int64_t index, int64_t unit, int64_t& offset) {
  return !__builtin_mul_overflow(index, unit, &offset);
}

// One block of a derived type: `count` instances of `type` at byte `offset`.
struct TypeBlock {
  Layout type;
  int64_t count;
  int64_t offset;
};
// A derived type made of `blocks` in order. `padToAlignment` rounds the
// extent up the way C pads a struct (MPI_Type_create_struct). Null when the
// type would flatten into more than kMaxTypeSegments segments or a bound or
// size would leave int64_t.
Layout buildDerivedLayout(const std::vector<TypeBlock>& blocks, int combiner,
                          bool padToAlignment);
Layout resizedLayout(const Layout& old, int64_t lb, int64_t extent);

// The guest byte range [first, last) that `count` instances at address `base`
// touch, relative to base; empty when no data is touched.
struct ByteSpan {
  int64_t first = 0;
  int64_t last = 0;
  bool empty() const { return last <= first; }
};
inline ByteSpan touchedSpan(const TypeLayout& type, int64_t count) {
  if (count <= 0 || type.size == 0) return {};
  int64_t stride = (count - 1) * type.extent();
  return {type.trueLb + std::min<int64_t>(0, stride), type.trueUb + std::max<int64_t>(0, stride)};
}

// Copies the first `bytes` data bytes of `srcCount` instances of `srcType`
// at `src` into `dstCount` instances of `dstType` at `dst`.
void copyTyped(const uint8_t* src, const TypeLayout& srcType, int64_t srcCount, uint8_t* dst,
               const TypeLayout& dstType, int64_t dstCount, int64_t bytes);
// Packs the data bytes of `count` instances into `out` (size*count bytes).
void packTyped(const uint8_t* src, const TypeLayout& type, int64_t count, uint8_t* out);
void unpackTyped(const uint8_t* in, uint8_t* dst, const TypeLayout& type, int64_t count);

}  // namespace synergy::mpi
