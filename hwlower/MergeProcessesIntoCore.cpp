//===- MergeProcessesIntoCore.cpp - One core for all procedural blocks ----===//
//
// Paper Fig. 3. Every process becomes one conjunct of a single core. The
// core is guarded by the union of all their events (Verilog guards are
// disjunctive, so the union is sound), and runs the conjuncts one after the
// other (a valid schedule of simultaneously active processes). Each
// conjunct keeps its own guard, name-mangled: `@(posedge clock)` becomes
// `__pos_clock`, `@(negedge x)` `__neg_x`, a level event `__any_x`, and an
// initial block `__init` (true only during the first pass of tick 0).
//
// A process may also wait inside its body (`@(posedge clock);` between
// statements). Each such event control becomes a numbered resume point: the
// process suspends there until the end of the pass and its conjunct then
// fires on that point's events instead of its guard (see CoreConjunct). An
// always block that starts with an event control takes it as its guard; one
// that waits only later in its body, on every iteration, becomes an initial
// block around `forever`.
//
// Runs after recognizeClockGenerator. Rejects what cannot live in a core
// that runs to completion within one tick: delays inside a body, always
// blocks that never wait, and loops whose condition is constantly true and
// whose body does not wait on every iteration; and a `disable` that names
// anything but a block around it (a forward jump to that block's end).
// Guarantees: Design::core has one conjunct per process, in source order;
// Design::processes is empty; every EventWait has a waitId and no
// sub-statement (it was moved after the wait).
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <algorithm>

namespace synergy::hwlower {

static bool isConstantTrue(const Expr& e) {
  if (!e.isConstant) return false;
  return e.text.find('1', e.text.find('\'')) != std::string::npos;
}

// Whether every pass through `body` reaches an event control, so a loop
// around it suspends once per iteration.
static bool waitsUnconditionally(const Stmt& body) {
  if (body.kind == StmtKind::EventWait) return true;
  if (body.kind != StmtKind::Block) return false;
  for (const StmtPtr& c : body.body)
    if (c->kind == StmtKind::EventWait) return true;
  return false;
}

// `enclosing` holds the labels of the named blocks around `st`.
static void rejectUntimable(const Stmt& st, Diagnostics& diags, std::vector<std::string>& enclosing) {
  switch (st.kind) {
    case StmtKind::Disable:
      if (std::find(enclosing.begin(), enclosing.end(), st.label) == enclosing.end())
        diags.unsupported("disable of a block that does not enclose it", st.loc);
      return;
    case StmtKind::Delay:
      diags.unsupported("delay (#" + std::to_string(st.delay) + ") inside the clocked core", st.loc);
      return;
    case StmtKind::While:
      if (isConstantTrue(st.cond) && !waitsUnconditionally(*st.loopBody)) {
        diags.unsupported(st.isForever ? "unbounded loop (forever)" : "unbounded loop", st.loc);
        return;
      }
      break;
    default:
      break;
  }
  bool named = st.kind == StmtKind::Block && !st.label.empty();
  if (named) enclosing.push_back(st.label);
  for (const StmtPtr& c : st.body) rejectUntimable(*c, diags, enclosing);
  if (st.thenStmt) rejectUntimable(*st.thenStmt, diags, enclosing);
  if (st.elseStmt) rejectUntimable(*st.elseStmt, diags, enclosing);
  for (const CaseItem& item : st.items) rejectUntimable(*item.body, diags, enclosing);
  if (st.loopBody) rejectUntimable(*st.loopBody, diags, enclosing);
  if (named) enclosing.pop_back();
}

static const char* edgePrefix(EdgeKind edge) {
  switch (edge) {
    case EdgeKind::Pos: return "__pos_";
    case EdgeKind::Neg: return "__neg_";
    case EdgeKind::Any: return "__any_";
  }
  return "__any_";
}

static std::string triggerOf(const Design& design, const std::vector<EventTerm>& terms) {
  std::string trigger;
  for (const EventTerm& term : terms) {
    if (!trigger.empty()) trigger += " || ";
    trigger += edgePrefix(term.edge) + design.vars[term.var].ident;
  }
  return trigger;
}

// An always block without a leading event control: its first event control
// becomes the guard, or, when it waits later in every iteration, it is an
// initial block around `forever`. False when it never waits.
static bool findAlwaysGuard(Process& p) {
  Stmt* body = p.body.get();
  if (!body || !containsEventWait(*body)) return false;
  StmtPtr* first = nullptr;
  if (body->kind == StmtKind::EventWait)
    first = &p.body;
  else if (body->kind == StmtKind::Block && body->body.front()->kind == StmtKind::EventWait)
    first = &body->body.front();
  if (first) {
    p.guard = std::move((*first)->events);
    StmtPtr sub = std::move((*first)->loopBody);
    *first = sub ? std::move(sub) : std::make_unique<Stmt>();
    return true;
  }
  if (!waitsUnconditionally(*body)) return false;
  auto loop = std::make_unique<Stmt>();
  loop->kind = StmtKind::While;
  loop->loc = p.body->loc;
  loop->isForever = true;
  loop->cond.text = "1'b1";
  loop->cond.width = 1;
  loop->cond.isConstant = true;
  loop->loopBody = std::move(p.body);
  p.body = std::move(loop);
  p.kind = ProcessKind::Initial;
  return true;
}

// Numbers the event controls of a body in pre-order and moves each one's
// sub-statement after it.
static void numberWaits(Design& design, StmtPtr& st, CoreConjunct& conjunct) {
  if (!st) return;
  if (st->kind == StmtKind::EventWait) {
    st->waitId = unsigned(conjunct.waits.size() + 1);
    conjunct.waits.push_back(st->events);
    conjunct.waitTriggers.push_back(triggerOf(design, st->events));
    StmtPtr sub = std::move(st->loopBody);
    numberWaits(design, sub, conjunct);
    if (!sub || sub->kind == StmtKind::Nop) return;
    auto block = std::make_unique<Stmt>();
    block->kind = StmtKind::Block;
    block->loc = st->loc;
    block->body.push_back(std::move(st));
    block->body.push_back(std::move(sub));
    st = std::move(block);
    return;
  }
  for (StmtPtr& c : st->body) numberWaits(design, c, conjunct);
  numberWaits(design, st->thenStmt, conjunct);
  numberWaits(design, st->elseStmt, conjunct);
  numberWaits(design, st->loopBody, conjunct);
  for (CaseItem& item : st->items) numberWaits(design, item.body, conjunct);
}

void mergeProcessesIntoCore(Design& design, Diagnostics& diags) {
  for (Process& p : design.processes) {
    if (p.kind == ProcessKind::Always && p.guard.empty() && !findAlwaysGuard(p)) {
      diags.unsupported("always block without an event control", p.loc);
      continue;
    }
    std::vector<std::string> enclosing;
    if (p.body) rejectUntimable(*p.body, diags, enclosing);
    CoreConjunct conjunct;
    conjunct.isInitial = p.kind == ProcessKind::Initial;
    conjunct.guard = p.guard;
    conjunct.waitsBeforeInitializers = p.waitsBeforeInitializers;
    conjunct.trigger = conjunct.isInitial ? "__init" : triggerOf(design, p.guard);
    numberWaits(design, p.body, conjunct);
    if (!conjunct.waits.empty()) {
      unsigned width = 1;
      while ((size_t(1) << width) <= conjunct.waits.size()) ++width;
      Var resume;
      resume.ident = resume.name = "__resume_" + std::to_string(design.core.size());
      resume.kind = VarKind::Internal;
      resume.width = width;
      conjunct.resumeVar = design.addVar(std::move(resume));
    }
    conjunct.body = std::move(p.body);
    design.core.push_back(std::move(conjunct));
  }
  design.processes.clear();
}

}  // namespace synergy::hwlower
