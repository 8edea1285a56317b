//===- ElementCount.h - basic elements in received bytes -------------------===//
//
// MPI_Get_elements counts the basic elements a receive filled, which for a
// type made of several kinds of element depends on where each element
// lies in the type map (ElementCount.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "mpi/Datatype.h"

namespace synergy::mpi {

// The basic elements of `type` held by its first `bytes` data bytes (whole
// instances, then a part of one), or -1 when `bytes` ends inside an element
// or the type's elements cannot be followed.
int64_t elementsInBytes(const TypeLayout& type, int64_t bytes);

}  // namespace synergy::mpi
