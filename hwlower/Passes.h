//===- Passes.h - The hwlower passes, one entry point each ----------------===//
//
// Each pass lives in its own file and exports exactly one function. The
// order they run in is stated once, in Pipeline.cpp (lowerDesign).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "hwlower/HwIr.h"

namespace synergy::hwlower {

// LowerRecursiveCalls.cpp: a stack of frames per recursive routine; calls
// push, jump to the one copy of the body and pop.
void lowerRecursiveCalls(Design& design, Diagnostics& diags);
// FlattenBlocks.cpp: fork/join becomes begin/end; nested blocks are spliced.
void flattenBlocks(Design& design);
// RecognizeClockGenerator.cpp: drops `always #d clock = ~clock`, makes
// `clock` the runtime-driven input, records the half period.
void recognizeClockGenerator(Design& design, Diagnostics& diags);
// FoldConstantVariables.cpp: a register only set to a constant at the start
// of an initial block becomes a net driven by that constant, a memory only
// set that way a ROM.
void foldConstantVariables(Design& design);
// KeepCombinationalBlocks.cpp: `always @*` blocks whose outputs are pure
// functions of their inputs stay combinational logic outside the core.
void keepCombinationalBlocks(Design& design);
// HoistPowerOnPrefixes.cpp: the leading statements of initial blocks that
// only compute starting values run at power-on instead of in the core.
void hoistPowerOnPrefixes(Design& design);
// MergeProcessesIntoCore.cpp (Fig. 3): one core, each conjunct guarded by
// its mangled original guard.
void mergeProcessesIntoCore(Design& design, Diagnostics& diags);
// FindIdleNegedge.cpp: whether no event fires at the clock's falling edge,
// so open loop may run that tick inside the next one's boundary.
void findIdleNegedge(Design& design);
// ReplaceGuardsWithNativeClock.cpp (Fig. 4): previous values of guard
// variables, __pos_x/__neg_x/__any_x triggers, per-conjunct fire flags.
void replaceGuardsWithNativeClock(Design& design);
// InlineUnobservedNonBlockingAssigns.cpp: `x <= e` becomes `x = e` where
// nothing could see x change before the end of the tick.
void inlineUnobservedNonBlockingAssigns(Design& design);
// LowerNonBlockingAssigns.cpp: `x <= e` writes a shadow that __update latches.
void lowerNonBlockingAssigns(Design& design);
// WriteTaskResultsToTargets.cpp: `c = $fgetc(fd)` makes c the task's
// result instead of copying a result register into it.
void writeTaskResultsToTargets(Design& design);
// MergeDuplicateCaseItems.cpp: Icarus's copies of `a, b: stmt` become one
// case item again.
void mergeDuplicateCaseItems(Design& design);
// LowerTaskArguments.cpp: task ids, argument registers, the task table.
void lowerTaskArguments(Design& design);
// FindPassLocalVariables.cpp: registers every process writes before it
// reads them need no state-access arms.
void findPassLocalVariables(Design& design);
// LowerCoreToStateMachine.cpp (Fig. 5): states end at tasks and at branches
// around tasks or loops.
void lowerCoreToStateMachine(Design& design, Diagnostics& diags);
// ThreadPassThroughStates.cpp: transitions skip states that only jump; the
// states left unreachable are dropped and the rest renumbered densely.
void threadPassThroughStates(Design& design);
// ShareMemoryWritePorts.cpp: a memory's state-access write and its one other
// write share a write port.
void shareMemoryWritePorts(Design& design);
// AssignStateIds.cpp: every stateful variable gets a state-access id.
void assignStateIds(Design& design);
// EmitVerilog.cpp: the synergy_engine module text.
void emitVerilog(Design& design);

}  // namespace synergy::hwlower
