//===- DatatypeConstruction.h - shared steps of datatype constructors ----===//
//
// The steps every derived-datatype constructor takes, whichever file it
// lives in (DatatypeFunctions.cpp, ArrayDatatypes.cpp): look up the old type's
// handle, describe it in the recipe MPI_Type_get_contents reports, refuse a
// block count the layout cannot hold, and hand the guest the new handle.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <utility>

#include "mpi/Datatype.h"
#include "mpi/RankState.h"

namespace synergy::mpi {

// The layout behind guest datatype handle `handle`, or the MPI_ERR_TYPE the
// call raised.
int lookUpOldType(HostCall& call, uint32_t handle, Layout& layout);
// An old type as a recipe names it: with its handle when predefined.
std::pair<int, Layout> recipeType(int handle, const Layout& layout);
// A constructor's block count, refused before any block is built when it is
// negative or above what a layout may hold.
int checkBlockCount(HostCall& call, int64_t count);
// Hands the guest (at `newtypeOut`) a handle to `layout`, built from
// `recipe`; a null layout is a type too large to represent.
uint32_t finishDerivedType(HostCall& call, Layout layout, TypeRecipe recipe, uint32_t newtypeOut);

}  // namespace synergy::mpi
