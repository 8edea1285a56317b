//===- FlattenBlocks.cpp - Flatten fork/join and nested begin/end ---------===//
//
// Paper Fig. 3, first step. A fork/join is replaced by begin/end, because
// running its branches in order is a valid schedule of them. A begin/end
// nested in another block is spliced into its parent, because nesting
// implies no scheduling constraint. No-op statements disappear.
//
// Runs on the frontend's processes, before any other pass.
// Guarantees: no Block has a Block or Nop child; isFork is false everywhere.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

namespace synergy::hwlower {

static void flatten(StmtPtr& st);

static void spliceInto(std::vector<StmtPtr>& out, StmtPtr st) {
  flatten(st);
  if (st->kind == StmtKind::Nop) return;
  if (st->kind == StmtKind::Block) {
    for (StmtPtr& child : st->body) out.push_back(std::move(child));
    return;
  }
  out.push_back(std::move(st));
}

static void flatten(StmtPtr& st) {
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

void flattenBlocks(Design& design) {
  for (Process& p : design.processes) flatten(p.body);
}

}  // namespace synergy::hwlower
