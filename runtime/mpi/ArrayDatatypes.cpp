//===- ArrayDatatypes.cpp - subarray, darray and hindexed-block types -----===//
//
// The datatype constructors that describe a piece of a larger array:
// MPI_Type_create_subarray (a box inside an n-dimensional array),
// MPI_Type_create_darray (one process's share of an array distributed block-
// or cyclic-wise over a process grid, MPI-3.1 §4.1.4) and
// MPI_Type_create_hindexed_block (equal blocks at byte displacements). Each
// becomes an ordinary layout: the elements it selects, in the array's
// storage order (the last dimension fastest for MPI_ORDER_C, the first for
// MPI_ORDER_FORTRAN), resized to the whole array's extent, as the standard
// defines them. Every count is checked against the layout's segment bound
// before a block is built, so a hostile size asks for no unbounded work.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/Datatype.h"
#include "mpi/DatatypeConstruction.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

constexpr int kOrderC = 0;
constexpr int kOrderFortran = 1;
constexpr int kDistributeBlock = 0;
constexpr int kDistributeCyclic = 1;
constexpr int kDistributeNone = 2;
constexpr int kDistributeDefaultArgument = -1;
// More dimensions than any array a program declares; bounds the arrays read.
constexpr int kMaxDimensions = 64;

// `n` guest ints at `addr`, or empty with ok = false when they do not lie in
// linear memory.
std::vector<int32_t> readInts(HostCall& call, u32 addr, int n, bool& ok) {
  ok = true;
  if (n <= 0) return {};
  const uint8_t* p = call.bytes(addr, uint64_t(n) * 4);
  if (!p) {
    ok = false;
    return {};
  }
  std::vector<int32_t> values(static_cast<size_t>(n));
  std::memcpy(values.data(), p, size_t(n) * 4);
  return values;
}

// The element indices one process holds along each dimension, in ascending
// order, and the dimensions' full sizes; the type selects their cartesian
// product, laid out in `order`.
struct ArraySelection {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> indices;
  int order = kOrderC;
};

// Builds the layout of `selection` over elements of `old`: one block per run
// of consecutive indices along the fastest dimension, then resized to the
// whole array. Null when it would exceed kMaxTypeSegments or int64_t.
Layout selectionLayout(HostCall& call, const ArraySelection& selection, const Layout& old,
                       int combiner, int& error) {
  error = abi::kSuccess;
  int dims = int(selection.sizes.size());
  // Storage order: dimension `axis[0]` varies slowest.
  std::vector<int> axis(static_cast<size_t>(dims));
  for (int i = 0; i < dims; ++i) axis[size_t(i)] = selection.order == kOrderC ? i : dims - 1 - i;
  int fastest = axis.back();
  // Runs of consecutive indices along the fastest dimension.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t index : selection.indices[size_t(fastest)]) {
    if (!runs.empty() && runs.back().first + runs.back().second == index)
      ++runs.back().second;
    else
      runs.push_back({index, 1});
  }
  int64_t blockCount = int64_t(runs.size());
  for (int i = 0; i + 1 < dims; ++i) {
    int64_t n = int64_t(selection.indices[size_t(axis[size_t(i)])].size());
    if (n == 0) blockCount = 0;
    if (blockCount > 0 && __builtin_mul_overflow(blockCount, n, &blockCount)) blockCount = INT64_MAX;
  }
  if ((error = checkBlockCount(call, blockCount)))
    return nullptr;
  // Strides in elements: the element count of the dimensions faster than each.
  std::vector<int64_t> stride(static_cast<size_t>(dims), 1);
  int64_t total = 1;
  for (int i = dims - 1; i >= 0; --i) {
    stride[size_t(axis[size_t(i)])] = total;
    if (__builtin_mul_overflow(total, selection.sizes[size_t(axis[size_t(i)])], &total)) return nullptr;
  }
  int64_t arrayExtent;
  if (!scaledOffset(total, old->extent(), arrayExtent)) return nullptr;
  std::vector<TypeBlock> blocks;
  blocks.reserve(size_t(blockCount));
  std::vector<size_t> position(static_cast<size_t>(dims), 0);  // over the slower dimensions
  while (blockCount > 0) {
    int64_t base = 0;
    for (int i = 0; i + 1 < dims; ++i) {
      int d = axis[size_t(i)];
      base += selection.indices[size_t(d)][position[size_t(d)]] * stride[size_t(d)];
    }
    for (const auto& [first, length] : runs) {
      int64_t offset;
      if (!scaledOffset(base + first * stride[size_t(fastest)], old->extent(), offset)) return nullptr;
      blocks.push_back({old, length, offset});
    }
    int i = dims - 2;
    for (; i >= 0; --i) {
      int d = axis[size_t(i)];
      if (++position[size_t(d)] < selection.indices[size_t(d)].size()) break;
      position[size_t(d)] = 0;
    }
    if (i < 0) break;
  }
  Layout packed = buildDerivedLayout(blocks, combiner, false);
  if (!packed) return nullptr;
  auto whole = std::make_shared<TypeLayout>(*resizedLayout(packed, 0, arrayExtent));
  whole->combiner = combiner;
  return whole;
}

// Reads the arrays of a subarray or darray call's dimensions.
bool readDimensions(HostCall& call, int ndims, std::initializer_list<std::pair<u32, std::vector<int32_t>*>> arrays,
                    int& error) {
  error = abi::kSuccess;
  if (ndims < 1 || ndims > kMaxDimensions) {
    error = call.fail(abi::kCommWorld, abi::kErrArg,
                      std::to_string(ndims) + " dimensions: 1 to " + std::to_string(kMaxDimensions) +
                          " are supported");
    return false;
  }
  for (auto& [addr, out] : arrays) {
    bool ok;
    *out = readInts(call, addr, ndims, ok);
    if (!ok) {
      error = call.fail(abi::kCommWorld, abi::kErrArg, "array argument outside linear memory");
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Type_create_subarray(void* instance, u32 ndims, u32 sizesAddr, u32 subsizesAddr,
                                    u32 startsAddr, u32 order, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_subarray");
  Layout old;
  if (int e = lookUpOldType(call, oldtype, old)) return e;
  int n = int(ndims);
  std::vector<int32_t> sizes, subsizes, starts;
  int error;
  if (!readDimensions(call, n, {{sizesAddr, &sizes}, {subsizesAddr, &subsizes}, {startsAddr, &starts}},
                      error))
    return error;
  if (int(order) != kOrderC && int(order) != kOrderFortran)
    return call.fail(abi::kCommWorld, abi::kErrArg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
  ArraySelection selection;
  selection.order = int(order);
  for (int i = 0; i < n; ++i) {
    if (sizes[size_t(i)] < 1 || subsizes[size_t(i)] < 1 || starts[size_t(i)] < 0 ||
        int64_t(starts[size_t(i)]) + subsizes[size_t(i)] > sizes[size_t(i)])
      return call.fail(abi::kCommWorld, abi::kErrArg,
                       "dimension " + std::to_string(i) + ": the subarray [" +
                           std::to_string(starts[size_t(i)]) + ", +" +
                           std::to_string(subsizes[size_t(i)]) + ") does not fit in size " +
                           std::to_string(sizes[size_t(i)]));
    if (subsizes[size_t(i)] > kMaxTypeSegments)
      return checkBlockCount(call, int64_t(subsizes[size_t(i)]));
    selection.sizes.push_back(sizes[size_t(i)]);
    std::vector<int64_t> indices;
    for (int64_t k = 0; k < subsizes[size_t(i)]; ++k) indices.push_back(starts[size_t(i)] + k);
    selection.indices.push_back(std::move(indices));
  }
  Layout layout = selectionLayout(call, selection, old, abi::kCombinerSubarray, error);
  if (error) return error;
  TypeRecipe recipe{{n}, {}, {recipeType(int(oldtype), old)}};
  for (const auto* array : {&sizes, &subsizes, &starts})
    recipe.integers.insert(recipe.integers.end(), array->begin(), array->end());
  recipe.integers.push_back(int(order));
  return finishDerivedType(call, std::move(layout), std::move(recipe), newtype);
}

u32 Z_envZ_MPI_Type_create_darray(void* instance, u32 size, u32 rank, u32 ndims, u32 gsizesAddr,
                                  u32 distribsAddr, u32 dargsAddr, u32 psizesAddr, u32 order,
                                  u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_darray");
  Layout old;
  if (int e = lookUpOldType(call, oldtype, old)) return e;
  int n = int(ndims);
  std::vector<int32_t> gsizes, distribs, dargs, psizes;
  int error;
  if (!readDimensions(call, n,
                      {{gsizesAddr, &gsizes}, {distribsAddr, &distribs}, {dargsAddr, &dargs},
                       {psizesAddr, &psizes}},
                      error))
    return error;
  if (int(order) != kOrderC && int(order) != kOrderFortran)
    return call.fail(abi::kCommWorld, abi::kErrArg, "order must be MPI_ORDER_C or MPI_ORDER_FORTRAN");
  int64_t processes = 1;
  for (int i = 0; i < n; ++i) {
    if (psizes[size_t(i)] < 1 || gsizes[size_t(i)] < 1)
      return call.fail(abi::kCommWorld, abi::kErrArg,
                       "dimension " + std::to_string(i) + ": sizes must be positive");
    processes *= psizes[size_t(i)];
    if (processes > int64_t(INT32_MAX)) break;
  }
  if (processes != int32_t(size) || int32_t(rank) < 0 || int32_t(rank) >= int32_t(size))
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "the process grid holds " + std::to_string(processes) + " processes, not size " +
                         std::to_string(int32_t(size)) + ", or rank " + std::to_string(int32_t(rank)) +
                         " is outside it");
  // The process grid is numbered row-major whatever the array's order.
  std::vector<int64_t> coords(static_cast<size_t>(n));
  int64_t rest = int32_t(rank);
  for (int i = n - 1; i >= 0; --i) {
    coords[size_t(i)] = rest % psizes[size_t(i)];
    rest /= psizes[size_t(i)];
  }
  ArraySelection selection;
  selection.order = int(order);
  for (int i = 0; i < n; ++i) {
    int64_t g = gsizes[size_t(i)], p = psizes[size_t(i)], r = coords[size_t(i)];
    int64_t darg = dargs[size_t(i)];
    std::vector<int64_t> indices;
    std::string where = "dimension " + std::to_string(i) + ": ";
    switch (distribs[size_t(i)]) {
      case kDistributeNone:
        if (p != 1) return call.fail(abi::kCommWorld, abi::kErrArg, where + "MPI_DISTRIBUTE_NONE over more than one process");
        if (g > kMaxTypeSegments) return checkBlockCount(call, g);
        for (int64_t k = 0; k < g; ++k) indices.push_back(k);
        break;
      case kDistributeBlock: {
        int64_t block = darg == kDistributeDefaultArgument ? (g + p - 1) / p : darg;
        if (block < 1 || block * p < g)
          return call.fail(abi::kCommWorld, abi::kErrArg, where + "block size " + std::to_string(block) +
                                                              " does not cover " + std::to_string(g) + " elements");
        int64_t last = std::min(g, (r + 1) * block);
        if (last - r * block > kMaxTypeSegments) return checkBlockCount(call, last - r * block);
        for (int64_t k = r * block; k < last; ++k) indices.push_back(k);
        break;
      }
      case kDistributeCyclic: {
        int64_t block = darg == kDistributeDefaultArgument ? 1 : darg;
        if (block < 1) return call.fail(abi::kCommWorld, abi::kErrArg, where + "cyclic block size must be positive");
        for (int64_t start = r * block; start < g; start += p * block) {
          for (int64_t k = start; k < std::min(g, start + block); ++k) indices.push_back(k);
          if (int64_t(indices.size()) > kMaxTypeSegments) return checkBlockCount(call, int64_t(indices.size()));
        }
        break;
      }
      default:
        return call.fail(abi::kCommWorld, abi::kErrArg, where + "unknown distribution " +
                                                            std::to_string(distribs[size_t(i)]));
    }
    selection.sizes.push_back(g);
    selection.indices.push_back(std::move(indices));
  }
  Layout layout = selectionLayout(call, selection, old, abi::kCombinerDarray, error);
  if (error) return error;
  TypeRecipe recipe{{int32_t(size), int32_t(rank), n}, {}, {recipeType(int(oldtype), old)}};
  for (const auto* array : {&gsizes, &distribs, &dargs, &psizes})
    recipe.integers.insert(recipe.integers.end(), array->begin(), array->end());
  recipe.integers.push_back(int(order));
  return finishDerivedType(call, std::move(layout), std::move(recipe), newtype);
}

u32 Z_envZ_MPI_Type_create_hindexed_block(void* instance, u32 count, u32 blocklength,
                                          u32 displacements, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_hindexed_block");
  Layout old;
  if (int e = lookUpOldType(call, oldtype, old)) return e;
  int n = int(count);
  if (int e = checkBlockCount(call, n)) return e;
  if (int(blocklength) < 0) return call.fail(abi::kCommWorld, abi::kErrCount, "negative block length");
  bool ok;
  // MPI_Aint displacements are 32-bit on wasm32.
  std::vector<int32_t> displs = readInts(call, displacements, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrArg, "displacement array outside linear memory");
  std::vector<TypeBlock> blocks;
  for (int32_t displacement : displs) blocks.push_back({old, int(blocklength), displacement});
  TypeRecipe recipe{{n, int(blocklength)}, {}, {recipeType(int(oldtype), old)}};
  recipe.addresses.assign(displs.begin(), displs.end());
  return finishDerivedType(call, buildDerivedLayout(blocks, abi::kCombinerHindexedBlock, false),
                           std::move(recipe), newtype);
}

}  // extern "C"
