//===- RecognizeClockGenerator.cpp - Drop the test bench clock generator --===//
//
// The test-bench convention: a top module with no ports drives its own
// clock with `always #d clock = ~clock`. Under Synergy the runtime drives
// the virtual clock instead, one toggle per tick, so this pass removes the
// generator, turns `clock` into the design's Input, records d as the half
// period (time units per tick), and removes constant assignments to the
// clock from initial blocks (their value becomes the clock's power-on value).
// An event on a port net that carries the clock waits on that net, which
// vvp sees go from x to the power-on value at time 0 (IvlReader::eventVar);
// an edge that this first change cannot be (a posedge when the clock starts
// at 0, a negedge when it starts at 1) waits on the clock itself instead,
// so findIdleNegedge and inlineUnobservedNonBlockingAssigns recognise it as
// a clock edge.
//
// Runs after flattenBlocks (it matches the generator's flattened shape).
// Guarantees: no process is a clock generator; Design::clockVar is set when
// the design has a clock, with a half period of 1 to kMaxHalfPeriod (a
// longer one is reported unsupported); an event on a clock port net is one
// vvp sees at time 0.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <set>
#include <string>

#include "hwlower/EngineManifest.h"

namespace synergy::hwlower {

// `#d v = ~v` for a 1-bit v; returns v or -1.
static int generatorClock(const Stmt& st, uint64_t& delay) {
  const Stmt* s = &st;
  if (s->kind == StmtKind::Block && s->body.size() == 1) s = s->body[0].get();
  if (s->kind != StmtKind::Delay || !s->loopBody) return -1;
  const Stmt* a = s->loopBody.get();
  if (a->kind == StmtKind::Block && a->body.size() == 1) a = a->body[0].get();
  if (a->kind != StmtKind::Assign || a->lhs.size() != 1) return -1;
  const LValue& lv = a->lhs[0];
  if (lv.hasIndex || lv.hasPart || lv.var != a->rhs.invertedVar) return -1;
  delay = s->delay;
  return lv.var;
}

// Removes `clock = <constant>` from an initial block; the constant becomes
// the clock's power-on value, which the runtime then toggles.
static void dropConstantClockWrites(StmtPtr& st, Var& clock, int clockVar) {
  if (!st || st->kind != StmtKind::Block) {
    if (st && st->kind == StmtKind::Assign && st->lhs.size() == 1 &&
        st->lhs[0].var == clockVar && !st->lhs[0].hasPart && st->rhs.isConstant) {
      // The LSB is the last binary digit, also through a truncation helper.
      size_t lsb = st->rhs.text.find_last_of("01");
      clock.initValue = lsb != std::string::npos && st->rhs.text[lsb] == '1' ? 1 : 0;
      st->kind = StmtKind::Nop;
    }
    return;
  }
  std::vector<StmtPtr> kept;
  for (StmtPtr& child : st->body) {
    dropConstantClockWrites(child, clock, clockVar);
    if (child->kind != StmtKind::Nop) kept.push_back(std::move(child));
  }
  st->body = std::move(kept);
}

static void waitOnClockUnlessFromX(std::vector<EventTerm>& terms, const std::set<int>& clockNets,
                                   int clockVar, bool startsHigh) {
  for (EventTerm& t : terms)
    if (clockNets.count(t.var) && t.edge == (startsHigh ? EdgeKind::Neg : EdgeKind::Pos)) t.var = clockVar;
}

static void waitOnClockUnlessFromX(Stmt* st, const std::set<int>& clockNets, int clockVar, bool startsHigh) {
  if (!st) return;
  if (st->kind == StmtKind::EventWait) waitOnClockUnlessFromX(st->events, clockNets, clockVar, startsHigh);
  for (StmtPtr& c : st->body) waitOnClockUnlessFromX(c.get(), clockNets, clockVar, startsHigh);
  for (CaseItem& item : st->items) waitOnClockUnlessFromX(item.body.get(), clockNets, clockVar, startsHigh);
  for (Stmt* c : {st->thenStmt.get(), st->elseStmt.get(), st->loopBody.get()})
    waitOnClockUnlessFromX(c, clockNets, clockVar, startsHigh);
}

void recognizeClockGenerator(Design& design, Diagnostics& diags) {
  std::vector<Process> kept;
  for (Process& p : design.processes) {
    uint64_t delay = 0;
    int clock = p.kind == ProcessKind::Always && p.guard.empty() && p.body
                    ? generatorClock(*p.body, delay)
                    : -1;
    if (clock >= 0 && design.vars[clock].width == 1 &&
        (design.clockVar < 0 || design.clockVar == clock)) {
      // The runtime refuses a longer half period: $time would wrap.
      if (delay > kMaxHalfPeriod)
        diags.unsupported("clock half period #" + std::to_string(delay) + " (at most #" +
                              std::to_string(kMaxHalfPeriod) + ")",
                          p.loc);
      design.clockVar = clock;
      design.halfPeriod = delay ? delay : 1;
      design.vars[clock].kind = VarKind::Input;
      continue;
    }
    kept.push_back(std::move(p));
  }
  design.processes = std::move(kept);
  if (design.clockVar < 0) return;
  for (Process& p : design.processes)
    if (p.kind == ProcessKind::Initial)
      dropConstantClockWrites(p.body, design.vars[design.clockVar], design.clockVar);

  const Var& clock = design.vars[design.clockVar];
  const std::set<std::string> netlist(design.netlist.begin(), design.netlist.end());
  std::set<int> clockNets;
  for (size_t v = 0; v < design.vars.size(); ++v)
    if (design.vars[v].kind == VarKind::Wire &&
        netlist.count("assign " + design.vars[v].ident + " = " + clock.ident + ";"))
      clockNets.insert(int(v));
  bool startsHigh = clock.initValue & 1;
  for (Process& p : design.processes) {
    waitOnClockUnlessFromX(p.guard, clockNets, design.clockVar, startsHigh);
    waitOnClockUnlessFromX(p.body.get(), clockNets, design.clockVar, startsHigh);
  }
}

}  // namespace synergy::hwlower
