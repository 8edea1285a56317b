//===- ThreadPassThroughStates.cpp - Jump past states that only jump ------===//
//
// lowerCoreToStateMachine cuts a state at every branch, rejoin and loop exit,
// so many states do nothing but `__state = N`: an empty else branch, a phi
// state where branches rejoin, chains of them at the end of a conjunct. Each
// costs the engine a state compare and a transition-mux arm every cycle, and
// they widen __state. Every transition into such a state now goes to the end
// of its chain instead, the states nothing reaches any more are dropped, and
// the rest are renumbered densely in their old order. Keeping the order keeps
// forward transitions forward, so the emitter's fall-through within one
// native cycle is unchanged, and a chain that ended in a back edge or at the
// idle state 0 still does.
//
// A state is pass-through only when it has no statements and leaves
// unconditionally (Goto, or End to the idle state): a trap, a `__finishing`
// check or a branch condition keeps it. State 0 (idle) and state 1 (where
// every pass starts) keep their numbers. A cycle made only of pass-through
// states (an empty loop that never exits) keeps the state it is entered at.
//
// Runs right after lowerCoreToStateMachine. Guarantees, as that pass does:
// Design::states is dense, states[0] is idle and a pass starts in state 1.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <limits>

namespace synergy::hwlower {

namespace {

constexpr unsigned kIdleState = 0;
constexpr unsigned kEntryState = 1;
constexpr unsigned kUnresolved = std::numeric_limits<unsigned>::max();

bool isPassThrough(const MachineState& s) {
  if (s.id == kIdleState || s.id == kEntryState || !s.stmts.empty()) return false;
  return s.exit == MachineState::Exit::Goto || s.exit == MachineState::Exit::End;
}

unsigned passThroughTarget(const MachineState& s) {
  return s.exit == MachineState::Exit::End ? kIdleState : s.next;
}

// Calls `fn` on every state number `s` may transition to.
template <typename Fn>
void forEachTarget(MachineState& s, Fn fn) {
  switch (s.exit) {
    case MachineState::Exit::Goto: fn(s.next); break;
    case MachineState::Exit::Branch:
      fn(s.thenState);
      fn(s.elseState);
      break;
    case MachineState::Exit::Case:
      for (auto& target : s.caseTargets) fn(target.second);
      break;
    case MachineState::Exit::Trap:
      fn(s.next);
      if (s.hasFinishExit) fn(s.finishExit);
      break;
    case MachineState::Exit::End: break;
  }
}

// For each state, the state control really arrives at when it enters it:
// itself unless it is pass-through, else the end of its chain.
std::vector<unsigned> chainEnds(const std::vector<MachineState>& states) {
  std::vector<unsigned> end(states.size(), kUnresolved);
  std::vector<bool> onChain(states.size(), false);
  std::vector<unsigned> chain;
  for (unsigned id = 0; id < states.size(); ++id) {
    unsigned cur = id;
    while (end[cur] == kUnresolved && !onChain[cur] && isPassThrough(states[cur])) {
      onChain[cur] = true;
      chain.push_back(cur);
      cur = passThroughTarget(states[cur]);
    }
    // A state seen twice on one chain closes a cycle: it stays.
    if (end[cur] == kUnresolved) end[cur] = cur;
    for (unsigned passed : chain) {
      end[passed] = end[cur];
      onChain[passed] = false;
    }
    chain.clear();
  }
  return end;
}

}  // namespace

void threadPassThroughStates(Design& design) {
  std::vector<MachineState>& states = design.states;
  std::vector<unsigned> end = chainEnds(states);
  for (MachineState& s : states) {
    forEachTarget(s, [&](unsigned& target) { target = end[target]; });
    // A trap that now resumes where `__finishing` would send it needs no check.
    if (s.exit == MachineState::Exit::Trap && s.hasFinishExit && s.finishExit == s.next)
      s.hasFinishExit = false;
  }

  std::vector<bool> reached(states.size(), false);
  std::vector<unsigned> work = {kIdleState, kEntryState};
  for (unsigned root : work) reached[root] = true;
  while (!work.empty()) {
    unsigned id = work.back();
    work.pop_back();
    forEachTarget(states[id], [&](unsigned& target) {
      if (reached[target]) return;
      reached[target] = true;
      work.push_back(target);
    });
  }

  std::vector<unsigned> renumbered(states.size(), kUnresolved);
  std::vector<MachineState> kept;
  for (MachineState& s : states) {
    if (!reached[s.id]) continue;
    renumbered[s.id] = unsigned(kept.size());
    kept.push_back(std::move(s));
  }
  for (MachineState& s : kept) {
    s.id = renumbered[s.id];
    forEachTarget(s, [&](unsigned& target) { target = renumbered[target]; });
  }
  states = std::move(kept);
}

}  // namespace synergy::hwlower
