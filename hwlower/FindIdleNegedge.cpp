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

#include <set>

namespace synergy::hwlower {

void findIdleNegedge(Design& design) {
  design.negedgeIsIdle = false;
  if (design.clockVar < 0 || design.vars[design.clockVar].width != 1) return;
  std::set<int> dependents = derivedFrom(design, {design.clockVar});
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
