//===- External32Layouts.cpp - datatypes as they lie in an external32 file ===//
//
// In a file view with the "external32" data representation the file holds
// each element at its external32 size, and the view's etype and filetype
// are read in the file's terms (MPI-3.1 §13.5.1): a constructor that counts
// in elements (contiguous, vector, indexed, indexed_block, subarray,
// darray) steps by its old type's extent in the file, while byte
// displacements and bounds (hvector, hindexed, hindexed_block, struct,
// resized) are taken as they are. Only MPI_AINT changes size (4 bytes in a
// granule, 8 in external32), so a type that holds none lies in the file as
// in memory and keeps its layout. One that holds some is rebuilt from its
// recipe with each MPI_AINT an 8-byte, 8-aligned element: the layout OpenMPI,
// whose MPI_AINT is 8 bytes natively, builds from the same arguments.
//
// A subarray or darray recipe holds the arguments of a distribution; rather
// than run that again, the rebuilt layout puts each old-type instance of the
// memory layout at its element index times the old type's extent in the
// file, and spans the whole array in the file's terms.
//
// Recipes come from the guest's constructor calls: they are followed at
// most kMaxNesting deep, each layout is rebuilt once (a recipe may name one
// type many times over), every recipe array is checked against the counts
// it holds, and a rebuilt layout is bounded like any other
// (buildDerivedLayout).
//
//===----------------------------------------------------------------------===//
#include <map>

#include "mpi/ExternalPacking.h"
#include "mpi/MpiAbi.h"

using namespace synergy::mpi;

namespace {

constexpr int kMaxNesting = 64;
constexpr int kTypeAint = 26;  // MPI_AINT (include/mpi.h)

// MPI_AINT as external32 stores it.
Layout aintInFile() {
  static const Layout layout = [] {
    auto widened = std::make_shared<TypeLayout>(*predefinedLayout(kTypeAint));
    widened->segments = {{0, 8}};
    widened->size = 8;
    widened->lb = widened->trueLb = 0;
    widened->ub = widened->trueUb = 8;
    widened->alignment = 8;
    return Layout(std::move(widened));
  }();
  return layout;
}

class FileLayoutBuilder {
 public:
  // `type` (predefined with handle `handle`, or derived) in the file's
  // terms, or null when its recipe cannot be followed.
  Layout build(const Layout& type, int handle, int depth) {
    if (!type) return nullptr;
    if (external32Size(*type, handle, 1) == type->size) return type;
    if (type->predefined) return handle == kTypeAint ? aintInFile() : nullptr;
    auto known = built_.find(type.get());
    if (known != built_.end()) return known->second;
    Layout rebuilt = depth < kMaxNesting && type->recipe ? rebuild(*type, depth) : nullptr;
    built_[type.get()] = rebuilt;
    return rebuilt;
  }

 private:
  Layout rebuild(const TypeLayout& type, int depth) {
    const TypeRecipe& recipe = *type.recipe;
    const std::vector<int32_t>& integers = recipe.integers;
    const std::vector<int64_t>& addresses = recipe.addresses;
    if (recipe.types.empty()) return nullptr;
    int combiner = type.combiner;
    if (combiner == abi::kCombinerStruct) return rebuildStruct(recipe, depth);
    Layout old = build(recipe.types[0].second, recipe.types[0].first, depth + 1);
    if (!old) return nullptr;
    int64_t oldExtent = old->extent();
    // Block i of a count-based constructor: its length and its offset in
    // the file (a displacement in old-type extents, or in bytes).
    std::vector<TypeBlock> blocks;
    auto addBlocks = [&](size_t count, auto length, auto displacement, int64_t unit) {
      if (int64_t(count) > kMaxTypeSegments) return false;
      blocks.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        int64_t offset;
        if (!scaledOffset(displacement(i), unit, offset)) return false;
        blocks.push_back({old, length(i), offset});
      }
      return true;
    };
    size_t n = integers.empty() || integers[0] < 0 ? 0 : size_t(integers[0]);
    bool ok = false;
    switch (combiner) {
      case abi::kCombinerDup: return old;
      case abi::kCombinerResized:
        return addresses.size() == 2 ? resizedLayout(old, addresses[0], addresses[1]) : nullptr;
      case abi::kCombinerContiguous:
        ok = integers.size() == 1 && addBlocks(1, [&](size_t) { return integers[0]; },
                                               [](size_t) { return int64_t(0); }, 1);
        break;
      case abi::kCombinerVector:
        ok = integers.size() == 3 &&
             addBlocks(n, [&](size_t) { return integers[1]; },
                       [&](size_t i) { return int64_t(i) * integers[2]; }, oldExtent);
        break;
      case abi::kCombinerHvector:
        ok = integers.size() == 2 && addresses.size() == 1 &&
             addBlocks(n, [&](size_t) { return integers[1]; },
                       [&](size_t i) { return int64_t(i) * addresses[0]; }, 1);
        break;
      case abi::kCombinerIndexed:
        ok = integers.size() == 1 + 2 * n &&
             addBlocks(n, [&](size_t i) { return integers[1 + i]; },
                       [&](size_t i) { return int64_t(integers[1 + n + i]); }, oldExtent);
        break;
      case abi::kCombinerHindexed:
        ok = integers.size() == 1 + n && addresses.size() == n &&
             addBlocks(n, [&](size_t i) { return integers[1 + i]; },
                       [&](size_t i) { return addresses[i]; }, 1);
        break;
      case abi::kCombinerIndexedBlock:
        ok = integers.size() == 2 + n &&
             addBlocks(n, [&](size_t) { return integers[1]; },
                       [&](size_t i) { return int64_t(integers[2 + i]); }, oldExtent);
        break;
      case abi::kCombinerHindexedBlock:
        ok = integers.size() == 2 && addresses.size() == n &&
             addBlocks(n, [&](size_t) { return integers[1]; },
                       [&](size_t i) { return addresses[i]; }, 1);
        break;
      case abi::kCombinerSubarray:
      case abi::kCombinerDarray:
        return rebuildArray(type, *recipe.types[0].second, old);
      default: return nullptr;
    }
    return ok ? buildDerivedLayout(blocks, combiner, false) : nullptr;
  }

  Layout rebuildStruct(const TypeRecipe& recipe, int depth) {
    const std::vector<int32_t>& integers = recipe.integers;
    size_t n = integers.empty() || integers[0] < 0 ? 0 : size_t(integers[0]);
    if (integers.size() != 1 + n || recipe.addresses.size() != n || recipe.types.size() != n)
      return nullptr;
    std::vector<TypeBlock> blocks;
    blocks.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Layout old = build(recipe.types[i].second, recipe.types[i].first, depth + 1);
      if (!old) return nullptr;
      blocks.push_back({old, integers[1 + i], recipe.addresses[i]});
    }
    return buildDerivedLayout(blocks, abi::kCombinerStruct, true);
  }

  // A subarray or darray `type` of `memoryOld`, whose file form is `old`.
  // Its type map is instances of the old type at multiples of the old
  // type's extent, in storage order, so the data byte that starts each
  // instance gives the instance's element index.
  static Layout rebuildArray(const TypeLayout& type, const TypeLayout& memoryOld,
                             const Layout& old) {
    int64_t extent = memoryOld.extent();
    if (extent <= 0 || memoryOld.size <= 0 || memoryOld.segments.empty() || type.lb != 0 ||
        type.extent() % extent != 0 || type.size % memoryOld.size != 0)
      return nullptr;
    int64_t firstDataOffset = memoryOld.segments[0].offset;
    std::vector<TypeBlock> blocks;
    size_t segment = 0;
    int64_t within = 0;
    for (int64_t dataByte = 0; dataByte < type.size; dataByte += memoryOld.size) {
      while (segment < type.segments.size() && within >= type.segments[segment].length)
        within -= type.segments[segment++].length;
      if (segment == type.segments.size() || int64_t(blocks.size()) >= kMaxTypeSegments)
        return nullptr;
      int64_t fromBase = type.segments[segment].offset + within - firstDataOffset;
      int64_t offset;
      if (fromBase < 0 || fromBase % extent != 0 ||
          !scaledOffset(fromBase / extent, old->extent(), offset))
        return nullptr;
      blocks.push_back({old, 1, offset});
      within += memoryOld.size;
    }
    Layout packed = buildDerivedLayout(blocks, type.combiner, false);
    int64_t arrayExtent;
    if (!packed || !scaledOffset(type.extent() / extent, old->extent(), arrayExtent))
      return nullptr;
    auto whole = std::make_shared<TypeLayout>(*resizedLayout(packed, 0, arrayExtent));
    whole->combiner = type.combiner;
    return whole;
  }

  std::map<const TypeLayout*, Layout> built_;
};

}  // namespace

namespace synergy::mpi {

Layout external32FileLayout(const Layout& type, int handle) {
  return FileLayoutBuilder().build(type, handle, 0);
}

}  // namespace synergy::mpi
