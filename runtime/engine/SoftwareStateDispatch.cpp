//===- SoftwareStateDispatch.cpp - jump to the state a tick is in ----------===//
//
// This file implements formStateDispatch. A run is at least kMinimumRun
// consecutive statements of a block, each `if (G == 0 && S == K) body` with
// no else, where G and S are the same two scalar unsigned variables of at
// most 64 and kMaxStateWidth bits read whole (so a comparison tests the
// stored word itself), every K fits S and is larger than the one before.
//
// Why the table is exact: the sequence tests each guard after the bodies
// before it ran, and nothing but a body changes G or S. So after the body
// of K (or at the start) the next body to run is the first later one whose
// K equals S's current value, if G is still 0: the table's entry for S,
// when it lies past the last body run. The engine loops on exactly that.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareStateDispatch.h"

namespace synergy::engine::software {

namespace {

// Shorter runs are cheap enough to test in turn.
constexpr size_t kMinimumRun = 4;
// The table has 2^width entries.
constexpr uint32_t kMaxStateWidth = 12;

struct StateTest {
  uint32_t guard = 0, state = 0;
  uint64_t value = 0;
};

// A read of a whole scalar variable whose value is its stored word.
bool readsStoredWord(const Program& program, const Expr& e, uint32_t maxWidth) {
  if (e.op != ExprOp::Variable || e.wide || e.isReal || (e.isSigned && e.width > e.selfWidth))
    return false;
  const Variable& variable = program.variables[e.target];
  return variable.depth == 0 && !variable.isReal && variable.width <= maxWidth;
}

// `variable == constant`, narrow; the variable and the constant.
bool isEquality(const Program& program, const Expr& e, uint32_t maxWidth, uint32_t& variable, uint64_t& value) {
  if (e.op != ExprOp::Equal || e.wide || e.operands.size() != 2 || !readsStoredWord(program, e.operands[0], maxWidth))
    return false;
  const Expr& constant = e.operands[1];
  if (constant.op != ExprOp::Constant || constant.wide || constant.isReal)
    return false;
  variable = e.operands[0].target;
  value = constant.value;
  return true;
}

bool isStateTest(const Program& program, const Stmt& st, StateTest& test) {
  if (st.op != StmtOp::If || st.children.size() != 2 || st.children[1].op != StmtOp::Empty)
    return false;
  const Expr& e = st.expr;
  if (e.op != ExprOp::LogicalAnd || e.wide || e.operands.size() != 2)
    return false;
  uint64_t zero = 1;
  if (!isEquality(program, e.operands[0], kMaxWordWidth, test.guard, zero) || zero != 0)
    return false;
  if (!isEquality(program, e.operands[1], kMaxStateWidth, test.state, test.value) || test.state == test.guard)
    return false;
  return test.value < (uint64_t(1) << program.variables[test.state].width);
}

// The end of the run that starts at `start` (== start: none there).
size_t runEnd(const Program& program, const std::vector<Stmt>& statements, size_t start) {
  StateTest first;
  if (!isStateTest(program, statements[start], first))
    return start;
  uint64_t last = first.value;
  size_t end = start + 1;
  for (StateTest test; end < statements.size() && isStateTest(program, statements[end], test); ++end) {
    if (test.guard != first.guard || test.state != first.state || test.value <= last)
      break;
    last = test.value;
  }
  return end;
}

Stmt dispatchOf(const Program& program, std::vector<Stmt>& statements, size_t start, size_t end) {
  Stmt dispatch;
  dispatch.op = StmtOp::Dispatch;
  for (size_t k = start; k < end; ++k) {
    StateTest test;
    isStateTest(program, statements[k], test);
    if (k == start) {
      dispatch.dispatchGuard = test.guard;
      dispatch.dispatchState = test.state;
      dispatch.dispatchTable.assign(size_t(1) << program.variables[test.state].width, 0);
    }
    dispatch.dispatchTable[test.value] = static_cast<uint32_t>(dispatch.children.size() + 1);
    dispatch.children.push_back(std::move(statements[k].children[0]));
  }
  return dispatch;
}

void formIn(const Program& program, Stmt& st) {
  for (Stmt& child : st.children) formIn(program, child);
  if (st.op != StmtOp::Block)
    return;
  std::vector<Stmt> rewritten;
  for (size_t k = 0; k < st.children.size();) {
    size_t end = runEnd(program, st.children, k);
    if (end - k >= kMinimumRun) {
      rewritten.push_back(dispatchOf(program, st.children, k, end));
      k = end;
    } else {
      rewritten.push_back(std::move(st.children[k++]));
    }
  }
  st.children = std::move(rewritten);
}

}  // namespace

void formStateDispatch(Program& program) {
  for (Stmt& st : program.clocked) formIn(program, st);
}

}  // namespace synergy::engine::software
