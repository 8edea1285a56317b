//===- AssignStateIds.cpp - State-access ids for every stateful variable --===//
//
// The runtime reads and writes the design only through the emitted module's
// state-access port, addressed by id. This pass numbers, in declaration
// order, every user variable and net (nets are readable, for task arguments
// and $monitor), every top-level input, and every compiler register whose
// value matters across ticks or traps (edge-detector history, the initial
// flag, task argument and result registers, repeat counters). Icarus
// temporaries and function locals get no id.
//
// Under $yield, user variables are volatile unless marked
// (* non_volatile *); compiler registers and inputs are always saved.
//
// Runs after every pass that creates variables, before emitVerilog.
// Guarantees: Design::stateIdToVar is dense; the task table holds state ids.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>

namespace synergy::hwlower {

void assignStateIds(Design& design) {
  std::map<uint32_t, uint32_t> idOfVar;
  for (size_t v = 0; v < design.vars.size(); ++v) {
    const Var& var = design.vars[v];
    if (var.inFunction || var.isLocal) continue;
    idOfVar[uint32_t(v)] = uint32_t(design.stateIdToVar.size());
    design.stateIdToVar.push_back(int(v));
  }
  auto remap = [&](uint32_t& id) {
    if (id == kNoState) return;
    auto it = idOfVar.find(id);
    id = it == idOfVar.end() ? kNoState : it->second;
  };
  for (Task& t : design.tasks) {
    remap(t.resultId);
    for (TaskArg& a : t.args) {
      remap(a.stateId);
      remap(a.indexStateId);
    }
  }
}

}  // namespace synergy::hwlower
