//===- FindIdleNegedge.cpp - Whether the clock's falling edge does nothing ===//
//
// In open loop the engine advances one tick per native cycle: the tick
// boundary toggles the clock and the pass it triggers runs in the same
// cycle. In the common design that only acts on `posedge clock`, every
// other tick is a falling edge whose pass fires no conjunct, so half of the
// native cycles (and of the simulator's evaluations) do nothing but move
// the edge detectors' history. When this pass proves that, the emitter lets
// the open-loop controller run such an idle tick inside the boundary of
// the next one: it toggles the clock down, updates the history as the idle
// pass would (its fire flags are all false), and toggles it up again, so
// the rising edge's pass runs in the same cycle.
//
// The falling edge is idle when every event (guard or resume point) on the
// clock is `posedge clock` and no other event variable depends on the clock
// through continuous assigns or combinational blocks (those would change,
// and fire, at the falling edge).
//
// Runs after mergeProcessesIntoCore (events are the conjuncts' guards and
// waits) and keepCombinationalBlocks.
// Guarantees: Design::negedgeIsIdle is true only for such designs.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>
#include <set>

namespace synergy::hwlower {

namespace {

// Variables whose value follows the clock: the clock, and whatever a
// continuous assign or a combinational block computes from one of them.
std::set<int> clockDependents(const Design& design) {
  std::map<std::string, int> varOfIdent;
  for (size_t v = 0; v < design.vars.size(); ++v)
    if (!design.vars[v].inFunction) varOfIdent[design.vars[v].ident] = int(v);
  // Each derivation: what it reads, what it writes.
  std::vector<std::pair<std::vector<std::string>, std::set<int>>> derivations;
  for (const std::string& line : design.netlist) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::set<int> written;
    for (const std::string& id : identifiersIn(line.substr(0, eq)))
      if (auto it = varOfIdent.find(id); it != varOfIdent.end()) written.insert(it->second);
    derivations.push_back({identifiersIn(line.substr(eq + 1)), written});
  }
  for (const StmtPtr& block : design.combinationalBlocks) {
    std::vector<std::string> reads;
    std::set<int> written;
    forEachExprText(*block, [&](const std::string& text) {
      for (const std::string& id : identifiersIn(text)) reads.push_back(id);
    });
    anyStatement(*block, [&](const Stmt& s) {
      for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()})
        if (a)
          for (const LValue& lv : a->lhs) written.insert(lv.var);
      return false;
    });
    derivations.push_back({reads, written});
  }
  std::set<int> dependents{design.clockVar};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [reads, written] : derivations) {
      bool readsClock = false;
      for (const std::string& id : reads)
        if (auto it = varOfIdent.find(id); it != varOfIdent.end() && dependents.count(it->second))
          readsClock = true;
      if (!readsClock) continue;
      for (int v : written) grew |= dependents.insert(v).second;
    }
  }
  return dependents;
}

}  // namespace

void findIdleNegedge(Design& design) {
  design.negedgeIsIdle = false;
  if (design.clockVar < 0 || design.vars[design.clockVar].width != 1) return;
  std::set<int> dependents = clockDependents(design);
  auto idle = [&](const std::vector<EventTerm>& terms) {
    for (const EventTerm& t : terms)
      if (dependents.count(t.var) && (t.var != design.clockVar || t.edge != EdgeKind::Pos)) return false;
    return true;
  };
  for (const CoreConjunct& c : design.core) {
    if (!idle(c.guard)) return;
    for (const std::vector<EventTerm>& wait : c.waits)
      if (!idle(wait)) return;
  }
  design.negedgeIsIdle = true;
}

}  // namespace synergy::hwlower
