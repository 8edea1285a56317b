//===- ElementCount.cpp - basic elements in received bytes -----------------===//
//
// A layout records its bytes, not the elements they hold. For a type of one
// element kind the count is a division; for a mixed one (a struct of ints
// and chars, say) a message that fills only part of an instance holds the
// elements of the type map up to where it stops (MPI-3.1 §4.1.11), and
// MPICH's datatype/getpartelm checks exactly that. So the elements are
// followed through the type's recipe, as MPI_Pack_external follows them:
// a struct's blocks in order, any other derived type its old type repeated.
// Whole instances and whole blocks are counted without being unfolded, each
// layout's count is taken once (`counted`), and recipes nest at most
// kMaxNesting deep: the guest builds them, so a deeper one is not followed.
//
//===----------------------------------------------------------------------===//
#include "mpi/ElementCount.h"

#include <map>

#include "mpi/MpiAbi.h"

namespace synergy::mpi {

namespace {

constexpr int kMaxNesting = 64;

using Counted = std::map<const TypeLayout*, int64_t>;

bool isSingleKind(const TypeLayout& type) {
  return type.element != ElementKind::Mixed && type.element != ElementKind::None;
}

// The elements of one whole instance, or -1 when they cannot be followed.
int64_t elementsPerInstance(const TypeLayout& type, int depth, Counted& counted) {
  if (type.size == 0) return 0;
  if (isSingleKind(type)) return type.elementsPerInstance();
  auto known = counted.find(&type);
  if (known != counted.end()) return known->second;
  if (depth >= kMaxNesting || !type.recipe) return -1;
  const TypeRecipe& recipe = *type.recipe;
  int64_t elements = 0;
  if (type.combiner == abi::kCombinerStruct) {
    for (size_t block = 0; block < recipe.types.size(); ++block) {
      if (block + 1 >= recipe.integers.size()) return -1;
      int64_t inner = elementsPerInstance(*recipe.types[block].second, depth + 1, counted);
      if (inner < 0) return -1;
      elements += inner * recipe.integers[block + 1];
    }
  } else {
    if (recipe.types.size() != 1) return -1;
    const TypeLayout& old = *recipe.types[0].second;
    int64_t inner = elementsPerInstance(old, depth + 1, counted);
    if (inner < 0) return -1;
    elements = old.size == 0 ? 0 : inner * (type.size / old.size);
  }
  counted[&type] = elements;
  return elements;
}

int64_t elementsIn(const TypeLayout& type, int64_t bytes, int depth, Counted& counted);

// The elements in the first `bytes` (< type.size) data bytes of one
// instance of a mixed type.
int64_t elementsInPart(const TypeLayout& type, int64_t bytes, int depth, Counted& counted) {
  if (depth >= kMaxNesting || !type.recipe) return -1;
  const TypeRecipe& recipe = *type.recipe;
  if (type.combiner != abi::kCombinerStruct) {
    if (recipe.types.size() != 1) return -1;
    return elementsIn(*recipe.types[0].second, bytes, depth + 1, counted);
  }
  int64_t elements = 0;
  for (size_t block = 0; block < recipe.types.size() && bytes > 0; ++block) {
    if (block + 1 >= recipe.integers.size()) return -1;
    const TypeLayout& old = *recipe.types[block].second;
    int64_t blockBytes = old.size * recipe.integers[block + 1];
    if (bytes < blockBytes) {
      int64_t inner = elementsIn(old, bytes, depth + 1, counted);
      return inner < 0 ? -1 : elements + inner;
    }
    int64_t inner = elementsPerInstance(old, depth + 1, counted);
    if (inner < 0) return -1;
    elements += inner * recipe.integers[block + 1];
    bytes -= blockBytes;
  }
  return bytes == 0 ? elements : -1;
}

int64_t elementsIn(const TypeLayout& type, int64_t bytes, int depth, Counted& counted) {
  if (bytes == 0) return 0;
  if (type.size == 0) return -1;
  if (isSingleKind(type)) {
    int64_t elementSize = packedElementSize(type.element);
    return bytes % elementSize == 0 ? bytes / elementSize : -1;
  }
  int64_t perInstance = elementsPerInstance(type, depth, counted);
  if (perInstance < 0) return -1;
  int64_t rest = bytes % type.size;
  int64_t part = rest == 0 ? 0 : elementsInPart(type, rest, depth, counted);
  if (part < 0) return -1;
  return bytes / type.size * perInstance + part;
}

}  // namespace

int64_t elementsInBytes(const TypeLayout& type, int64_t bytes) {
  if (bytes < 0) return -1;
  Counted counted;
  return elementsIn(type, bytes, 0, counted);
}

}  // namespace synergy::mpi
