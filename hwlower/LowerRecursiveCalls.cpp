//===- LowerRecursiveCalls.cpp - Frames for recursion of run-time depth ---===//
//
// The frontend reads a call of a recursive routine that it cannot evaluate
// at compile time as a RecursiveBody (the one copy of the body, run by the
// outermost call) containing RecursiveCalls (the body's calls of itself).
// Hardware has no call stack, so this pass gives each routine one: a stack
// pointer `__sp_K`, a memory of return sites and one memory per variable of
// the activation (the `frameVar` variables the body writes), each
// kMaxRecursionDepth frames deep. Then
//   - a RecursiveBody becomes `__sp_K = 0`, RecursiveEntry, the body,
//     RecursiveReturn;
//   - a RecursiveCall becomes: stop the run when the stack is full (a trap
//     the runtime reports as an error naming the routine, the call's line
//     and the limit), push the activation and the call's return site, set
//     the callee's variables, RecursiveJump, read its results, pop the
//     activation (except the variables that just received results).
// lowerCoreToStateMachine turns the markers into control flow: the entry
// is a state, a jump goes to it, and the return goes back to the state
// after the jump its frame names, or falls through when no frame is left.
//
// Runs first, on the processes as the frontend built them: everything it
// makes is ordinary statements and leaf markers, which every later pass
// treats as statements it does not look into.
//
//===----------------------------------------------------------------------===//
#include <set>

#include "hwlower/Passes.h"

namespace synergy::hwlower {

namespace {

constexpr unsigned kStackPointerWidth = 32;

StmtPtr statement(StmtKind kind, const SourceLoc& loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = kind;
  s->loc = loc;
  return s;
}

std::string number(unsigned value) { return std::to_string(kStackPointerWidth) + "'d" + std::to_string(value); }

// The variables `st` and the statements nested in it write whole or in part.
void collectWrites(const Stmt& st, std::set<int>& out) {
  anyStatement(st, [&](const Stmt& s) {
    for (const LValue& lv : s.lhs) out.insert(lv.var);
    if (s.kind == StmtKind::Task) {
      if (s.call.resultVar >= 0) out.insert(s.call.resultVar);
      for (const TaskArgIr& a : s.call.args)
        if (a.writable) out.insert(a.target.var);
    }
    return false;
  });
}

class RecursionLowering {
 public:
  RecursionLowering(Design& design, Diagnostics& diags) : design_(design), diags_(diags) {}

  void run() {
    for (Process& p : design_.processes) rewrite(p.body);
  }

 private:
  struct Stack {
    int pointer = -1, returnSites = -1;
    std::vector<std::pair<int, int>> frame;  // (variable, its stack memory)
    unsigned sites = 0;
  };

  int addInternal(const std::string& ident, unsigned width, uint64_t depth) {
    Var v;
    v.name = v.ident = ident;
    v.width = width;
    v.depth = depth;
    v.kind = VarKind::Internal;
    return design_.addVar(std::move(v));
  }

  void rewrite(StmtPtr& st) {
    if (!st) return;
    if (st->kind == StmtKind::RecursiveBody) {
      lowerBody(st);
      return;
    }
    if (st->kind == StmtKind::RecursiveCall) {
      lowerCall(st);
      return;
    }
    for (StmtPtr& c : st->body) rewrite(c);
    for (StmtPtr* c : {&st->thenStmt, &st->elseStmt, &st->loopBody, &st->forInit, &st->forStep}) rewrite(*c);
    for (CaseItem& item : st->items) rewrite(item.body);
  }

  void lowerBody(StmtPtr& st) {
    unsigned k = st->routine;
    RecursiveRoutine& routine = design_.recursiveRoutines[k];
    std::string prefix = "__recursion_" + std::to_string(k) + "_";
    Stack& stack = stacks_[k];
    stack.pointer = addInternal(prefix + "sp", kStackPointerWidth, 0);
    stack.returnSites = addInternal(prefix + "return_sites", kStackPointerWidth, kMaxRecursionDepth);
    const std::string sp = design_.vars[stack.pointer].ident;
    routine.stackIsEmpty = "{" + sp + " == " + number(0) + "}";
    routine.topReturnSite = design_.vars[stack.returnSites].ident + "[{" + sp + " - " + number(1) + "}]";
    std::set<int> written;
    for (const StmtPtr& c : st->body) collectWrites(*c, written);
    for (int v : written) {
      const Var& var = design_.vars[v];
      if (!var.frameVar) continue;
      if (var.depth > 0) {
        diags_.unsupported("array '" + var.name + "' in recursive routine '" + routine.name + "'", var.loc);
        return;
      }
      int memory = addInternal(prefix + "frame_" + var.ident, var.width, kMaxRecursionDepth);
      stack.frame.push_back({v, memory});
    }

    auto block = statement(StmtKind::Block, st->loc);
    auto reset = assign(whole(stack.pointer), number(0), st->loc);
    reset->rhs.isConstant = true;
    block->body.push_back(std::move(reset));
    auto entry = statement(StmtKind::RecursiveEntry, st->loc);
    entry->routine = k;
    block->body.push_back(std::move(entry));
    for (StmtPtr& c : st->body) {
      rewrite(c);
      block->body.push_back(std::move(c));
    }
    auto ret = statement(StmtKind::RecursiveReturn, st->loc);
    ret->routine = k;
    block->body.push_back(std::move(ret));
    st = std::move(block);
  }

  StmtPtr assign(const LValue& target, const std::string& text, const SourceLoc& loc) {
    auto a = statement(StmtKind::Assign, loc);
    a->lhs.push_back(target);
    a->rhs.text = text;
    a->rhs.width = target.width;
    return a;
  }

  LValue element(int memory, const std::string& index) {
    LValue lv;
    lv.var = memory;
    lv.width = design_.vars[memory].width;
    lv.hasIndex = true;
    lv.index.text = index;
    lv.index.width = kStackPointerWidth;
    return lv;
  }

  LValue whole(int var) {
    LValue lv;
    lv.var = var;
    lv.width = design_.vars[var].width;
    return lv;
  }

  void lowerCall(StmtPtr& st) {
    unsigned k = st->routine;
    const RecursiveRoutine& routine = design_.recursiveRoutines[k];
    const Stack& stack = stacks_[k];
    if (stack.pointer < 0) return;  // its body was refused
    const SourceLoc& loc = st->loc;
    const std::string sp = design_.vars[stack.pointer].ident;
    unsigned site = ++stacks_[k].sites;
    auto block = statement(StmtKind::Block, loc);

    // A full stack stops the run before anything of the callee happens.
    auto full = statement(StmtKind::If, loc);
    full->cond.text = "{" + sp + " == " + number(kMaxRecursionDepth) + "}";
    full->cond.width = 1;
    auto stop = statement(StmtKind::Task, loc);
    stop->call.name = kRecursionLimitTask;
    TaskArgIr message;
    message.kind = TaskArgIrKind::String;
    message.text = "recursion of '" + routine.name + "' deeper than " + std::to_string(kMaxRecursionDepth) +
                   " nested calls (the engine's limit)";
    stop->call.args.push_back(std::move(message));
    full->thenStmt = std::move(stop);
    full->elseStmt = statement(StmtKind::Nop, loc);
    block->body.push_back(std::move(full));

    for (const auto& [var, memory] : stack.frame)
      block->body.push_back(assign(element(memory, sp), design_.vars[var].ident, loc));
    block->body.push_back(assign(element(stack.returnSites, sp), number(site), loc));
    block->body.push_back(assign(whole(stack.pointer), "{" + sp + " + " + number(1) + "}", loc));
    rewrite(st->loopBody);
    if (st->loopBody) block->body.push_back(std::move(st->loopBody));
    auto jump = statement(StmtKind::RecursiveJump, loc);
    jump->routine = k;
    jump->returnSite = number(site);
    block->body.push_back(std::move(jump));
    std::set<int> results;
    if (st->thenStmt) {
      collectWrites(*st->thenStmt, results);
      rewrite(st->thenStmt);
      block->body.push_back(std::move(st->thenStmt));
    }
    block->body.push_back(assign(whole(stack.pointer), "{" + sp + " - " + number(1) + "}", loc));
    for (const auto& [var, memory] : stack.frame)
      if (!results.count(var))
        block->body.push_back(assign(whole(var), design_.vars[memory].ident + "[" + sp + "]", loc));
    st = std::move(block);
  }

  Design& design_;
  Diagnostics& diags_;
  std::map<unsigned, Stack> stacks_;
};

}  // namespace

void lowerRecursiveCalls(Design& design, Diagnostics& diags) {
  if (design.recursiveRoutines.empty()) return;
  RecursionLowering(design, diags).run();
}

}  // namespace synergy::hwlower
