//===- ReduceOp.h - the predefined MPI reduction operations ----------------===//
//
// Applies MPI_MAX ... MPI_NO_OP element-wise on packed buffers of one basic
// element kind (see Datatype.h). The convention is MPI's user-function one:
// inout = in (op) inout, so the order of operands is the same for predefined
// and user-defined ops.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "mpi/Datatype.h"

namespace synergy::mpi {

enum class PredefinedOp : int {
  Max = 1, Min, Sum, Prod, Land, Band, Lor, Bor, Lxor, Bxor, Maxloc, Minloc, Replace, NoOp
};

// The MPI name of predefined op handle `op`.
const char* predefinedOpName(int op);
// Whether predefined `op` is defined on elements of `kind`.
bool opAppliesTo(PredefinedOp op, ElementKind kind);
// inout[i] = in[i] op inout[i] for `elements` packed elements.
void applyPredefinedOp(PredefinedOp op, ElementKind kind, const uint8_t* in, uint8_t* inout,
                       int64_t elements);
// out[i] = in[i] op other[i] for `elements` packed elements, in one pass:
// the result of copying `other` to `out`, then applyPredefinedOp(in, out).
// `out` overlaps neither operand.
void applyPredefinedOpInto(PredefinedOp op, ElementKind kind, const uint8_t* in,
                           const uint8_t* other, uint8_t* out, int64_t elements);

}  // namespace synergy::mpi
