//===- DatatypeFunctions.cpp - MPI derived datatype constructors ----------===//
//
// Host functions that build, commit, free and query datatypes. The layouts
// themselves are computed in Datatype.cpp; this file reads the guest's
// argument arrays and manages the rank's datatype handles.
//
//===----------------------------------------------------------------------===//
#include <cstring>

#include "mpi/Datatype.h"
#include "mpi/DatatypeAttributes.h"
#include "mpi/DatatypeConstruction.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

int oldType(HostCall& call, u32 handle, Layout& layout) {
  return lookUpOldType(call, handle, layout);
}

u32 finish(HostCall& call, Layout layout, TypeRecipe recipe, u32 newtypeOut) {
  return finishDerivedType(call, std::move(layout), std::move(recipe), newtypeOut);
}

const int32_t* ints(HostCall& call, u32 addr, int n) {
  if (n <= 0) return nullptr;
  return reinterpret_cast<const int32_t*>(call.bytes(addr, uint64_t(n) * 4));
}

// How many bytes one unit of a stride or displacement is: the old type's
// extent, or a byte for the h-forms.
int64_t unitBytes(const TypeLayout& old, int combiner) {
  return combiner == abi::kCombinerHvector || combiner == abi::kCombinerHindexed ? 1 : old.extent();
}

// MPI_Type_vector and MPI_Type_create_hvector.
u32 strided(HostCall& call, u32 count, u32 blocklength, u32 stride, u32 oldtype, u32 newtype,
            int combiner) {
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  if (int e = checkBlockCount(call, int(count))) return e;
  if (int(blocklength) < 0) return call.fail(abi::kCommWorld, abi::kErrCount, "negative count");
  int64_t unit = unitBytes(*old, combiner);
  std::vector<TypeBlock> blocks;
  for (int i = 0; i < int(count); ++i) {
    int64_t offset;
    if (!scaledOffset(int64_t(i) * int32_t(stride), unit, offset)) return finish(call, nullptr, {}, newtype);
    blocks.push_back({old, int(blocklength), offset});
  }
  TypeRecipe recipe{{int(count), int(blocklength)}, {}, {recipeType(int(oldtype), old)}};
  if (combiner == abi::kCombinerHvector)
    recipe.addresses.push_back(int32_t(stride));
  else
    recipe.integers.push_back(int32_t(stride));
  return finish(call, buildDerivedLayout(blocks, combiner, false), std::move(recipe), newtype);
}

// MPI_Type_indexed and MPI_Type_create_hindexed (MPI_Aint displacements
// are 32-bit on wasm32).
u32 indexed(HostCall& call, u32 count, u32 blocklengths, u32 displacements, u32 oldtype,
            u32 newtype, int combiner) {
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  int n = int(count);
  const int32_t* lengths = ints(call, blocklengths, n);
  const int32_t* displs = ints(call, displacements, n);
  if (int e = checkBlockCount(call, n)) return e;
  if (n > 0 && (!lengths || !displs))
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid block arrays");
  int64_t unit = unitBytes(*old, combiner);
  std::vector<TypeBlock> blocks;
  for (int i = 0; i < n; ++i) {
    int64_t offset;
    if (!scaledOffset(displs[i], unit, offset)) return finish(call, nullptr, {}, newtype);
    blocks.push_back({old, lengths[i], offset});
  }
  TypeRecipe recipe{{n}, {}, {recipeType(int(oldtype), old)}};
  recipe.integers.insert(recipe.integers.end(), lengths, lengths + n);
  if (combiner == abi::kCombinerHindexed)
    recipe.addresses.assign(displs, displs + n);
  else
    recipe.integers.insert(recipe.integers.end(), displs, displs + n);
  return finish(call, buildDerivedLayout(blocks, combiner, false), std::move(recipe), newtype);
}

}  // namespace

namespace synergy::mpi {

int lookUpOldType(HostCall& call, uint32_t handle, Layout& layout) {
  layout = call.rank.type(int(handle));
  if (!layout)
    return call.fail(abi::kCommWorld, abi::kErrType, "invalid datatype " + std::to_string(int(handle)));
  return abi::kSuccess;
}

std::pair<int, Layout> recipeType(int handle, const Layout& layout) {
  return {layout->predefined ? handle : 0, layout};
}

int checkBlockCount(HostCall& call, int64_t count) {
  if (count < 0) return call.fail(abi::kCommWorld, abi::kErrCount, "negative count");
  if (count > kMaxTypeSegments)
    return call.fail(abi::kCommWorld, abi::kErrCount,
                     std::to_string(count) + " blocks: at most " + std::to_string(kMaxTypeSegments) +
                         " are supported");
  return abi::kSuccess;
}

// A null layout is a type too large to represent (see kMaxTypeSegments).
uint32_t finishDerivedType(HostCall& call, Layout layout, TypeRecipe recipe, uint32_t newtypeOut) {
  if (!layout)
    return call.fail(abi::kCommWorld, abi::kErrType,
                     "the datatype is too large: over " + std::to_string(kMaxTypeSegments) +
                         " separate pieces, or bounds beyond 64 bits");
  if (!call.bytes(newtypeOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "newtype pointer outside linear memory");
  auto described = std::make_shared<TypeLayout>(*layout);
  described->recipe = std::make_shared<const TypeRecipe>(std::move(recipe));
  call.store<int32_t>(newtypeOut, call.rank.addType(std::move(described)));
  return abi::kSuccess;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Type_contiguous(void* instance, u32 count, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_contiguous");
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  if (int(count) < 0) return call.fail(abi::kCommWorld, abi::kErrCount, "negative count");
  return finish(call, buildDerivedLayout({{old, int(count), 0}}, abi::kCombinerContiguous, false),
                TypeRecipe{{int(count)}, {}, {recipeType(int(oldtype), old)}}, newtype);
}

u32 Z_envZ_MPI_Type_vector(void* instance, u32 count, u32 blocklength, u32 stride, u32 oldtype,
                           u32 newtype) {
  HostCall call(instance, "MPI_Type_vector");
  return strided(call, count, blocklength, stride, oldtype, newtype, abi::kCombinerVector);
}

u32 Z_envZ_MPI_Type_create_hvector(void* instance, u32 count, u32 blocklength, u32 stride,
                                   u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_hvector");
  return strided(call, count, blocklength, stride, oldtype, newtype, abi::kCombinerHvector);
}

u32 Z_envZ_MPI_Type_indexed(void* instance, u32 count, u32 blocklengths, u32 displacements,
                            u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_indexed");
  return indexed(call, count, blocklengths, displacements, oldtype, newtype, abi::kCombinerIndexed);
}

u32 Z_envZ_MPI_Type_create_hindexed(void* instance, u32 count, u32 blocklengths,
                                    u32 displacements, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_hindexed");
  return indexed(call, count, blocklengths, displacements, oldtype, newtype, abi::kCombinerHindexed);
}

u32 Z_envZ_MPI_Type_create_indexed_block(void* instance, u32 count, u32 blocklength,
                                         u32 displacements, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_indexed_block");
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  int n = int(count);
  const int32_t* displs = ints(call, displacements, n);
  if (int e = checkBlockCount(call, n)) return e;
  if (n > 0 && !displs)
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid displacement array");
  std::vector<TypeBlock> blocks;
  for (int i = 0; i < n; ++i) {
    int64_t offset;
    if (!scaledOffset(displs[i], old->extent(), offset)) return finish(call, nullptr, {}, newtype);
    blocks.push_back({old, int(blocklength), offset});
  }
  TypeRecipe recipe{{n, int(blocklength)}, {}, {recipeType(int(oldtype), old)}};
  recipe.integers.insert(recipe.integers.end(), displs, displs + n);
  return finish(call, buildDerivedLayout(blocks, abi::kCombinerIndexedBlock, false), std::move(recipe),
                newtype);
}

u32 Z_envZ_MPI_Type_create_struct(void* instance, u32 count, u32 blocklengths, u32 displacements,
                                  u32 types, u32 newtype) {
  HostCall call(instance, "MPI_Type_create_struct");
  int n = int(count);
  const int32_t* lengths = ints(call, blocklengths, n);
  const int32_t* displs = ints(call, displacements, n);
  const int32_t* handles = ints(call, types, n);
  if (int e = checkBlockCount(call, n)) return e;
  if (n > 0 && (!lengths || !displs || !handles))
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid block arrays");
  std::vector<TypeBlock> blocks;
  TypeRecipe recipe{{n}, {}, {}};
  for (int i = 0; i < n; ++i) {
    Layout old;
    if (int e = oldType(call, u32(handles[i]), old)) return e;
    blocks.push_back({old, lengths[i], int64_t(displs[i])});
    recipe.types.push_back(recipeType(handles[i], old));
  }
  recipe.integers.insert(recipe.integers.end(), lengths, lengths + n);
  recipe.addresses.assign(displs, displs + n);
  return finish(call, buildDerivedLayout(blocks, abi::kCombinerStruct, true), std::move(recipe),
                newtype);
}

u32 Z_envZ_MPI_Type_create_resized(void* instance, u32 oldtype, u32 lb, u32 extent,
                                   u32 newtype) {
  HostCall call(instance, "MPI_Type_create_resized");
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  return finish(call, resizedLayout(old, int32_t(lb), int32_t(extent)),
                TypeRecipe{{}, {int32_t(lb), int32_t(extent)}, {recipeType(int(oldtype), old)}},
                newtype);
}

u32 Z_envZ_MPI_Type_dup(void* instance, u32 oldtype, u32 newtype) {
  HostCall call(instance, "MPI_Type_dup");
  Layout old;
  if (int e = oldType(call, oldtype, old)) return e;
  auto copy = std::make_shared<TypeLayout>(*old);
  copy->predefined = false;
  copy->combiner = abi::kCombinerDup;
  if (int e = finish(call, copy, TypeRecipe{{}, {}, {recipeType(int(oldtype), old)}}, newtype))
    return e;
  int32_t duplicate;
  call.load(newtype, duplicate);
  return copyTypeAttributes(call, int(oldtype), duplicate);
}

u32 Z_envZ_MPI_Type_commit(void* instance, u32 typeAddr) {
  HostCall call(instance, "MPI_Type_commit");
  int32_t handle;
  if (!call.load(typeAddr, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "datatype pointer outside linear memory");
  Layout layout = call.rank.type(handle);
  if (!layout) return call.fail(abi::kCommWorld, abi::kErrType, "invalid datatype");
  if (!layout->committed) {
    auto committed = std::make_shared<TypeLayout>(*layout);
    committed->committed = true;
    call.rank.replaceType(handle, committed);
  }
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_free(void* instance, u32 typeAddr) {
  HostCall call(instance, "MPI_Type_free");
  int32_t handle;
  if (!call.load(typeAddr, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "datatype pointer outside linear memory");
  Layout layout = call.rank.type(handle);
  if (!layout || layout->predefined)
    return call.fail(abi::kCommWorld, abi::kErrType, "cannot free this datatype");
  // The delete callbacks run before the datatype goes; a failing one is
  // raised and the datatype stays, without its attributes.
  if (int error = deleteTypeAttributes(call, handle)) return error;
  call.rank.freeType(handle);
  call.store<int32_t>(typeAddr, abi::kDatatypeNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_size(void* instance, u32 type, u32 sizeOut) {
  HostCall call(instance, "MPI_Type_size");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  call.store<int32_t>(sizeOut, int32_t(layout->size));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_extent(void* instance, u32 type, u32 lbOut, u32 extentOut) {
  HostCall call(instance, "MPI_Type_get_extent");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  call.store<int32_t>(lbOut, int32_t(layout->lb));
  call.store<int32_t>(extentOut, int32_t(layout->extent()));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_true_extent(void* instance, u32 type, u32 lbOut, u32 extentOut) {
  HostCall call(instance, "MPI_Type_get_true_extent");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  call.store<int32_t>(lbOut, int32_t(layout->trueLb));
  call.store<int32_t>(extentOut, int32_t(layout->trueUb - layout->trueLb));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_size_x(void* instance, u32 type, u32 sizeOut) {
  HostCall call(instance, "MPI_Type_size_x");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  if (!call.store<int64_t>(sizeOut, layout->size))
    return call.fail(abi::kCommWorld, abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_extent_x(void* instance, u32 type, u32 lbOut, u32 extentOut) {
  HostCall call(instance, "MPI_Type_get_extent_x");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  if (!call.store<int64_t>(lbOut, layout->lb) ||
      !call.store<int64_t>(extentOut, layout->extent()))
    return call.fail(abi::kCommWorld, abi::kErrArg, "result pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_true_extent_x(void* instance, u32 type, u32 lbOut, u32 extentOut) {
  HostCall call(instance, "MPI_Type_get_true_extent_x");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  if (!call.store<int64_t>(lbOut, layout->trueLb) ||
      !call.store<int64_t>(extentOut, layout->trueUb - layout->trueLb))
    return call.fail(abi::kCommWorld, abi::kErrArg, "result pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Type_get_envelope(void* instance, u32 type, u32 integersOut, u32 addressesOut,
                                 u32 typesOut, u32 combinerOut) {
  HostCall call(instance, "MPI_Type_get_envelope");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  const TypeRecipe* recipe = layout->recipe.get();
  bool ok = call.store<int32_t>(integersOut, recipe ? int32_t(recipe->integers.size()) : 0) &&
            call.store<int32_t>(addressesOut, recipe ? int32_t(recipe->addresses.size()) : 0) &&
            call.store<int32_t>(typesOut, recipe ? int32_t(recipe->types.size()) : 0) &&
            call.store<int32_t>(combinerOut, recipe ? layout->combiner : abi::kCombinerNamed);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrArg, "output outside linear memory");
  return abi::kSuccess;
}

// The old types come back as handles: a predefined one's own, a new one
// (which the program frees) for each derived one, as MPI prescribes.
u32 Z_envZ_MPI_Type_get_contents(void* instance, u32 type, u32 maxIntegers, u32 maxAddresses,
                                 u32 maxTypes, u32 integersOut, u32 addressesOut, u32 typesOut) {
  HostCall call(instance, "MPI_Type_get_contents");
  Layout layout;
  if (int e = oldType(call, type, layout)) return e;
  const TypeRecipe* recipe = layout->recipe.get();
  if (!recipe)
    return call.fail(abi::kCommWorld, abi::kErrType, "a predefined datatype has no contents");
  if (int(maxIntegers) < int(recipe->integers.size()) ||
      int(maxAddresses) < int(recipe->addresses.size()) ||
      int(maxTypes) < int(recipe->types.size()))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output arrays shorter than the envelope says");
  uint8_t* integers = call.bytes(integersOut, 4 * uint64_t(recipe->integers.size()));
  uint8_t* addresses = call.bytes(addressesOut, 4 * uint64_t(recipe->addresses.size()));
  uint8_t* types = call.bytes(typesOut, 4 * uint64_t(recipe->types.size()));
  if (!integers || !addresses || !types)
    return call.fail(abi::kCommWorld, abi::kErrArg, "output arrays outside linear memory");
  std::memcpy(integers, recipe->integers.data(), 4 * recipe->integers.size());
  for (size_t i = 0; i < recipe->addresses.size(); ++i)
    call.store<int32_t>(addressesOut + 4 * uint32_t(i), int32_t(recipe->addresses[i]));
  for (size_t i = 0; i < recipe->types.size(); ++i) {
    const auto& [handle, old] = recipe->types[i];
    call.store<int32_t>(typesOut + 4 * uint32_t(i), handle ? handle : call.rank.addType(old));
  }
  return abi::kSuccess;
}

// The Fortran type of a class and byte size (MPI-3.1 section 17.1.9),
// the sized one of each: MPI_INTEGERn, MPI_REALn, MPI_COMPLEXn.
u32 Z_envZ_MPI_Type_match_size(void* instance, u32 typeclass, u32 size, u32 typeOut) {
  HostCall call(instance, "MPI_Type_match_size");
  struct SizedType {
    int typeclass;
    int size;
    int handle;
  };
  static constexpr SizedType kSizedTypes[] = {
      {1, 1, 47}, {1, 2, 48}, {1, 4, 49}, {1, 8, 50},    // MPI_INTEGER1..8
      {2, 4, 51}, {2, 8, 52}, {2, 16, 53},               // MPI_REAL4..16
      {3, 8, 54}, {3, 16, 55}, {3, 32, 56},              // MPI_COMPLEX8..32
  };
  if (int(typeclass) < 1 || int(typeclass) > 3)
    return call.fail(abi::kCommWorld, abi::kErrArg,
                     "invalid type class " + std::to_string(int(typeclass)));
  for (const SizedType& sized : kSizedTypes) {
    if (sized.typeclass != int(typeclass) || sized.size != int(size)) continue;
    if (!call.store<int32_t>(typeOut, sized.handle))
      return call.fail(abi::kCommWorld, abi::kErrArg, "datatype pointer outside linear memory");
    return abi::kSuccess;
  }
  return call.fail(abi::kCommWorld, abi::kErrArg,
                   "no type of class " + std::to_string(int(typeclass)) + " has " +
                       std::to_string(int(size)) + " bytes");
}

}  // extern "C"
