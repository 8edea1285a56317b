//===- ExternalPacking.h - the external32 form of typed data ---------------===//
//
// The "external32" representation (MPI-3.1 §13.5.2) of data in the
// runtime's packed form (Datatype.h): MPI_Pack_external and its kin use it,
// and so do file views in that representation (FileViews.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "mpi/Datatype.h"

namespace synergy::mpi {

// The external32 size of `count` instances of `type` (predefined with
// handle `handle`, or derived), or -1 when its recipe nests too deeply or
// the size leaves 64 bits.
int64_t external32Size(const TypeLayout& type, int handle, int64_t count);

// Converts `count` packed instances of `type` to external32
// (`toExternal`) or back; `in` and `out` may be the same buffer when the
// type's external32 size is its size.
void convertExternal32(const TypeLayout& type, int handle, int64_t count, const uint8_t* in,
                       uint8_t* out, bool toExternal);

}  // namespace synergy::mpi
