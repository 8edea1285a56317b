//===- Datatype.cpp - MPI datatypes as byte layouts ------------------------===//
//
// Sizes and alignments are those of wasm32 C (long and MPI_Aint are 4 bytes,
// long double is a 16-byte binary128 aligned to 16), because the buffers
// live in wasm32 guests.
//
//===----------------------------------------------------------------------===//
#include "mpi/Datatype.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "mpi/MpiAbi.h"

namespace synergy::mpi {

int64_t packedElementSize(ElementKind kind) {
  switch (kind) {
    case ElementKind::Int8: case ElementKind::UInt8: case ElementKind::Bool:
    case ElementKind::Byte:
      return 1;
    case ElementKind::Int16: case ElementKind::UInt16:
      return 2;
    case ElementKind::Int32: case ElementKind::UInt32: case ElementKind::Float:
      return 4;
    case ElementKind::Int64: case ElementKind::UInt64: case ElementKind::Double:
    case ElementKind::ComplexFloat: case ElementKind::FloatInt: case ElementKind::Int32Int:
    case ElementKind::FloatFloat:
      return 8;
    case ElementKind::ShortInt:
      return 6;
    case ElementKind::DoubleInt:
      return 12;
    case ElementKind::LongDouble: case ElementKind::ComplexDouble: case ElementKind::DoubleDouble:
      return 16;
    case ElementKind::LongDoubleInt:
      return 20;
    case ElementKind::ComplexLongDouble:
      return 32;
    case ElementKind::Mixed: case ElementKind::None:
      return 1;
  }
  return 1;
}

int64_t TypeLayout::elementsPerInstance() const {
  if (element == ElementKind::Mixed || element == ElementKind::None) return 0;
  return size / packedElementSize(element);
}

namespace {

struct PredefinedType {
  const char* name;
  ElementKind element;
  int64_t extent;
  int64_t alignment;
  std::vector<TypeSegment> segments;
};

const std::vector<PredefinedType>& predefinedTable() {
  using K = ElementKind;
  static const std::vector<PredefinedType> table = {
      {"MPI_DATATYPE_NULL", K::None, 0, 1, {}},
      {"MPI_CHAR", K::Int8, 1, 1, {{0, 1}}},
      {"MPI_SIGNED_CHAR", K::Int8, 1, 1, {{0, 1}}},
      {"MPI_UNSIGNED_CHAR", K::UInt8, 1, 1, {{0, 1}}},
      {"MPI_BYTE", K::Byte, 1, 1, {{0, 1}}},
      {"MPI_SHORT", K::Int16, 2, 2, {{0, 2}}},
      {"MPI_UNSIGNED_SHORT", K::UInt16, 2, 2, {{0, 2}}},
      {"MPI_INT", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_UNSIGNED", K::UInt32, 4, 4, {{0, 4}}},
      {"MPI_LONG", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_UNSIGNED_LONG", K::UInt32, 4, 4, {{0, 4}}},
      {"MPI_LONG_LONG_INT", K::Int64, 8, 8, {{0, 8}}},
      {"MPI_UNSIGNED_LONG_LONG", K::UInt64, 8, 8, {{0, 8}}},
      {"MPI_FLOAT", K::Float, 4, 4, {{0, 4}}},
      {"MPI_DOUBLE", K::Double, 8, 8, {{0, 8}}},
      {"MPI_LONG_DOUBLE", K::LongDouble, 16, 16, {{0, 16}}},
      {"MPI_WCHAR", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_C_BOOL", K::Bool, 1, 1, {{0, 1}}},
      {"MPI_INT8_T", K::Int8, 1, 1, {{0, 1}}},
      {"MPI_INT16_T", K::Int16, 2, 2, {{0, 2}}},
      {"MPI_INT32_T", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_INT64_T", K::Int64, 8, 8, {{0, 8}}},
      {"MPI_UINT8_T", K::UInt8, 1, 1, {{0, 1}}},
      {"MPI_UINT16_T", K::UInt16, 2, 2, {{0, 2}}},
      {"MPI_UINT32_T", K::UInt32, 4, 4, {{0, 4}}},
      {"MPI_UINT64_T", K::UInt64, 8, 8, {{0, 8}}},
      {"MPI_AINT", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_OFFSET", K::Int64, 8, 8, {{0, 8}}},
      {"MPI_COUNT", K::Int64, 8, 8, {{0, 8}}},
      {"MPI_C_FLOAT_COMPLEX", K::ComplexFloat, 8, 4, {{0, 8}}},
      {"MPI_C_DOUBLE_COMPLEX", K::ComplexDouble, 16, 8, {{0, 16}}},
      {"MPI_C_LONG_DOUBLE_COMPLEX", K::ComplexLongDouble, 32, 16, {{0, 32}}},
      {"MPI_PACKED", K::Byte, 1, 1, {{0, 1}}},
      {"MPI_CXX_BOOL", K::Bool, 1, 1, {{0, 1}}},
      {"MPI_FLOAT_INT", K::FloatInt, 8, 4, {{0, 8}}},
      {"MPI_DOUBLE_INT", K::DoubleInt, 16, 8, {{0, 12}}},
      {"MPI_LONG_INT", K::Int32Int, 8, 4, {{0, 8}}},
      {"MPI_2INT", K::Int32Int, 8, 4, {{0, 8}}},
      {"MPI_SHORT_INT", K::ShortInt, 8, 4, {{0, 2}, {4, 4}}},
      {"MPI_LONG_DOUBLE_INT", K::LongDoubleInt, 32, 16, {{0, 20}}},
      // Fortran's types, usable from C, as a Fortran compiler with 4-byte
      // default INTEGER, REAL and LOGICAL lays them out.
      {"MPI_INTEGER", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_REAL", K::Float, 4, 4, {{0, 4}}},
      {"MPI_DOUBLE_PRECISION", K::Double, 8, 8, {{0, 8}}},
      {"MPI_COMPLEX", K::ComplexFloat, 8, 4, {{0, 8}}},
      {"MPI_DOUBLE_COMPLEX", K::ComplexDouble, 16, 8, {{0, 16}}},
      {"MPI_LOGICAL", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_CHARACTER", K::UInt8, 1, 1, {{0, 1}}},
      {"MPI_INTEGER1", K::Int8, 1, 1, {{0, 1}}},
      {"MPI_INTEGER2", K::Int16, 2, 2, {{0, 2}}},
      {"MPI_INTEGER4", K::Int32, 4, 4, {{0, 4}}},
      {"MPI_INTEGER8", K::Int64, 8, 8, {{0, 8}}},
      {"MPI_REAL4", K::Float, 4, 4, {{0, 4}}},
      {"MPI_REAL8", K::Double, 8, 8, {{0, 8}}},
      {"MPI_REAL16", K::LongDouble, 16, 16, {{0, 16}}},
      {"MPI_COMPLEX8", K::ComplexFloat, 8, 4, {{0, 8}}},
      {"MPI_COMPLEX16", K::ComplexDouble, 16, 8, {{0, 16}}},
      {"MPI_COMPLEX32", K::ComplexLongDouble, 32, 16, {{0, 32}}},
      {"MPI_2INTEGER", K::Int32Int, 8, 4, {{0, 8}}},
      // C++'s complex types, laid out as C's.
      {"MPI_CXX_FLOAT_COMPLEX", K::ComplexFloat, 8, 4, {{0, 8}}},
      {"MPI_CXX_DOUBLE_COMPLEX", K::ComplexDouble, 16, 8, {{0, 16}}},
      {"MPI_CXX_LONG_DOUBLE_COMPLEX", K::ComplexLongDouble, 32, 16, {{0, 32}}},
      // Fortran's MINLOC/MAXLOC pairs: value and index both REAL or both
      // DOUBLE PRECISION.
      {"MPI_2REAL", K::FloatFloat, 8, 4, {{0, 8}}},
      {"MPI_2DOUBLE_PRECISION", K::DoubleDouble, 16, 8, {{0, 16}}},
  };
  return table;
}

std::vector<Layout> buildPredefinedLayouts() {
  std::vector<Layout> layouts;
  for (const PredefinedType& entry : predefinedTable()) {
    auto layout = std::make_shared<TypeLayout>();
    layout->segments = entry.segments;
    for (const TypeSegment& segment : entry.segments) layout->size += segment.length;
    layout->lb = 0;
    layout->ub = entry.extent;
    layout->trueLb = entry.segments.empty() ? 0 : entry.segments.front().offset;
    layout->trueUb =
        entry.segments.empty() ? 0 : entry.segments.back().offset + entry.segments.back().length;
    layout->alignment = entry.alignment;
    layout->element = entry.element;
    layout->committed = true;
    layout->predefined = true;
    layouts.push_back(std::move(layout));
  }
  return layouts;
}

void appendSegment(std::vector<TypeSegment>& segments, int64_t offset, int64_t length) {
  if (length == 0) return;
  if (!segments.empty() && segments.back().offset + segments.back().length == offset) {
    segments.back().length += length;
    return;
  }
  segments.push_back({offset, length});
}

ElementKind combineElements(ElementKind a, ElementKind b) {
  if (a == ElementKind::None) return b;
  if (b == ElementKind::None || a == b) return a;
  return ElementKind::Mixed;
}

// Walks the data bytes of `count` instances as contiguous runs. The
// instances of a contiguous type are one run: walked instance by instance,
// a copy between MPI_BYTE and a derived type would move one byte a call.
class RunCursor {
 public:
  RunCursor(const uint8_t* base, const TypeLayout& type, int64_t count)
      : base_(base), type_(type), count_(count),
        oneRun_(type.isContiguous() && type.extent() > 0) {
    skipEmpty();
  }
  bool done() const { return instance_ >= count_; }
  const uint8_t* pointer() const {
    const TypeSegment& segment = type_.segments[segment_];
    return base_ + instance_ * type_.extent() + segment.offset + within_;
  }
  int64_t remaining() const {
    if (oneRun_) return (count_ - instance_) * type_.extent() - within_;
    return type_.segments[segment_].length - within_;
  }
  void advance(int64_t bytes) {
    if (oneRun_) {
      within_ += bytes;
      instance_ += within_ / type_.extent();
      within_ %= type_.extent();
      return;
    }
    within_ += bytes;
    if (within_ == type_.segments[segment_].length) {
      within_ = 0;
      if (++segment_ == type_.segments.size()) {
        segment_ = 0;
        ++instance_;
      }
      skipEmpty();
    }
  }

 private:
  void skipEmpty() {
    if (type_.segments.empty()) instance_ = count_;
  }
  const uint8_t* base_;
  const TypeLayout& type_;
  int64_t count_;
  bool oneRun_;
  int64_t instance_ = 0;
  size_t segment_ = 0;
  int64_t within_ = 0;
};

}  // namespace

Layout predefinedLayout(int handle) {
  static const std::vector<Layout> layouts = buildPredefinedLayouts();
  if (handle <= 0 || handle > abi::kLastPredefinedType) return nullptr;
  return layouts[handle];
}

const char* predefinedTypeName(int handle) {
  if (handle < 0 || handle > abi::kLastPredefinedType) return "a derived datatype";
  return predefinedTable()[handle].name;
}

Layout buildDerivedLayout(const std::vector<TypeBlock>& blocks, int combiner,
                          bool padToAlignment) {
  auto layout = std::make_shared<TypeLayout>();
  layout->combiner = combiner;
  bool haveBounds = false, haveData = false;
  for (const TypeBlock& block : blocks) {
    const TypeLayout& old = *block.type;
    if (block.count <= 0) continue;
    // Instances sit at block.offset + k * extent for k < count; every bound
    // below is one of the two ends of that run plus a bound of `old`, so
    // checking those sums keeps all the arithmetic inside int64_t.
    int64_t stride, lastBase, blockSize;
    if (!scaledOffset(block.count - 1, old.extent(), stride) ||
        __builtin_add_overflow(block.offset, stride, &lastBase) ||
        !scaledOffset(block.count, old.size, blockSize) ||
        __builtin_add_overflow(layout->size, blockSize, &layout->size))
      return nullptr;
    int64_t lowBase = std::min(block.offset, lastBase), highBase = std::max(block.offset, lastBase);
    int64_t lb, ub, trueLb, trueUb;
    if (__builtin_add_overflow(lowBase, old.lb, &lb) || __builtin_add_overflow(highBase, old.ub, &ub) ||
        __builtin_add_overflow(lowBase, old.trueLb, &trueLb) ||
        __builtin_add_overflow(highBase, old.trueUb, &trueUb))
      return nullptr;
    if (old.isContiguous() && old.extent() > 0) {
      // Back-to-back instances of a gap-free type are one run of bytes.
      appendSegment(layout->segments, block.offset + old.lb, blockSize);
    } else {
      if (int64_t(layout->segments.size()) + block.count * int64_t(old.segments.size()) >
          kMaxTypeSegments)
        return nullptr;
      for (int64_t k = 0; k < block.count; ++k) {
        int64_t base = block.offset + k * old.extent();
        for (const TypeSegment& segment : old.segments)
          appendSegment(layout->segments, base + segment.offset, segment.length);
      }
    }
    layout->lb = haveBounds ? std::min(layout->lb, lb) : lb;
    layout->ub = haveBounds ? std::max(layout->ub, ub) : ub;
    haveBounds = true;
    if (old.size > 0) {
      layout->trueLb = haveData ? std::min(layout->trueLb, trueLb) : trueLb;
      layout->trueUb = haveData ? std::max(layout->trueUb, trueUb) : trueUb;
      haveData = true;
    }
    layout->alignment = std::max(layout->alignment, old.alignment);
    layout->element = combineElements(layout->element, old.element);
  }
  int64_t extent;
  if (__builtin_sub_overflow(layout->ub, layout->lb, &extent) ||
      extent > std::numeric_limits<int64_t>::max() - layout->alignment)
    return nullptr;
  if (padToAlignment && layout->alignment > 1) {
    int64_t padded = (extent + layout->alignment - 1) / layout->alignment * layout->alignment;
    layout->ub = layout->lb + padded;
  }
  return layout;
}

Layout resizedLayout(const Layout& old, int64_t lb, int64_t extent) {
  auto layout = std::make_shared<TypeLayout>(*old);
  layout->lb = lb;
  layout->ub = lb + extent;
  layout->committed = false;
  layout->predefined = false;
  layout->combiner = abi::kCombinerResized;
  return layout;
}

void copyTyped(const uint8_t* src, const TypeLayout& srcType, int64_t srcCount, uint8_t* dst,
               const TypeLayout& dstType, int64_t dstCount, int64_t bytes) {
  if (bytes <= 0) return;
  if (srcType.isContiguous() && dstType.isContiguous()) {
    std::memcpy(dst + dstType.lb, src + srcType.lb, size_t(bytes));
    return;
  }
  RunCursor from(src, srcType, srcCount);
  RunCursor to(dst, dstType, dstCount);
  while (bytes > 0 && !from.done() && !to.done()) {
    int64_t run = std::min({bytes, from.remaining(), to.remaining()});
    std::memcpy(const_cast<uint8_t*>(to.pointer()), from.pointer(), size_t(run));
    from.advance(run);
    to.advance(run);
    bytes -= run;
  }
}

void packTyped(const uint8_t* src, const TypeLayout& type, int64_t count, uint8_t* out) {
  if (type.isContiguous()) {
    std::memcpy(out, src + type.lb, size_t(type.size * count));
    return;
  }
  for (RunCursor from(src, type, count); !from.done();) {
    int64_t run = from.remaining();
    std::memcpy(out, from.pointer(), size_t(run));
    out += run;
    from.advance(run);
  }
}

void unpackTyped(const uint8_t* in, uint8_t* dst, const TypeLayout& type, int64_t count) {
  if (type.isContiguous()) {
    std::memcpy(dst + type.lb, in, size_t(type.size * count));
    return;
  }
  for (RunCursor to(dst, type, count); !to.done();) {
    int64_t run = to.remaining();
    std::memcpy(const_cast<uint8_t*>(to.pointer()), in, size_t(run));
    in += run;
    to.advance(run);
  }
}

}  // namespace synergy::mpi
