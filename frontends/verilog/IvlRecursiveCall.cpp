//===- IvlRecursiveCall.cpp - Recursive calls as statements ---------------===//
//
// Part of the Icarus target (see IvlReader.h). Hardware has no call stack,
// so a call of a recursive automatic function whose arguments are not
// constants cannot stay a Verilog function call. It is read instead as
// statements hoisted before the statement that makes it:
//   - the arguments are computed into temporaries, in the caller's
//     activation;
//   - the outermost call clears the function's variables, sets its ports
//     and runs a RecursiveBody: the function's body read as a statement
//     tree, in which every call of the function itself is a RecursiveCall
//     (clear, set the ports, run the body again), and which ends with the
//     result in the function's return variable;
//   - the result is copied into a temporary that the expression reads.
// A `?:` whose arms make such a call becomes an `if` around the arms'
// hoisted statements, so that only the arm vvp evaluates recurses.
// A recursive automatic task is read the same way: its outermost call's
// inlined body is a RecursiveBody, and Icarus's block around each inner call
// (allocate, set the inputs, call, copy the outputs, free) a RecursiveCall,
// whose inputs are computed into temporaries first, as vvp reads them in
// the caller's activation, and whose outputs are copied before the frame
// is popped.
// lowerRecursiveCalls then gives each call a frame on a stack of bounded
// depth; the function's variables and the temporaries made inside the body
// are marked `frameVar`, which is what a frame saves.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <optional>

#include "frontends/verilog/IvlReader.h"

namespace synergy::verilog {

using namespace hwlower;

static StmtPtr statement(StmtKind kind, const SourceLoc& loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

static bool isRealValued(ivl_expr_t e) { return ivl_expr_value(e) == IVL_VT_REAL; }

static SourceLoc exprLoc(ivl_expr_t e) {
  SourceLoc loc;
  if (const char* f = ivl_expr_file(e)) loc.file = f;
  loc.line = ivl_expr_lineno(e);
  return loc;
}

int IvlReader::recursionTemporary(const std::string& stem, unsigned width, bool isSigned, bool isReal) {
  Var t;
  t.name = t.ident = "__" + stem + "_" + std::to_string(uniqueCounter_++);
  t.width = width;
  t.isSigned = isSigned;
  t.isReal = isReal;
  t.kind = VarKind::Internal;
  t.frameVar = !routinesInlined_.empty();
  return out_.addVar(std::move(t));
}

StmtPtr IvlReader::assignWhole(int var, const std::string& text, const SourceLoc& loc) {
  auto a = statement(StmtKind::Assign, loc);
  LValue lv;
  lv.var = var;
  lv.width = out_.vars[var].width;
  a->lhs.push_back(lv);
  a->rhs.text = text;
  a->rhs.width = lv.width;
  return a;
}

bool IvlReader::containsRecursiveCall(ivl_expr_t e) {
  if (!e) return false;
  switch (ivl_expr_type(e)) {
    case IVL_EX_UFUNC: {
      ivl_scope_t def = ivl_expr_def(e);
      if (std::find(functionsBeingRead_.begin(), functionsBeingRead_.end(), def) == functionsBeingRead_.end())
        readFunction(def);
      if (recursiveFunctions_.count(def)) return true;
      for (unsigned i = 0; i < ivl_expr_parms(e); ++i)
        if (containsRecursiveCall(ivl_expr_parm(e, i))) return true;
      return false;
    }
    case IVL_EX_CONCAT:
    case IVL_EX_SFUNC:
      for (unsigned i = 0; i < ivl_expr_parms(e); ++i)
        if (containsRecursiveCall(ivl_expr_parm(e, i))) return true;
      return false;
    case IVL_EX_TERNARY:
      return containsRecursiveCall(ivl_expr_oper1(e)) || containsRecursiveCall(ivl_expr_oper2(e)) ||
             containsRecursiveCall(ivl_expr_oper3(e));
    case IVL_EX_BINARY:
      return containsRecursiveCall(ivl_expr_oper1(e)) || containsRecursiveCall(ivl_expr_oper2(e));
    case IVL_EX_SELECT:
      return containsRecursiveCall(ivl_expr_oper1(e)) || containsRecursiveCall(ivl_expr_oper2(e));
    case IVL_EX_UNARY:
    case IVL_EX_SIGNAL:
      return containsRecursiveCall(ivl_expr_oper1(e));
    default:
      return false;
  }
}

std::string IvlReader::conditionalAroundRecursiveCall(ivl_expr_t e) {
  SourceLoc loc = exprLoc(e);
  // A real ?: chooses between the 64 bits of two reals.
  bool real = isRealValued(e);
  unsigned w = real ? 64 : ivl_expr_width(e);
  bool sgn = !real && ivl_expr_signed(e);
  ivl_expr_t c = ivl_expr_oper1(e);
  auto test = statement(StmtKind::If, loc);
  test->cond.text = exprText(c);
  test->cond.width = ivl_expr_width(c);
  int value = recursionTemporary("choice", w, sgn, real);
  std::vector<StmtPtr> before = std::move(hoisted_);
  auto arm = [&](ivl_expr_t op) {
    hoisted_.clear();
    std::string text = real ? (isRealValued(op) ? exprText(op) : "$realtobits(" + realText(op) + ")")
                            : resized(exprText(op), ivl_expr_width(op), w, ivl_expr_signed(op));
    auto block = statement(StmtKind::Block, loc);
    for (StmtPtr& h : hoisted_) block->body.push_back(std::move(h));
    block->body.push_back(assignWhole(value, text, loc));
    return block;
  };
  test->thenStmt = arm(ivl_expr_oper2(e));
  test->elseStmt = arm(ivl_expr_oper3(e));
  hoisted_ = std::move(before);
  hoisted_.push_back(std::move(test));
  const std::string& ident = out_.vars[value].ident;
  return sgn ? "$signed(" + ident + ")" : ident;
}

// A recursive function's variables live outside any emitted function: they
// are registers of the engine, saved in each frame.
void IvlReader::makeFrameVariables(ivl_scope_t scope) {
  for (unsigned i = 0; i < ivl_scope_sigs(scope); ++i) {
    Var& v = out_.vars[varOf(ivl_scope_sig(scope, i))];
    v.inFunction = false;
    v.frameVar = true;
  }
  for (size_t i = 0; i < ivl_scope_childs(scope); ++i) makeFrameVariables(ivl_scope_child(scope, i));
}

std::string IvlReader::recursiveCallText(ivl_expr_t e) {
  ivl_scope_t def = ivl_expr_def(e);
  SourceLoc loc = exprLoc(e);
  auto enter = statement(StmtKind::Block, loc);
  enter->body.push_back(zeroAutomaticVariables(def, loc));
  for (unsigned i = 0; i < ivl_expr_parms(e); ++i) {
    int port = varOf(ivl_scope_port(def, i + 1));
    // Copies: reading the argument may add variables.
    const unsigned width = out_.vars[port].width;
    const bool isSigned = out_.vars[port].isSigned, isReal = out_.vars[port].isReal;
    ivl_expr_t arg = ivl_expr_parm(e, i);
    std::string text = isReal ? (isRealValued(arg) ? exprText(arg) : "$realtobits(" + realText(arg) + ")")
                              : resized(exprText(arg), ivl_expr_width(arg), width, ivl_expr_signed(arg));
    int temp = recursionTemporary("argument", width, isSigned, isReal);
    hoisted_.push_back(assignWhole(temp, text, loc));
    enter->body.push_back(assignWhole(port, out_.vars[temp].ident, loc));
  }
  int ret = varOf(ivl_scope_port(def, 0));
  int result = recursionTemporary("recursive_result", out_.vars[ret].width, out_.vars[ret].isSigned,
                                  out_.vars[ret].isReal);
  auto active = std::find_if(routinesInlined_.begin(), routinesInlined_.end(),
                             [&](const InlinedRoutine& r) { return r.scope == def; });
  if (active != routinesInlined_.end()) {
    auto call = statement(StmtKind::RecursiveCall, loc);
    call->routine = active->id;
    call->loopBody = std::move(enter);
    call->thenStmt = assignWhole(result, out_.vars[ret].ident, loc);
    hoisted_.push_back(std::move(call));
  } else {
    makeFrameVariables(def);
    RecursiveRoutine routine;
    routine.name = ivl_scope_basename(def);
    unsigned id = unsigned(out_.recursiveRoutines.size());
    out_.recursiveRoutines.push_back(std::move(routine));
    hoisted_.push_back(std::move(enter));
    std::vector<StmtPtr> before = std::move(hoisted_);
    hoisted_.clear();
    auto body = statement(StmtKind::RecursiveBody, loc);
    body->routine = id;
    ivl_scope_t savedScope = currentScope_;
    currentScope_ = def;
    routinesInlined_.push_back({def, id});
    size_t firstTemporary = out_.vars.size();
    body->body.push_back(readStmt(ivl_scope_def(def)));
    for (size_t v = firstTemporary; v < out_.vars.size(); ++v)
      if (out_.vars[v].kind == VarKind::Internal) out_.vars[v].frameVar = true;
    routinesInlined_.pop_back();
    currentScope_ = savedScope;
    hoisted_ = std::move(before);
    hoisted_.push_back(std::move(body));
    hoisted_.push_back(assignWhole(result, out_.vars[ret].ident, loc));
  }
  const Var& rv = out_.vars[result];
  return rv.isSigned ? "$signed(" + rv.ident + ")" : rv.ident;
}

// Whether `task` calls itself directly (a call through another task is
// refused when it is read: tasksBeingRead_).
static bool callsTask(ivl_statement_t st, ivl_scope_t task) {
  if (!st) return false;
  switch (ivl_statement_type(st)) {
    case IVL_ST_UTASK:
      return ivl_stmt_call(st) == task;
    case IVL_ST_BLOCK:
    case IVL_ST_FORK:
      for (unsigned i = 0; i < ivl_stmt_block_count(st); ++i)
        if (callsTask(ivl_stmt_block_stmt(st, i), task)) return true;
      return false;
    case IVL_ST_CONDIT:
      return callsTask(ivl_stmt_cond_true(st), task) || callsTask(ivl_stmt_cond_false(st), task);
    case IVL_ST_CASE:
    case IVL_ST_CASEX:
    case IVL_ST_CASEZ:
    case IVL_ST_CASER:
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i)
        if (callsTask(ivl_stmt_case_stmt(st, i), task)) return true;
      return false;
    case IVL_ST_WHILE:
    case IVL_ST_REPEAT:
    case IVL_ST_FOREVER:
    case IVL_ST_DO_WHILE:
    case IVL_ST_DELAY:
    case IVL_ST_WAIT:
      return callsTask(ivl_stmt_sub_stmt(st), task);
    default:
      return false;
  }
}

bool IvlReader::isRecursiveTask(ivl_scope_t task) { return callsTask(ivl_scope_def(task), task); }

StmtPtr IvlReader::readRecursiveTaskBody(ivl_scope_t task, const SourceLoc& loc) {
  makeFrameVariables(task);
  RecursiveRoutine routine;
  routine.name = ivl_scope_basename(task);
  unsigned id = unsigned(out_.recursiveRoutines.size());
  out_.recursiveRoutines.push_back(std::move(routine));
  auto body = statement(StmtKind::RecursiveBody, loc);
  body->routine = id;
  ivl_scope_t savedScope = currentScope_;
  currentScope_ = task;
  routinesInlined_.push_back({task, id});
  tasksBeingRead_.push_back(task);
  size_t firstTemporary = out_.vars.size();
  body->body.push_back(readStmt(ivl_scope_def(task)));
  for (size_t v = firstTemporary; v < out_.vars.size(); ++v)
    if (out_.vars[v].kind == VarKind::Internal) out_.vars[v].frameVar = true;
  tasksBeingRead_.pop_back();
  routinesInlined_.pop_back();
  currentScope_ = savedScope;
  if (anyStatement(*body, [](const Stmt& s) { return s.kind == StmtKind::EventWait || s.kind == StmtKind::Delay; }))
    diags_.unsupported("recursive task '" + std::string(ivl_scope_basename(task)) + "' that waits", loc);
  return body;
}

std::optional<unsigned> IvlReader::activeRecursiveTaskCall(ivl_statement_t block) {
  if (ivl_stmt_block_count(block) < 2) return std::nullopt;
  ivl_statement_t first = ivl_stmt_block_stmt(block, 0);
  if (ivl_statement_type(first) != IVL_ST_ALLOC) return std::nullopt;
  for (const InlinedRoutine& r : routinesInlined_)
    if (r.scope == ivl_stmt_call(first)) return r.id;
  return std::nullopt;
}

StmtPtr IvlReader::readRecursiveTaskCall(ivl_statement_t block, unsigned routine) {
  ivl_scope_t task = ivl_stmt_call(ivl_stmt_block_stmt(block, 0));
  SourceLoc loc = locOf(block);
  auto out = statement(StmtKind::Block, loc);
  auto call = statement(StmtKind::RecursiveCall, loc);
  call->routine = routine;
  call->loopBody = statement(StmtKind::Block, loc);
  call->loopBody->body.push_back(zeroAutomaticVariables(task, loc));
  call->thenStmt = statement(StmtKind::Block, loc);
  bool called = false;
  for (unsigned i = 1; i < ivl_stmt_block_count(block); ++i) {
    ivl_statement_t c = ivl_stmt_block_stmt(block, i);
    switch (ivl_statement_type(c)) {
      case IVL_ST_UTASK:
        called = true;
        call->loc = locOf(c);
        continue;
      case IVL_ST_FREE:
        continue;
      case IVL_ST_ASSIGN:
        break;
      default:
        diags_.unsupported("statement around a call of recursive task '" + std::string(ivl_scope_basename(task)) + "'",
                           locOf(c));
        continue;
    }
    if (called) {
      call->thenStmt->body.push_back(readStmt(c));
      continue;
    }
    // An input: computed in the caller's activation, set in the callee's.
    ivl_lval_t lv = ivl_stmt_lval(c, 0);
    ivl_signal_t port = ivl_lval_sig(lv);
    if (ivl_stmt_lvals(c) != 1 || !port || ivl_signal_scope(port) != task || ivl_lval_idx(lv) ||
        ivl_lval_part_off(lv)) {
      diags_.unsupported("argument of recursive task '" + std::string(ivl_scope_basename(task)) + "'", locOf(c));
      continue;
    }
    int pv = varOf(port);
    Expr value = readAssignedValue(c);
    std::string text = resized(value.text, value.width, out_.vars[pv].width, value.isSigned);
    int temp = recursionTemporary("argument", out_.vars[pv].width, out_.vars[pv].isSigned, out_.vars[pv].isReal);
    for (StmtPtr& h : hoisted_) out->body.push_back(std::move(h));
    hoisted_.clear();
    out->body.push_back(assignWhole(temp, text, locOf(c)));
    call->loopBody->body.push_back(assignWhole(pv, out_.vars[temp].ident, locOf(c)));
  }
  out->body.push_back(std::move(call));
  return out;
}

}  // namespace synergy::verilog
