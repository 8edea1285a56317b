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
// Likewise, vvp starts an always block that waits for value changes only
// (Process::waitsBeforeInitializers) before the declaration initializers and
// initial blocks run, so it fires once at time 0 when one of them gives a
// variable of its guard (or a net computed from one) a value, even the
// value 0 that the two-state engine powers on with. While
// `__x_inits_pending` is set (the first pass, in which the initial blocks
// run, and the pass after it) such a block fires exactly once, in the second
// pass, so it reads the initial values and the changes from the power-on
// values do not fire it again. Any other always block starts after the
// declaration initializers, so in those two passes its guard ignores the
// variables whose initializer changes their power-on value; it still sees
// the changes of nets computed from them (as under vvp, which propagates
// them later) and those an initial block makes, which under vvp depend on
// the order of the blocks in the source.
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

// The mangled guard term that mergeProcessesIntoCore's triggers name.
static std::string detectorName(EdgeKind edge, const Var& var) {
  switch (edge) {
    case EdgeKind::Pos: return "__pos_" + var.ident;
    case EdgeKind::Neg: return "__neg_" + var.ident;
    case EdgeKind::Any: break;
  }
  return "__any_" + var.ident;
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

  std::set<int> initialized;
  for (size_t v = 0; v < design.vars.size(); ++v)
    if (design.vars[v].initializedAtTimeZero) initialized.insert(int(v));
  initialized = derivedFrom(design, initialized);
  std::set<int> declared;
  for (size_t v = 0; v < design.vars.size(); ++v) {
    const Var& var = design.vars[v];
    if (var.hasDeclarationInitializer && var.declaredValue != var.initValue) declared.insert(int(v));
  }
  // Conjuncts that fire once after the initializers, and the others whose
  // guard ignores the declared variables meanwhile (with what it keeps).
  std::set<size_t> seesInitializers;
  std::map<size_t, std::string> startsAfterInitializers;
  for (size_t k = 0; k < design.core.size(); ++k) {
    const CoreConjunct& c = design.core[k];
    if (c.isInitial) continue;
    if (c.waitsBeforeInitializers) {
      for (const EventTerm& t : c.guard)
        if (initialized.count(t.var)) seesInitializers.insert(k);
      continue;
    }
    bool ignores = false;
    std::string kept;
    for (const EventTerm& t : c.guard) {
      if (declared.count(t.var)) {
        ignores = true;
        continue;
      }
      kept += std::string(kept.empty() ? "" : " || ") + detectorName(t.edge, design.vars[t.var]);
    }
    if (ignores) startsAfterInitializers[k] = kept.empty() ? "1'b0" : kept;
  }
  const std::string initsPending = "__x_inits_pending";

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
  if (!seesInitializers.empty() || !startsAfterInitializers.empty()) {
    Var pending;
    pending.ident = pending.name = initsPending;
    pending.kind = VarKind::Internal;
    pending.initValue = 1;
    design.addVar(std::move(pending));
    changed.push_back(initsPending);
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
    std::string name = detectorName(edge, var), expr;
    switch (edge) {
      case EdgeKind::Pos: expr = bit + " & ~" + prevBit; break;
      case EdgeKind::Neg: expr = "~" + bit + " & " + prevBit; break;
      case EdgeKind::Any: expr = var.ident + " != " + prev; break;
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
    std::string condition = fireCondition(design, c);
    if (seesInitializers.count(k))
      condition = initsPending + " ? " + (anyInitial ? "!__init_pending" : "1'b1") + " : (" + condition + ")";
    if (auto kept = startsAfterInitializers.find(k); kept != startsAfterInitializers.end() && c.resumeVar < 0)
      condition = initsPending + " ? (" + kept->second + ") : (" + condition + ")";
    design.passStart.push_back(fire + " = " + condition + ";");
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
  if (!seesInitializers.empty() || !startsAfterInitializers.empty())
    design.passStart.push_back(initsPending + " = " + (anyInitial ? "__init_pending" : "1'b0") + ";");
  if (anyInitial) design.passStart.push_back("__init_pending = 1'b0;");
  if (!fromPowerOnX.empty()) design.passStart.push_back(xPending + " = 1'b0;");
}

}  // namespace synergy::hwlower
