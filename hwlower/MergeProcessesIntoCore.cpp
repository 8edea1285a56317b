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
// Runs after recognizeClockGenerator. Rejects what cannot live in a core
// that runs to completion within one tick: delays and event waits inside a
// body, always blocks without an event control, and loops whose condition
// is constantly true.
// Guarantees: Design::core has one conjunct per process, in source order;
// Design::processes is empty.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

static bool isConstantTrue(const Expr& e) {
  if (!e.isConstant) return false;
  return e.text.find('1', e.text.find('\'')) != std::string::npos;
}

static void rejectUntimable(const Stmt& st, Diagnostics& diags) {
  switch (st.kind) {
    case StmtKind::Delay:
      diags.unsupported("delay (#" + std::to_string(st.delay) + ") inside the clocked core", st.loc);
      return;
    case StmtKind::EventWait:
      diags.unsupported("event control (@) inside a procedural block", st.loc);
      return;
    case StmtKind::While:
      if (isConstantTrue(st.cond)) diags.unsupported("unbounded loop", st.loc);
      break;
    default:
      break;
  }
  for (const StmtPtr& c : st.body) rejectUntimable(*c, diags);
  if (st.thenStmt) rejectUntimable(*st.thenStmt, diags);
  if (st.elseStmt) rejectUntimable(*st.elseStmt, diags);
  for (const CaseItem& item : st.items) rejectUntimable(*item.body, diags);
  if (st.loopBody) rejectUntimable(*st.loopBody, diags);
}

static const char* edgePrefix(EdgeKind edge) {
  switch (edge) {
    case EdgeKind::Pos: return "__pos_";
    case EdgeKind::Neg: return "__neg_";
    case EdgeKind::Any: return "__any_";
  }
  return "__any_";
}

void mergeProcessesIntoCore(Design& design, Diagnostics& diags) {
  for (Process& p : design.processes) {
    if (p.kind == ProcessKind::Always && p.guard.empty()) {
      diags.unsupported("always block without an event control", p.loc);
      continue;
    }
    if (p.body) rejectUntimable(*p.body, diags);
    CoreConjunct conjunct;
    conjunct.isInitial = p.kind == ProcessKind::Initial;
    conjunct.guard = p.guard;
    if (conjunct.isInitial) {
      conjunct.trigger = "__init";
    } else {
      for (const EventTerm& term : p.guard) {
        if (!conjunct.trigger.empty()) conjunct.trigger += " || ";
        conjunct.trigger += edgePrefix(term.edge) + design.vars[term.var].ident;
      }
    }
    conjunct.body = std::move(p.body);
    design.core.push_back(std::move(conjunct));
  }
  design.processes.clear();
}

}  // namespace synergy::hwlower
