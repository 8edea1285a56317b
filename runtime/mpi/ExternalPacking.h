//===- ExternalPacking.h - the external32 form of typed data ---------------===//
//
// The "external32" representation (MPI-3.1 §13.5.2) of data in the
// runtime's packed form (Datatype.h): MPI_Pack_external and its kin use it,
// and so do file views in that representation (FileViews.cpp), which also
// lay their datatypes out in the file's terms (External32Layouts.cpp).
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

// The packed bytes that the first `externalBytes` external32 bytes of
// `count` instances of `type` hold, whole elements only: what a read that
// stopped early moved, in memory's terms.
int64_t packedBytesOfExternal32Prefix(const TypeLayout& type, int handle, int64_t count,
                                      int64_t externalBytes);

// `type` (predefined with handle `handle`, or derived) as it lies in a
// file view with the "external32" representation: `type` itself when it
// holds no MPI_AINT, else rebuilt with 8-byte MPI_AINTs and element-count
// displacements in the file's extents. Null when the recipe cannot be
// followed (nested too deeply) or the layout leaves its bounds.
Layout external32FileLayout(const Layout& type, int handle);

}  // namespace synergy::mpi
