//===- FlattenBlocks.cpp - Flatten fork/join and nested begin/end ---------===//
//
// Paper Fig. 3, first step. A fork/join is replaced by begin/end, because
// running its branches in order is a valid schedule of them. A begin/end
// nested in another block is spliced into its parent, because nesting
// implies no scheduling constraint, unless it is a named block that a
// `disable` of the same process names (its end is a jump target). No-op
// statements disappear.
//
// Runs on the frontend's processes, before any other pass.
// Guarantees: no Block has a Nop child, nor a Block child other than a
// disable target; isFork is false everywhere.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <set>

namespace synergy::hwlower {

namespace {

class BlockFlattener {
 public:
  void run(Process& p) {
    disableTargets_.clear();
    if (p.body) collectDisableTargets(*p.body);
    flatten(p.body);
  }

 private:
  void collectDisableTargets(const Stmt& st) {
    if (st.kind == StmtKind::Disable) disableTargets_.insert(st.label);
    for (const StmtPtr& c : st.body) collectDisableTargets(*c);
    for (const Stmt* c : {st.thenStmt.get(), st.elseStmt.get(), st.loopBody.get()})
      if (c) collectDisableTargets(*c);
    for (const CaseItem& item : st.items)
      if (item.body) collectDisableTargets(*item.body);
  }

  void spliceInto(std::vector<StmtPtr>& out, StmtPtr st) {
    flatten(st);
    if (st->kind == StmtKind::Nop) return;
    if (st->kind == StmtKind::Block && !disableTargets_.count(st->label)) {
      for (StmtPtr& child : st->body) out.push_back(std::move(child));
      return;
    }
    out.push_back(std::move(st));
  }

  void flatten(StmtPtr& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::Block: {
        std::vector<StmtPtr> flat;
        for (StmtPtr& child : st->body) spliceInto(flat, std::move(child));
        st->body = std::move(flat);
        st->isFork = false;
        if (st->body.empty()) st->kind = StmtKind::Nop;
        break;
      }
      case StmtKind::If:
        flatten(st->thenStmt);
        flatten(st->elseStmt);
        break;
      case StmtKind::Case:
        for (CaseItem& item : st->items) flatten(item.body);
        break;
      case StmtKind::While:
      case StmtKind::Delay:
      case StmtKind::EventWait:
        flatten(st->loopBody);
        break;
      default:
        break;
    }
  }

  // Labels named by a disable in the process being flattened.
  std::set<std::string> disableTargets_;
};

}  // namespace

void flattenBlocks(Design& design) {
  BlockFlattener flattener;
  for (Process& p : design.processes) flattener.run(p);
}

}  // namespace synergy::hwlower
