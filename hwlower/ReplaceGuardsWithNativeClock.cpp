//===- ReplaceGuardsWithNativeClock.cpp - Guards become edge detectors ----===//
//
// Paper Fig. 4. The runtime presents inputs (the clock included) through
// set requests separated by any number of native cycles, so the core can no
// longer be triggered by them directly. For every variable in a guard this
// pass declares `__prev_x`, its value when the last pass of the core began,
// and derives the mangled guards from it:
//   __pos_x = x & ~__prev_x      __neg_x = ~x & __prev_x      __any_x = x != __prev_x
// and `__init` from `__init_pending`, a flag set at power-on and cleared by
// the first pass. A pass begins (on `__clk`, see EmitVerilog) whenever some
// guard variable changed; it latches each conjunct's guard into `__fire_k`
// and copies every guard variable into its `__prev_x`, so at quiescence
// `__prev_x == x` for all of them and a saved state needs nothing else.
//
// A process suspended at a resume point fires on that point's events
// instead of its guard (__fire_k selects by __resume_k). Like a guard, a
// resume point sees the edges since the pass began: a wait on a variable
// that changed earlier in the same pass (not the clock, which changes only
// between ticks) fires in the next pass, where vvp would wait for the next
// change.
//
// A net that the clock reaches through ports or continuous assigns is x
// under vvp until time 0's events propagate the clock's power-on value to
// it, after the processes have started waiting: vvp therefore sees an x->0
// negedge (or x->1 posedge) on it at time 0, while the clock register
// itself, initialised before any process waits, shows no edge. The first
// pass reproduces that: `__x_edges_pending` (set at power-on, cleared by the
// first pass) makes every edge and change of such a net fire once.
//
// Runs after mergeProcessesIntoCore.
// Guarantees: each conjunct body is `if (__fire_k) <original body>`;
// Design::passStart, Design::clockHistoryUpdate and Design::guardChanged
// are set; `__prev_*` and `__init_pending` are Internal variables (so
// $save/$restart keep them).
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>
#include <set>

namespace synergy::hwlower {

// A process that waits inside its body fires on the events of the resume
// point it is suspended at.
static std::string fireCondition(const Design& design, const CoreConjunct& c) {
  if (c.resumeVar < 0) return c.trigger;
  const Var& resume = design.vars[c.resumeVar];
  std::string width = std::to_string(resume.width) + "'d";
  std::string cond = "(" + c.trigger + ")";
  for (size_t p = c.waits.size(); p > 0; --p)
    cond = "(" + resume.ident + " == " + width + std::to_string(p) + ") ? (" + c.waitTriggers[p - 1] +
           ") : " + cond;
  return cond;
}

void replaceGuardsWithNativeClock(Design& design) {
  // Guard variables in first-use order, with whether a level event needs
  // the whole previous value (edges need only bit 0).
  std::vector<int> order;
  std::map<int, bool> needsWholeValue;
  std::set<std::pair<EdgeKind, int>> terms;
  bool anyInitial = false;
  auto addTerms = [&](const std::vector<EventTerm>& guard) {
    for (const EventTerm& t : guard) {
      if (!needsWholeValue.count(t.var)) order.push_back(t.var);
      needsWholeValue[t.var] |= t.edge == EdgeKind::Any;
      terms.insert({t.edge, t.var});
    }
  };
  for (const CoreConjunct& c : design.core) {
    anyInitial |= c.isInitial;
    addTerms(c.guard);
    for (const std::vector<EventTerm>& wait : c.waits) addTerms(wait);
  }

  std::set<int> fromPowerOnX;
  if (design.clockVar >= 0) {
    std::set<int> clockNets = derivedFrom(design, {design.clockVar});
    for (int v : order)
      if (v != design.clockVar && clockNets.count(v) && design.vars[v].kind == VarKind::Wire)
        fromPowerOnX.insert(v);
  }
  const std::string xPending = "__x_edges_pending";

  std::map<int, std::string> prevOf;
  std::vector<std::string> changed;
  for (int v : order) {
    const Var& var = design.vars[v];
    Var prev;
    prev.ident = prev.name = "__prev_" + var.ident;
    prev.width = needsWholeValue[v] ? var.width : 1;
    prev.kind = VarKind::Internal;
    prev.initValue = var.initValue;
    prevOf[v] = prev.ident;
    std::string cur = prev.width == var.width ? var.ident : var.ident + "[0]";
    changed.push_back("(" + cur + " != " + prev.ident + ")");
    design.addVar(std::move(prev));
  }
  if (anyInitial) {
    Var init;
    init.ident = init.name = "__init_pending";
    init.kind = VarKind::Internal;
    init.initValue = 1;
    design.addVar(std::move(init));
    changed.push_back("__init_pending");
  }
  if (!fromPowerOnX.empty()) {
    Var pending;
    pending.ident = pending.name = xPending;
    pending.kind = VarKind::Internal;
    pending.initValue = 1;
    design.addVar(std::move(pending));
    changed.push_back(xPending);
  }
  design.guardChanged.clear();
  for (size_t i = 0; i < changed.size(); ++i)
    design.guardChanged += (i ? " || " : "") + changed[i];
  if (design.guardChanged.empty()) design.guardChanged = "1'b0";

  // Mangled guards, evaluated with blocking semantics at the start of a pass.
  for (const auto& [edge, v] : terms) {
    const Var& var = design.vars[v];
    std::string bit = var.width == 1 ? var.ident : var.ident + "[0]";
    std::string prev = prevOf[v];
    std::string prevBit = design.vars[v].width == 1 || !needsWholeValue[v] ? prev : prev + "[0]";
    std::string name, expr;
    switch (edge) {
      case EdgeKind::Pos:
        name = "__pos_" + var.ident;
        expr = bit + " & ~" + prevBit;
        break;
      case EdgeKind::Neg:
        name = "__neg_" + var.ident;
        expr = "~" + bit + " & " + prevBit;
        break;
      case EdgeKind::Any:
        name = "__any_" + var.ident;
        expr = var.ident + " != " + prev;
        break;
    }
    if (fromPowerOnX.count(v)) {
      // Against x every value is an edge: x->1 rises, x->0 falls.
      std::string fromX = edge == EdgeKind::Pos ? bit : edge == EdgeKind::Neg ? "~" + bit : "1'b1";
      expr = "(" + xPending + " ? " + fromX + " : " + expr + ")";
    }
    design.extraDecls.push_back("reg " + name + ";");
    design.passStart.push_back(name + " = " + expr + ";");
  }
  if (anyInitial) {
    design.extraDecls.push_back("reg __init;");
    design.passStart.push_back("__init = __init_pending;");
  }
  for (size_t k = 0; k < design.core.size(); ++k) {
    CoreConjunct& c = design.core[k];
    std::string fire = "__fire_" + std::to_string(k);
    design.extraDecls.push_back("reg " + fire + " = 1'b0;");
    design.passStart.push_back(fire + " = " + fireCondition(design, c) + ";");
    auto guarded = std::make_unique<Stmt>();
    guarded->kind = StmtKind::If;
    guarded->loc = c.body ? c.body->loc : SourceLoc{};
    guarded->cond.text = fire;
    guarded->cond.width = 1;
    guarded->thenStmt = c.body ? std::move(c.body) : std::make_unique<Stmt>();
    guarded->elseStmt = std::make_unique<Stmt>();
    c.body = std::move(guarded);
  }
  for (int v : order) {
    const Var& var = design.vars[v];
    std::string cur = needsWholeValue[v] || var.width == 1 ? var.ident : var.ident + "[0]";
    design.passStart.push_back(prevOf[v] + " = " + cur + ";");
    if (v == design.clockVar) design.clockHistoryUpdate = design.passStart.back();
  }
  if (anyInitial) design.passStart.push_back("__init_pending = 1'b0;");
  if (!fromPowerOnX.empty()) design.passStart.push_back(xPending + " = 1'b0;");
}

}  // namespace synergy::hwlower
