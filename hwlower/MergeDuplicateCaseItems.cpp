//===- MergeDuplicateCaseItems.cpp - One item for `a, b: stmt` -------------===//
//
// Icarus hands the frontend `a, b: stmt` as one case item per label, each
// with its own copy of the statement. In the core those copies are not free:
// once the case is cut into states (it traps, as a `$fgetc` in a case arm
// does), every copy becomes its own states, and synthesis sees a second copy
// of the logic, chained after the first through the blocking __state mux, so
// it cannot share the two. Adjacent items whose bodies are the same
// statement are therefore merged into one item carrying both label lists.
// Only adjacent items: case takes the first matching item, so moving a
// label past an item with a different body could change which body runs; a
// default item (no labels) is never merged.
//
// Runs after writeTaskResultsToTargets, which makes the copies of a hoisted
// system function write the same register (before it, each copy has its own
// __result_k), and before lowerTaskArguments, so a merged trap gets one task
// id. Bodies are compared field by field, source locations excepted; copies
// that still differ somewhere (an event control's resume point, a result
// register) simply stay apart.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

namespace {

bool sameExpr(const Expr& a, const Expr& b) {
  return a.text == b.text && a.width == b.width && a.isSigned == b.isSigned && a.isReal == b.isReal;
}

bool sameLValue(const LValue& a, const LValue& b) {
  return a.var == b.var && a.hasIndex == b.hasIndex && sameExpr(a.index, b.index) && a.hasPart == b.hasPart &&
         sameExpr(a.partOffset, b.partOffset) && a.width == b.width;
}

bool sameStmt(const Stmt* a, const Stmt* b);

bool sameList(const std::vector<StmtPtr>& a, const std::vector<StmtPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameStmt(a[i].get(), b[i].get())) return false;
  return true;
}

bool sameCall(const TaskCall& a, const TaskCall& b) {
  if (a.name != b.name || a.scope != b.scope || a.resultVar != b.resultVar || a.taskId != b.taskId ||
      a.args.size() != b.args.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const TaskArgIr& x = a.args[i];
    const TaskArgIr& y = b.args[i];
    if (x.kind != y.kind || !sameExpr(x.value, y.value) || x.writable != y.writable ||
        !sameLValue(x.target, y.target) || x.wholeArray != y.wholeArray || x.arrayVar != y.arrayVar ||
        x.text != y.text)
      return false;
  }
  return true;
}

bool sameEvents(const std::vector<EventTerm>& a, const std::vector<EventTerm>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].edge != b[i].edge || a[i].var != b[i].var) return false;
  return true;
}

bool sameStmt(const Stmt* a, const Stmt* b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->isFork != b->isFork || !sameList(a->body, b->body) ||
      a->lhs.size() != b->lhs.size() || !sameExpr(a->rhs, b->rhs) || !sameExpr(a->cond, b->cond) ||
      !sameStmt(a->thenStmt.get(), b->thenStmt.get()) || !sameStmt(a->elseStmt.get(), b->elseStmt.get()) ||
      a->caseKind != b->caseKind || a->items.size() != b->items.size() ||
      !sameStmt(a->loopBody.get(), b->loopBody.get()) || !sameStmt(a->forInit.get(), b->forInit.get()) ||
      !sameStmt(a->forStep.get(), b->forStep.get()) || !sameCall(a->call, b->call) || a->delay != b->delay ||
      a->rawText != b->rawText || a->isForever != b->isForever || a->label != b->label ||
      !sameEvents(a->events, b->events) || a->waitId != b->waitId)
    return false;
  for (size_t i = 0; i < a->lhs.size(); ++i)
    if (!sameLValue(a->lhs[i], b->lhs[i])) return false;
  for (size_t i = 0; i < a->items.size(); ++i) {
    const CaseItem& x = a->items[i];
    const CaseItem& y = b->items[i];
    if (x.labels.size() != y.labels.size() || !sameStmt(x.body.get(), y.body.get())) return false;
    for (size_t l = 0; l < x.labels.size(); ++l)
      if (!sameExpr(x.labels[l], y.labels[l])) return false;
  }
  return true;
}

void mergeItems(Stmt& st) {
  for (StmtPtr& c : st.body)
    if (c) mergeItems(*c);
  for (StmtPtr* sub : {&st.thenStmt, &st.elseStmt, &st.loopBody, &st.forInit, &st.forStep})
    if (*sub) mergeItems(**sub);
  for (CaseItem& item : st.items)
    if (item.body) mergeItems(*item.body);
  if (st.kind != StmtKind::Case) return;
  std::vector<CaseItem> merged;
  for (CaseItem& item : st.items) {
    if (!merged.empty() && !merged.back().labels.empty() && !item.labels.empty() &&
        sameStmt(merged.back().body.get(), item.body.get())) {
      for (Expr& label : item.labels) merged.back().labels.push_back(std::move(label));
      continue;
    }
    merged.push_back(std::move(item));
  }
  st.items = std::move(merged);
}

}  // namespace

void mergeDuplicateCaseItems(Design& design) {
  for (CoreConjunct& c : design.core)
    if (c.body) mergeItems(*c.body);
}

}  // namespace synergy::hwlower
