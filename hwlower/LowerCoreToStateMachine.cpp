//===- LowerCoreToStateMachine.cpp - The core becomes a state machine -----===//
//
// Paper Fig. 5. The core's body is cut into states. A state is a maximal
// run of synthesizable statements; it ends
//   - at a task trap (exit Trap: set __task, continue in the next state once
//     the runtime asserts __cont),
//   - at the guard of an if/case whose branches contain a trap or a loop
//     (exit Branch/Case: one new state per branch, and a phi state where
//     the branches rejoin),
//   - at a loop (a header state tests the condition; the body's last state
//     jumps back to it),
//   - at a `disable` of an enclosing named block (a jump to the state
//     after that block; the block's end is a state boundary too).
// An if/case with no trap or loop inside stays whole inside its state.
// Every transition except a loop's back edge goes to a higher-numbered
// state, so the emitter can lay states out in order and let control fall
// through several states within one native cycle (Fig. 5's fall-through
// semantics); a back edge costs one native cycle per iteration.
// State 0 is the idle state (no pass running); the core starts in state 1.
//
// A process that waits inside its body (see mergeProcessesIntoCore) enters
// through a dispatch on its __resume_k: 0 starts the body, p continues
// right after event control p. An event control ends its state: it stores p
// in __resume_k and jumps to the end of the conjunct, so the process is
// suspended until its conjunct fires again; finishing the body stores 0.
//
// $finish and $stop behave as in vvp: the calling process stops right after
// the call, and every other process that runs later in the same tick stops
// right after its next system task or function. So a $finish/$stop trap
// sets `__finishing`, and every trap of the design continues at the end of
// its own conjunct while `__finishing` is set. The rest of the tick (NBAs,
// processes they trigger, $strobe) still happens, and the runtime ends the
// run at the end of the tick.
//
// A recursive routine's markers (lowerRecursiveCalls) become jumps: its
// RecursiveEntry starts a state, a RecursiveJump ends its state with a goto
// to that entry (a back edge) and starts the state its return comes back
// to, and RecursiveReturn dispatches on the return site of the top frame,
// or falls through to the state after it when no frame is left.
//
// Runs after lowerTaskArguments (trap sites have ids) and
// lowerNonBlockingAssigns (no NBAs are left).
// Guarantees: Design::states is dense, states[0] is idle, and only the
// state machine exits reach the emitter as control flow.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

namespace {

bool needsStates(const Stmt& st) {
  switch (st.kind) {
    case StmtKind::Task:
    case StmtKind::EventWait:
    case StmtKind::Disable:
    case StmtKind::RecursiveEntry:
    case StmtKind::RecursiveJump:
    case StmtKind::RecursiveReturn:
      return true;
    case StmtKind::While:
      // A constant-bound `for` without traps stays inline: synthesis unrolls it.
      return !st.forInit || !st.forStep || needsStates(*st.loopBody);
    case StmtKind::Block:
      for (const StmtPtr& c : st.body)
        if (needsStates(*c)) return true;
      return false;
    case StmtKind::If:
      return (st.thenStmt && needsStates(*st.thenStmt)) || (st.elseStmt && needsStates(*st.elseStmt));
    case StmtKind::Case:
      for (const CaseItem& item : st.items)
        if (item.body && needsStates(*item.body)) return true;
      return false;
    default:
      return false;
  }
}

bool isFinish(const TaskCall& call) { return call.name == "$finish" || call.name == "$stop"; }

bool callsFinish(const Stmt& st) {
  return anyStatement(st, [](const Stmt& s) { return s.kind == StmtKind::Task && isFinish(s.call); });
}

class StateMachineBuilder {
 public:
  explicit StateMachineBuilder(Design& design) : design_(design) {}

  void run() {
    newState();  // state 0: idle
    unsigned cur = newState();
    bool finishes = false;
    for (const CoreConjunct& c : design_.core) finishes |= c.body && callsFinish(*c.body);
    if (finishes) {
      Var finishing;
      finishing.ident = finishing.name = "__finishing";
      finishing.kind = VarKind::Internal;
      design_.finishingVar = design_.addVar(std::move(finishing));
    }
    for (CoreConjunct& c : design_.core) {
      size_t first = design_.states.size();
      if (c.resumeVar >= 0)
        lowerResumable(c, cur);
      else
        lower(std::move(c.body), cur);
      if (!finishes) continue;
      for (size_t id = first; id < design_.states.size(); ++id) {
        MachineState& s = design_.states[id];
        if (s.exit != MachineState::Exit::Trap) continue;
        s.hasFinishExit = true;
        s.finishExit = cur;
      }
    }
    design_.states[cur].exit = MachineState::Exit::End;
  }

 private:
  unsigned newState() {
    MachineState s;
    s.id = unsigned(design_.states.size());
    design_.states.push_back(std::move(s));
    return design_.states.back().id;
  }

  MachineState& state(unsigned id) { return design_.states[id]; }

  static StmtPtr raw(const std::string& text) {
    auto st = std::make_unique<Stmt>();
    st->kind = StmtKind::Raw;
    st->rawText = text;
    return st;
  }

  std::string resumeValue(unsigned point) const {
    return std::to_string(design_.vars[resume_.var].width) + "'d" + std::to_string(point);
  }

  // The conjunct is `if (__fire_k) body` (replaceGuardsWithNativeClock).
  void lowerResumable(CoreConjunct& c, unsigned& cur) {
    Stmt& guarded = *c.body;
    resume_ = Resume{c.resumeVar, std::vector<unsigned>(c.waits.size() + 1, 0), {}};
    const std::string& ident = design_.vars[c.resumeVar].ident;
    unsigned from = cur;
    unsigned dispatch = newState();
    unsigned start = newState();
    resume_.entries[0] = start;
    unsigned b = start;
    lower(std::move(guarded.thenStmt), b);
    state(b).stmts.push_back(raw(ident + " = " + resumeValue(0) + ";"));
    unsigned end = newState();
    gotoState(b, end);
    state(from).exit = MachineState::Exit::Branch;
    state(from).branchCond = guarded.cond.text;
    state(from).thenState = dispatch;
    state(from).elseState = end;
    state(dispatch).exit = MachineState::Exit::Case;
    state(dispatch).caseKind = CaseKind::Case;
    state(dispatch).caseSubject = ident;
    for (unsigned p = 0; p < resume_.entries.size(); ++p)
      state(dispatch).caseTargets.push_back({{resumeValue(p)}, resume_.entries[p]});
    state(dispatch).caseTargets.push_back({{}, end});
    for (unsigned suspended : resume_.suspends) gotoState(suspended, end);
    resume_ = Resume{};
    cur = end;
  }

  void gotoState(unsigned from, unsigned to) {
    state(from).exit = MachineState::Exit::Goto;
    state(from).next = to;
  }

  void lower(StmtPtr st, unsigned& cur) {
    if (!st) return;
    if (!needsStates(*st)) {
      if (st->kind != StmtKind::Nop) state(cur).stmts.push_back(std::move(st));
      return;
    }
    switch (st->kind) {
      case StmtKind::Block: {
        if (st->label.empty()) {
          for (StmtPtr& c : st->body) lower(std::move(c), cur);
          return;
        }
        // A disable target: its disables jump to the state after it.
        disableTargets_.push_back({st->label, {}});
        for (StmtPtr& c : st->body) lower(std::move(c), cur);
        unsigned after = newState();
        gotoState(cur, after);
        for (unsigned from : disableTargets_.back().jumps) gotoState(from, after);
        disableTargets_.pop_back();
        cur = after;
        return;
      }
      case StmtKind::Disable: {
        // mergeProcessesIntoCore checked that the target encloses it.
        for (auto target = disableTargets_.rbegin(); target != disableTargets_.rend(); ++target) {
          if (target->label != st->label) continue;
          target->jumps.push_back(cur);
          break;
        }
        cur = newState();
        return;
      }
      case StmtKind::Task: {
        if (isFinish(st->call)) {
          auto mark = std::make_unique<Stmt>();
          mark->kind = StmtKind::Raw;
          mark->loc = st->loc;
          mark->rawText = "__finishing = 1'b1;";
          state(cur).stmts.push_back(std::move(mark));
        }
        unsigned next = newState();
        state(cur).exit = MachineState::Exit::Trap;
        state(cur).taskId = st->call.taskId;
        state(cur).next = next;
        cur = next;
        return;
      }
      case StmtKind::If: {
        unsigned from = cur;
        unsigned thenState = newState(), elseState = newState();
        state(from).exit = MachineState::Exit::Branch;
        state(from).branchCond = st->cond.text;
        state(from).thenState = thenState;
        state(from).elseState = elseState;
        unsigned t = thenState, e = elseState;
        lower(std::move(st->thenStmt), t);
        lower(std::move(st->elseStmt), e);
        unsigned phi = newState();
        gotoState(t, phi);
        gotoState(e, phi);
        cur = phi;
        return;
      }
      case StmtKind::Case: {
        unsigned from = cur;
        state(from).exit = MachineState::Exit::Case;
        state(from).caseKind = st->caseKind;
        state(from).caseSubject = st->cond.text;
        std::vector<unsigned> ends;
        std::vector<std::pair<std::vector<std::string>, unsigned>> targets;
        bool hasDefault = false;
        for (CaseItem& item : st->items) {
          unsigned entry = newState();
          std::vector<std::string> labels;
          for (const Expr& l : item.labels) labels.push_back(l.text);
          hasDefault |= labels.empty();
          targets.push_back({labels, entry});
          unsigned end = entry;
          lower(std::move(item.body), end);
          ends.push_back(end);
        }
        unsigned phi = newState();
        if (!hasDefault) targets.push_back({{}, phi});
        state(from).caseTargets = std::move(targets);
        for (unsigned end : ends) gotoState(end, phi);
        cur = phi;
        return;
      }
      case StmtKind::While: {
        lower(std::move(st->forInit), cur);
        if (st->forStep) {
          auto body = std::make_unique<Stmt>();
          body->kind = StmtKind::Block;
          body->body.push_back(std::move(st->loopBody));
          body->body.push_back(std::move(st->forStep));
          st->loopBody = std::move(body);
        }
        unsigned header = newState();
        gotoState(cur, header);
        unsigned bodyEntry = newState();
        unsigned b = bodyEntry;
        lower(std::move(st->loopBody), b);
        gotoState(b, header);
        unsigned exit = newState();
        state(header).exit = MachineState::Exit::Branch;
        state(header).branchCond = st->cond.text;
        state(header).thenState = bodyEntry;
        state(header).elseState = exit;
        cur = exit;
        return;
      }
      case StmtKind::EventWait: {
        state(cur).stmts.push_back(raw(design_.vars[resume_.var].ident + " = " + resumeValue(st->waitId) + ";"));
        resume_.suspends.push_back(cur);
        cur = newState();
        resume_.entries[st->waitId] = cur;
        return;
      }
      case StmtKind::RecursiveEntry: {
        unsigned entry = newState();
        gotoState(cur, entry);
        routineEntries_[st->routine] = entry;
        cur = entry;
        return;
      }
      case StmtKind::RecursiveJump: {
        gotoState(cur, routineEntries_.at(st->routine));
        cur = newState();
        returnSites_[st->routine].push_back({st->returnSite, cur});
        return;
      }
      case StmtKind::RecursiveReturn: {
        const RecursiveRoutine& routine = design_.recursiveRoutines[st->routine];
        unsigned dispatch = newState(), after = newState();
        state(cur).exit = MachineState::Exit::Branch;
        state(cur).branchCond = routine.stackIsEmpty;
        state(cur).thenState = after;
        state(cur).elseState = dispatch;
        state(dispatch).exit = MachineState::Exit::Case;
        state(dispatch).caseKind = CaseKind::Case;
        state(dispatch).caseSubject = routine.topReturnSite;
        for (const auto& [site, target] : returnSites_[st->routine])
          state(dispatch).caseTargets.push_back({{site}, target});
        state(dispatch).caseTargets.push_back({{}, after});
        cur = after;
        return;
      }
      default:
        state(cur).stmts.push_back(std::move(st));
        return;
    }
  }

  // The process being lowered when it waits inside its body: its resume
  // register, the entry state of each resume point, and the states that
  // suspend it (they jump to the end of the conjunct).
  struct Resume {
    int var = -1;
    std::vector<unsigned> entries;
    std::vector<unsigned> suspends;
  };

  // A named block being lowered and the states that disable it.
  struct DisableTarget {
    std::string label;
    std::vector<unsigned> jumps;
  };

  Design& design_;
  Resume resume_;
  std::vector<DisableTarget> disableTargets_;
  // Per recursive routine: its entry state, and each return site's state.
  std::map<unsigned, unsigned> routineEntries_;
  std::map<unsigned, std::vector<std::pair<std::string, unsigned>>> returnSites_;
};

}  // namespace

void lowerCoreToStateMachine(Design& design, Diagnostics&) {
  StateMachineBuilder(design).run();
  design.core.clear();
}

}  // namespace synergy::hwlower
