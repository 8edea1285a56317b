//===- SoftwareExprCode.h - expressions and statements to code ------------===//
//
// Walking an expression tree costs a call, a switch and a variable lookup
// per node, more than most nodes compute. lowerExpressionsToCode compiles
// every narrow integer expression a statement evaluates into straight-line
// code (SoftwareProgram.h's Instr) with slots, masks and widths resolved,
// and sets Expr::code; the engine runs that code instead of the tree.
// It also resolves the slot of each assignment to a whole scalar. A call
// of a function on narrow integers is inlined: its arguments are bound and
// its body runs in the caller's code (a call through the tree costs more
// than a small function computes). A node the code does not cover (a wide
// or real operand, a larger call, a division, a power) stays a tree and is
// evaluated as one, from inside the code.
//
// Walking statement trees costs as much again, and each Stmt, which embeds
// an Expr and several vectors, is large enough to miss the cache. So every
// top-level statement (a clocked or combinational block, an initializer, a
// function body) also becomes one run of code, with its expressions inline:
// stores with their masks resolved, if/case/loops and the state dispatch as
// jumps, and Stmt::code set. A statement inside it that the code does not
// cover (a wide assignment or subject, a concatenation of targets other
// than whole narrow variables fed part for part, a case with a label that
// is not a constant) runs as a tree (Exec);
// SYNERGY_SOFTWARE_CODE_STATS=1 counts those by kind.
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
