//===- Pipeline.cpp - The hwlower pipeline, in order ----------------------===//
//
// The whole hardware lowering, one pass a line. Set SYNERGY_HWLOWER_DEBUG=1
// to print each stage as it runs.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Pipeline.h"

#include <cstdlib>
#include <iostream>

#include "hwlower/Passes.h"

namespace synergy::hwlower {

static StateKind stateKindOf(VarKind kind) {
  switch (kind) {
    case VarKind::Reg: return StateKind::Reg;
    case VarKind::Wire:
    case VarKind::CombReg:
    case VarKind::Rom: return StateKind::Wire;
    case VarKind::Input: return StateKind::Input;
    case VarKind::Internal: return StateKind::Internal;
  }
  return StateKind::Reg;
}

static void buildManifest(const Design& design, EngineManifest& m) {
  m.top = design.top;
  m.halfPeriod = design.halfPeriod;
  m.usesYield = design.usesYield;
  m.clockId = kNoState;
  for (size_t id = 0; id < design.stateIdToVar.size(); ++id) {
    int v = design.stateIdToVar[id];
    const Var& var = design.vars[v];
    StateVar s;
    s.id = uint32_t(id);
    s.kind = stateKindOf(var.kind);
    s.width = var.width;
    s.isSigned = var.isSigned;
    s.depth = var.depth;
    s.base = var.arrayBase;
    s.name = var.kind == VarKind::Internal ? var.ident : var.name;
    s.verilogName = var.ident;
    switch (var.kind) {
      case VarKind::Wire:
      case VarKind::CombReg:
      case VarKind::Rom: s.nonVolatile = false; break;
      case VarKind::Reg: s.nonVolatile = !design.usesYield || var.nonVolatileAttr; break;
      default: s.nonVolatile = true; break;
    }
    if (v == design.clockVar) m.clockId = s.id;
    m.states.push_back(std::move(s));
  }
  m.tasks = design.tasks;
  m.romFiles = design.romFiles;
  m.verilog = design.verilog;
}

bool lowerDesign(Design& design, Diagnostics& diags, EngineManifest& manifest) {
  const bool debug = std::getenv("SYNERGY_HWLOWER_DEBUG") != nullptr;
  auto stage = [&](const char* name) {
    if (debug) std::cerr << "hwlower: " << name << "\n";
    return !diags.failed();
  };
  // First: what it makes is plain statements and leaf markers, which every
  // later pass (and flattening) handles; only the state machine reads the markers.
  if (!stage("lower-recursive-calls")) return false;
  lowerRecursiveCalls(design, diags);
  // Fig. 3: blocks first, so later matching sees flat statement lists.
  if (!stage("flatten-blocks")) return false;
  flattenBlocks(design);
  // Before merging: the generator is a process that must not enter the core.
  if (!stage("recognize-clock-generator")) return false;
  recognizeClockGenerator(design, diags);
  // Before merging: it matches statements at the start of initial blocks.
  if (!stage("fold-constant-variables")) return false;
  foldConstantVariables(design);
  // Before merging: what it takes out never becomes a conjunct.
  if (!stage("keep-combinational-blocks")) return false;
  keepCombinationalBlocks(design);
  // Before merging: what it moves to power-on never becomes state-machine logic.
  if (!stage("hoist-power-on-prefixes")) return false;
  hoistPowerOnPrefixes(design);
  if (!stage("merge-processes-into-core")) return false;
  mergeProcessesIntoCore(design, diags);
  if (!stage("find-idle-negedge")) return false;
  findIdleNegedge(design);
  // Fig. 4: needs the conjuncts' guards, wraps each body in its fire flag.
  if (!stage("replace-guards-with-native-clock")) return false;
  replaceGuardsWithNativeClock(design);
  // NBAs and task arguments become plain statements before states are cut.
  if (!stage("inline-unobserved-non-blocking-assigns")) return false;
  inlineUnobservedNonBlockingAssigns(design);
  if (!stage("lower-non-blocking-assigns")) return false;
  lowerNonBlockingAssigns(design);
  if (!stage("write-task-results-to-targets")) return false;
  writeTaskResultsToTargets(design);
  // After results are retargeted (copies of `c = $fgetc` then match), before
  // task ids are handed out.
  if (!stage("merge-duplicate-case-items")) return false;
  mergeDuplicateCaseItems(design);
  if (!stage("lower-task-arguments")) return false;
  lowerTaskArguments(design);
  // Before the state machine: it needs the structured statement tree.
  if (!stage("find-pass-local-variables")) return false;
  findPassLocalVariables(design);
  // Fig. 5.
  if (!stage("lower-core-to-state-machine")) return false;
  lowerCoreToStateMachine(design, diags);
  // Before emitting: fewer states mean fewer compares and a narrower __state.
  if (!stage("thread-pass-through-states")) return false;
  threadPassThroughStates(design);
  // After the states are final: it follows their transitions.
  if (!stage("share-memory-write-ports")) return false;
  shareMemoryWritePorts(design);
  // Ids last among the passes: every variable now exists.
  if (!stage("assign-state-ids")) return false;
  assignStateIds(design);
  if (!stage("emit-verilog")) return false;
  emitVerilog(design);
  buildManifest(design, manifest);
  return !diags.failed();
}

}  // namespace synergy::hwlower
