//===- DatatypeAttributes.h - attributes when datatypes are copied or freed ===//
//
// What MPI_Type_dup and MPI_Type_free (DatatypeFunctions.cpp) must do about
// the attributes a program hung on a datatype (DatatypeAttributes.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mpi/RankState.h"

namespace synergy::mpi {

// Gives datatype handle `to`, a new duplicate of `from`, the attributes the
// copy callbacks of `from`'s keyvals hand back; returns 0 or the error a
// callback returned.
int copyTypeAttributes(HostCall& call, int from, int to);

// Runs the delete callback of every attribute of datatype handle `type`
// and forgets them; returns 0 or the first error a callback returned.
int deleteTypeAttributes(HostCall& call, int type);

}  // namespace synergy::mpi
