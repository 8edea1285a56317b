//===- ExternalPacking.cpp - MPI_Pack_external and its kin -----------------===//
//
// Host functions that pack typed data into, and unpack it from, the
// "external32" representation of MPI-3.1 §13.5.2: every basic element
// big-endian at a fixed size, whatever the host. The runtime's own packed
// form (Packing.cpp) holds the data bytes in type-map order in the host's
// (little-endian) byte order, so external32 is that form with each element
// byte-swapped, except MPI_AINT, which is 4 bytes in a granule and 8 in
// external32 (sign-extended on packing, its low 4 bytes taken on
// unpacking).
//
// A layout records its bytes, not the elements they hold, so the elements'
// sizes in type-map order come from the type's recipe: a struct's blocks
// in order, any other derived type its old type's elements repeated, down
// to the predefined types. Recipes nest at most kMaxNesting deep here; the
// guest builds them, so a deeper one is refused rather than recursed into.
//
// The data, the position and the buffer size come from the guest and are
// checked as MPI_Pack checks them: a pack or unpack that would run past the
// buffer moves nothing and is MPI_ERR_TRUNCATE.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstring>
#include <map>

#include "mpi/ExternalPacking.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

constexpr int kMaxNesting = 64;
constexpr int kTypeAint = 26;  // MPI_AINT (include/mpi.h)

// One scalar of an element: its size in the packed form and in external32.
struct Scalar {
  uint8_t native;
  uint8_t external;
};

// The scalars of one element of predefined type `handle`.
std::vector<Scalar> scalarsOf(int handle, const TypeLayout& type) {
  auto same = [](int width) { return Scalar{uint8_t(width), uint8_t(width)}; };
  if (handle == kTypeAint) return {Scalar{4, 8}};
  switch (type.element) {
    case ElementKind::ComplexFloat: return {same(4), same(4)};
    case ElementKind::ComplexDouble: return {same(8), same(8)};
    case ElementKind::ComplexLongDouble: return {same(16), same(16)};
    case ElementKind::FloatInt: case ElementKind::Int32Int: return {same(4), same(4)};
    case ElementKind::DoubleInt: return {same(8), same(4)};
    case ElementKind::ShortInt: return {same(2), same(4)};
    case ElementKind::LongDoubleInt: return {same(16), same(4)};
    case ElementKind::FloatFloat: return {same(4), same(4)};
    case ElementKind::DoubleDouble: return {same(8), same(8)};
    case ElementKind::None: case ElementKind::Mixed: case ElementKind::Byte:
      return {same(1)};
    default: return {same(int(packedElementSize(type.element)))};
  }
}

// Calls `visit(scalar, repeat)` for the scalars of `count` instances of
// `type` (predefined with handle `handle`, or derived) in type-map order,
// consecutive repeats of one scalar folded. False when the recipe nests
// too deeply or cannot be followed.
template <typename Visit>
bool forEachScalar(const TypeLayout& type, int handle, int64_t count, int depth, Visit&& visit) {
  if (count == 0 || type.size == 0) return true;
  if (type.predefined) {
    std::vector<Scalar> scalars = scalarsOf(handle, type);
    if (scalars.size() == 1) {
      visit(scalars[0], count * (type.size / scalars[0].native));
      return true;
    }
    for (int64_t i = 0; i < count; ++i)
      for (const Scalar& scalar : scalars) visit(scalar, 1);
    return true;
  }
  if (depth >= kMaxNesting || !type.recipe) return false;
  const TypeRecipe& recipe = *type.recipe;
  if (type.combiner == abi::kCombinerStruct) {
    for (int64_t i = 0; i < count; ++i)
      for (size_t block = 0; block < recipe.types.size(); ++block) {
        const auto& [oldHandle, old] = recipe.types[block];
        if (block + 1 >= recipe.integers.size()) return false;
        if (!forEachScalar(*old, oldHandle, recipe.integers[block + 1], depth + 1, visit))
          return false;
      }
    return true;
  }
  if (recipe.types.size() != 1) return false;
  const auto& [oldHandle, old] = recipe.types[0];
  if (old->size == 0) return true;
  return forEachScalar(*old, oldHandle, count * (type.size / old->size), depth + 1, visit);
}

// The external32 size of one instance, or -1 when the type's elements
// cannot be followed. Each layout is sized once (`sized`): a recipe may
// name one type many times over, which unfolded could take forever. No
// external size exceeds twice the native one, so nothing overflows.
int64_t instanceSize(const TypeLayout& type, int handle, int depth,
                     std::map<const TypeLayout*, int64_t>& sized) {
  if (type.size == 0) return 0;
  if (type.predefined) {
    int64_t bytes = 0;
    forEachScalar(type, handle, 1, 0,
                  [&](const Scalar& scalar, int64_t repeat) { bytes += scalar.external * repeat; });
    return bytes;
  }
  auto known = sized.find(&type);
  if (known != sized.end()) return known->second;
  if (depth >= kMaxNesting || !type.recipe) return -1;
  const TypeRecipe& recipe = *type.recipe;
  int64_t bytes = 0;
  if (type.combiner == abi::kCombinerStruct) {
    for (size_t block = 0; block < recipe.types.size(); ++block) {
      if (block + 1 >= recipe.integers.size()) return -1;
      int64_t inner = instanceSize(*recipe.types[block].second, recipe.types[block].first,
                                   depth + 1, sized);
      if (inner < 0) return -1;
      bytes += inner * recipe.integers[block + 1];
    }
  } else {
    if (recipe.types.size() != 1) return -1;
    const TypeLayout& old = *recipe.types[0].second;
    int64_t inner = old.size == 0 ? 0 : instanceSize(old, recipe.types[0].first, depth + 1, sized);
    if (inner < 0) return -1;
    bytes = old.size == 0 ? 0 : inner * (type.size / old.size);
  }
  sized[&type] = bytes;
  return bytes;
}

}  // namespace

namespace synergy::mpi {

int64_t external32Size(const TypeLayout& type, int handle, int64_t count) {
  std::map<const TypeLayout*, int64_t> sized;
  int64_t bytes = instanceSize(type, handle, 0, sized);
  int64_t total;
  if (bytes < 0 || __builtin_mul_overflow(bytes, count, &total)) return -1;
  return total;
}

void convertExternal32(const TypeLayout& type, int handle, int64_t count, const uint8_t* in,
                       uint8_t* out, bool toExternal) {
  forEachScalar(type, handle, count, 0, [&](const Scalar& scalar, int64_t repeat) {
    int inWidth = toExternal ? scalar.native : scalar.external;
    int outWidth = toExternal ? scalar.external : scalar.native;
    for (int64_t r = 0; r < repeat; ++r) {
      // Little-endian native value, widened with its sign or narrowed to
      // its low bytes, written the other way round.
      uint8_t value[16];
      if (toExternal) {
        for (int i = 0; i < inWidth; ++i) value[i] = in[i];
        uint8_t fill = (in[inWidth - 1] & 0x80) ? 0xff : 0;
        for (int i = inWidth; i < outWidth; ++i) value[i] = fill;
        for (int i = 0; i < outWidth; ++i) out[i] = value[outWidth - 1 - i];
      } else {
        for (int i = 0; i < inWidth; ++i) value[i] = in[inWidth - 1 - i];
        std::memcpy(out, value, size_t(outWidth));
      }
      in += inWidth;
      out += outWidth;
    }
  });
}

int64_t packedBytesOfExternal32Prefix(const TypeLayout& type, int handle, int64_t count,
                                      int64_t externalBytes) {
  int64_t packed = 0, external = 0;
  forEachScalar(type, handle, count, 0, [&](const Scalar& scalar, int64_t repeat) {
    if (external >= externalBytes) return;
    int64_t whole = std::min(repeat, (externalBytes - external) / scalar.external);
    packed += whole * scalar.native;
    // A partial element ends the prefix.
    external = whole < repeat ? externalBytes : external + whole * scalar.external;
  });
  return packed;
}

}  // namespace synergy::mpi

namespace {

// Checks the data representation, count and datatype; returns 0 or the
// raised error.
int checkArguments(HostCall& call, u32 datarep, int count, int typeHandle, Layout& type) {
  static const char kExternal32[] = "external32";
  const uint8_t* name = call.bytes(datarep, sizeof kExternal32);
  if (!name || std::memcmp(name, kExternal32, sizeof kExternal32) != 0)
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "the data representation must be \"external32\"");
  if (count < 0)
    return call.fail(abi::kCommWorld, abi::kErrCount, "negative count " + std::to_string(count));
  type = call.rank.type(typeHandle);
  if (!type)
    return call.fail(abi::kCommWorld, abi::kErrType,
                     "invalid datatype " + std::to_string(typeHandle));
  return abi::kSuccess;
}

// The external32 size of the call's data, or the raised error (negative).
int64_t checkedExternalSize(HostCall& call, const Layout& type, int handle, int count) {
  int64_t bytes = external32Size(*type, handle, count);
  if (bytes < 0)
    return -call.fail(abi::kCommWorld, abi::kErrType,
                      "the datatype nests more than " + std::to_string(kMaxNesting) +
                          " constructors deep, or its size leaves 64 bits");
  if (bytes > INT32_MAX)
    return -call.fail(abi::kCommWorld, abi::kErrCount,
                      "external32 size " + std::to_string(bytes) + " exceeds an MPI_Aint");
  return bytes;
}

// Reads the position and checks that `bytes` more fit in the buffer of
// `bufferSize` bytes at guest `buffer`; returns 0 or the raised error.
int externalRange(HostCall& call, u32 buffer, int bufferSize, u32 positionAddr, int64_t bytes,
                  int32_t& position, uint8_t*& range) {
  if (bufferSize < 0)
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "negative buffer size " + std::to_string(bufferSize));
  if (!call.load(positionAddr, position))
    return call.fail(abi::kCommWorld, abi::kErrArg, "position pointer outside linear memory");
  if (position < 0 || position > bufferSize)
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "position " + std::to_string(position) + " outside the buffer of " +
                         std::to_string(bufferSize) + " bytes");
  if (bytes > int64_t(bufferSize) - position)
    return call.fail(abi::kCommWorld, abi::kErrTruncate,
                     std::to_string(bytes) + " bytes at position " + std::to_string(position) +
                         " run past the buffer of " + std::to_string(bufferSize) + " bytes");
  range = call.bytes(uint64_t(buffer) + uint64_t(position), uint64_t(bytes));
  if (!range) return call.fail(abi::kCommWorld, abi::kErrBuffer, "buffer outside linear memory");
  return abi::kSuccess;
}

// What MPI_Pack_external and MPI_Unpack_external both check before a byte
// moves: the arguments, that the datatype is committed, the external32
// size of the data and the buffer's range for it from the position.
struct ExternalTransfer {
  Layout layout;
  int64_t bytes = 0;
  int32_t position = 0;
  uint8_t* range = nullptr;
};

// Fills `transfer` for `count` instances of datatype `typeHandle` to or
// from the buffer of `bufferSize` bytes at guest `buffer`; returns 0 or
// the raised error.
int prepareTransfer(HostCall& call, u32 datarep, int count, int typeHandle, u32 buffer,
                    int bufferSize, u32 positionAddr, ExternalTransfer& transfer) {
  if (int error = checkArguments(call, datarep, count, typeHandle, transfer.layout)) return error;
  if (!transfer.layout->committed)
    return call.fail(abi::kCommWorld, abi::kErrType, "datatype is not committed");
  transfer.bytes = checkedExternalSize(call, transfer.layout, typeHandle, count);
  if (transfer.bytes < 0) return int(-transfer.bytes);
  return externalRange(call, buffer, bufferSize, positionAddr, transfer.bytes, transfer.position,
                       transfer.range);
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Pack_external(void* instance, u32 datarep, u32 inbuf, u32 incount, u32 type,
                             u32 outbuf, u32 outsize, u32 positionAddr) {
  HostCall call(instance, "MPI_Pack_external");
  int count = int(incount);
  ExternalTransfer transfer;
  if (int error = prepareTransfer(call, datarep, count, int(type), outbuf, int(outsize),
                                  positionAddr, transfer))
    return error;
  const TypeLayout& layout = *transfer.layout;
  bool ok;
  const uint8_t* data = call.typedBuffer(inbuf, layout, count, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrBuffer, "input buffer outside linear memory");
  std::vector<uint8_t> native(size_t(layout.size * count));
  packTyped(data, layout, count, native.data());
  convertExternal32(layout, int(type), count, native.data(), transfer.range, true);
  call.store<int32_t>(positionAddr, int32_t(transfer.position + transfer.bytes));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Unpack_external(void* instance, u32 datarep, u32 inbuf, u32 insize,
                               u32 positionAddr, u32 outbuf, u32 outcount, u32 type) {
  HostCall call(instance, "MPI_Unpack_external");
  int count = int(outcount);
  ExternalTransfer transfer;
  if (int error = prepareTransfer(call, datarep, count, int(type), inbuf, int(insize),
                                  positionAddr, transfer))
    return error;
  const TypeLayout& layout = *transfer.layout;
  bool ok;
  uint8_t* data = call.typedBuffer(outbuf, layout, count, ok);
  if (!ok)
    return call.fail(abi::kCommWorld, abi::kErrBuffer, "output buffer outside linear memory");
  std::vector<uint8_t> native(size_t(layout.size * count));
  convertExternal32(layout, int(type), count, transfer.range, native.data(), false);
  unpackTyped(native.data(), data, layout, count);
  call.store<int32_t>(positionAddr, int32_t(transfer.position + transfer.bytes));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Pack_external_size(void* instance, u32 datarep, u32 incount, u32 type,
                                  u32 sizeOut) {
  HostCall call(instance, "MPI_Pack_external_size");
  Layout layout;
  int count = int(incount);
  if (int error = checkArguments(call, datarep, count, int(type), layout)) return error;
  int64_t bytes = checkedExternalSize(call, layout, int(type), count);
  if (bytes < 0) return u32(-bytes);
  if (!call.store<int32_t>(sizeOut, int32_t(bytes)))
    return call.fail(abi::kCommWorld, abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

}  // extern "C"
