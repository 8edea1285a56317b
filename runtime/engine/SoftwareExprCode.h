//===- SoftwareExprCode.h - narrow expressions to stack-machine code -------===//
//
// Walking an expression tree costs a call, a switch and a variable lookup
// per node, more than most nodes compute. lowerExpressionsToCode compiles
// every narrow integer expression a statement evaluates into straight-line
// code (SoftwareProgram.h's Instr) with slots, masks and widths resolved,
// and sets Expr::code; the engine runs that code instead of the tree.
// It also resolves the slot of each assignment to a whole scalar. A node
// the code does not cover (a wide or real operand, a call, a division, a
// power) stays a tree and is evaluated as one, from inside the code.
//
// Shared by SoftwareCompiler.cpp, which runs it last (the code points into
// the finished trees), and SoftwareEngine.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "engine/SoftwareProgram.h"

namespace synergy::engine::software {

// The machine's stack holds this many words; deeper code is not kept.
inline constexpr uint32_t kMaxCodeStack = 64;

void lowerExpressionsToCode(Program& program);

}  // namespace synergy::engine::software
