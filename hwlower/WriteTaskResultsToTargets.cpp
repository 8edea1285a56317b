//===- WriteTaskResultsToTargets.cpp - Results go where they are assigned -===//
//
// The frontend hoists a system function out of its expression: `c =
// $fgetc(fd)` becomes a trap that leaves the value in a fresh register
// `__result_k`, then `c = $signed(__result_k)`. The runtime writes that
// register through the state-access port, so it is a flip-flop per result
// bit, plus a copy, for what the original design keeps in c alone. When the
// statement right after the trap only copies the result into a whole
// register of the same width, this pass makes that register the task's
// result and drops the copy: the runtime's write is the assignment.
//
// Not done when the target is also an argument of the call (the runtime
// writes output arguments and the result in its own order), nor in a
// design with $strobe or $monitor: a process stopped by $finish skips the
// copy after its trap, which such a task could tell from the target
// having been written.
//
// Runs before lowerTaskArguments, which puts the result id in the task
// table. Guarantees: a result register left unused is marked local, so it
// gets no state id.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

namespace {

class ResultRetargeter {
 public:
  explicit ResultRetargeter(Design& design) : design_(design) {}

  void run() {
    for (const CoreConjunct& c : design_.core)
      if (c.body && anyStatement(*c.body, [](const Stmt& s) {
            return s.kind == StmtKind::Task && readsArgumentsAtEndOfTick(s.call.name);
          }))
        return;
    for (CoreConjunct& c : design_.core)
      if (c.body) visit(*c.body);
  }

 private:
  bool copiesResult(const TaskCall& call, const Stmt& next) const {
    if (next.kind != StmtKind::Assign || next.lhs.size() != 1) return false;
    const LValue& lv = next.lhs[0];
    if (lv.hasIndex || lv.hasPart) return false;
    const Var& target = design_.vars[lv.var];
    const Var& result = design_.vars[call.resultVar];
    if (target.kind != VarKind::Reg || target.depth > 0 || target.width != result.width || target.isReal)
      return false;
    if (next.rhs.text != result.ident && next.rhs.text != "$signed(" + result.ident + ")") return false;
    for (const TaskArgIr& arg : call.args) {
      if (arg.kind != TaskArgIrKind::Value) continue;
      if ((arg.writable && arg.target.var == lv.var) || (arg.wholeArray && arg.arrayVar == lv.var)) return false;
      for (const std::string& id : identifiersIn(arg.value.text))
        if (id == target.ident) return false;
    }
    return true;
  }

  void visit(Stmt& st) {
    for (size_t i = 0; i + 1 < st.body.size(); ++i) {
      Stmt& task = *st.body[i];
      if (task.kind != StmtKind::Task || task.call.resultVar < 0 || !copiesResult(task.call, *st.body[i + 1]))
        continue;
      design_.vars[task.call.resultVar].isLocal = true;
      task.call.resultVar = st.body[i + 1]->lhs[0].var;
      st.body[i + 1] = std::make_unique<Stmt>();
    }
    for (StmtPtr& c : st.body) visit(*c);
    for (Stmt* c : {st.thenStmt.get(), st.elseStmt.get(), st.loopBody.get()})
      if (c) visit(*c);
    for (CaseItem& item : st.items)
      if (item.body) visit(*item.body);
  }

  Design& design_;
};

}  // namespace

void writeTaskResultsToTargets(Design& design) { ResultRetargeter(design).run(); }

}  // namespace synergy::hwlower
