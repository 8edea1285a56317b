//===- KeepCombinationalBlocks.cpp - @* blocks stay combinational logic ---===//
//
// Merged into the core, an `always @*` block becomes a conjunct fired by
// `__any_` edge detectors: its outputs turn into host-writable registers,
// every input gets a whole-width `__prev_` copy, and every input change costs
// the core an extra pass. But such a block computes derived state: its
// outputs are a function of the current inputs, so the engine needs neither
// to store nor to save them. This pass takes the blocks that are really
// combinational out of the process list and emits them as they were, as
// `always @*` beside the continuous assigns, whose outputs (VarKind::CombReg)
// are readable by state id like nets and, like nets, never written or saved.
//
// A block qualifies when
//   - its guard is level events only, covering every variable it reads
//     other than those it writes, or the variables driving it through
//     continuous assigns (a true @*, not a latch on some input);
//   - its body is assignments, if/case and counted `for` loops only (no
//     system task or function, no wait, no NBA, no disable);
//   - each variable it writes is a non-real scalar that no other process,
//     function or continuous assign writes, is fully assigned before it is
//     read, and is fully assigned on every path (no latch);
//   - the functions it calls read only their own arguments and locals;
//   - no variable it reads, directly or through continuous assigns and
//     other such blocks, is written by a blocking assignment or a task of
//     some process, except a constant assignment at the start of an initial
//     block. In vvp such a block runs only when the writing process yields,
//     so that process still sees the old outputs after the write, for
//     instance in a $display argument read at the trap; combinational
//     logic would show the new ones. NBAs land between passes, where vvp
//     would run the block before anything else could see its outputs.
// A block that does not qualify is merged into the core as before.
//
// Runs after foldConstantVariables (constant registers are nets by then)
// and before mergeProcessesIntoCore.
// Guarantees: Design::combinationalBlocks holds the bodies taken out of
// Design::processes; the variables they write are VarKind::CombReg.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>
#include <set>

namespace synergy::hwlower {

namespace {

using VarSet = std::set<int>;

class CombinationalExtractor {
 public:
  explicit CombinationalExtractor(Design& design) : d_(design), varOfIdent_(variablesByIdent(design)) {
    for (const std::string& f : d_.functions) readFunction(f);
    for (const std::string& a : d_.netlist) readAssign(a);
  }

  void run() {
    std::vector<Block> blocks;
    for (size_t p = 0; p < d_.processes.size(); ++p) {
      Block b;
      b.process = p;
      if (analyze(d_.processes[p], b)) blocks.push_back(std::move(b));
    }
    // Writers of each variable, so each block checks that it writes alone.
    std::map<int, std::set<size_t>> writers;
    for (size_t p = 0; p < d_.processes.size(); ++p) {
      VarSet written;
      collectWrites(d_.processes[p].body.get(), written, /*includeNba=*/true);
      for (int v : written) writers[v].insert(p);
    }
    std::vector<Block> kept;
    for (Block& b : blocks) {
      bool alone = true;
      for (int v : b.writes) alone &= writers[v].size() == 1 && !writtenOutsideProcesses_.count(v);
      if (alone) kept.push_back(std::move(b));
    }
    // A block rejected below goes back to the core, where its writes are
    // blocking ones that other blocks must not depend on: iterate.
    for (bool changed = true; changed;) {
      changed = false;
      std::set<size_t> combProcesses;
      for (const Block& b : kept) combProcesses.insert(b.process);
      VarSet blocking;
      for (size_t p = 0; p < d_.processes.size(); ++p)
        if (!combProcesses.count(p)) collectBlockingWrites(d_.processes[p], blocking);
      std::map<int, const Block*> blockOf;
      for (const Block& b : kept)
        for (int v : b.writes) blockOf[v] = &b;
      for (size_t i = 0; i < kept.size(); ++i) {
        if (!dependsOn(kept[i], blockOf, blocking)) continue;
        kept.erase(kept.begin() + long(i));
        changed = true;
        break;
      }
    }
    std::set<size_t> taken;
    for (const Block& b : kept) {
      taken.insert(b.process);
      for (int v : b.writes) d_.vars[v].kind = VarKind::CombReg;
    }
    std::vector<Process> rest;
    for (size_t p = 0; p < d_.processes.size(); ++p) {
      if (taken.count(p))
        d_.combinationalBlocks.push_back(std::move(d_.processes[p].body));
      else
        rest.push_back(std::move(d_.processes[p]));
    }
    d_.processes = std::move(rest);
  }

 private:
  struct Block {
    size_t process = 0;
    VarSet writes;
    VarSet inputs;  // read before written inside the block
  };

  // Function return values and locals are not module variables; a function
  // that names module variables disqualifies every block calling it, and
  // (it might assign them) every block writing them.
  void readFunction(const std::string& text) {
    std::vector<std::string> ids = identifiersIn(text);
    if (ids.size() < 2 || ids[0] != "function") return;
    size_t nameAt = 1;
    while (nameAt < ids.size() && (ids[nameAt] == "signed" || ids[nameAt] == "integer")) ++nameAt;
    if (nameAt == ids.size()) return;
    bool pure = true;
    for (const std::string& id : ids) {
      auto it = varOfIdent_.find(id);
      if (it == varOfIdent_.end()) continue;
      pure = false;
      writtenOutsideProcesses_.insert(it->second);
    }
    functions_[ids[nameAt]] = pure;
  }

  // `assign lhs = rhs;`: every variable of the left side depends on every
  // variable of the right side.
  void readAssign(const std::string& text) {
    size_t eq = text.find('=');
    if (eq == std::string::npos) return;
    VarSet lhs, rhs;
    for (const std::string& id : identifiersIn(text.substr(0, eq)))
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) lhs.insert(it->second);
    for (const std::string& id : identifiersIn(text.substr(eq + 1)))
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) rhs.insert(it->second);
    for (int v : lhs) {
      writtenOutsideProcesses_.insert(v);
      netInputs_[v].insert(rhs.begin(), rhs.end());
    }
  }

  // The variables `text` reads; false when it calls an impure function.
  bool readsOf(const std::string& text, VarSet& reads) const {
    for (const std::string& id : identifiersIn(text)) {
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) {
        reads.insert(it->second);
        continue;
      }
      auto f = functions_.find(id);
      if (f != functions_.end() && !f->second) return false;
    }
    return true;
  }

  // Checks the reads of `text` against the variables assigned so far.
  bool readAt(const std::string& text, const VarSet& assigned, Block& b) const {
    VarSet reads;
    if (!readsOf(text, reads)) return false;
    for (int v : reads) {
      if (!b.writes.count(v)) {
        b.inputs.insert(v);
      } else if (!assigned.count(v)) {
        return false;
      }
    }
    return true;
  }

  // Definite assignment over the body: `assigned` holds the variables fully
  // written on every path so far. False when something disqualifies.
  bool walk(const Stmt* st, VarSet& assigned, Block& b) const {
    if (!st) return true;
    switch (st->kind) {
      case StmtKind::Nop:
        return true;
      case StmtKind::Block:
        if (st->isFork || !st->label.empty()) return false;
        for (const StmtPtr& c : st->body)
          if (!walk(c.get(), assigned, b)) return false;
        return true;
      case StmtKind::Assign: {
        if (!readAt(st->rhs.text, assigned, b)) return false;
        for (const LValue& lv : st->lhs) {
          if (lv.hasIndex || (lv.hasPart && !readAt(lv.partOffset.text, assigned, b))) return false;
          // A part write keeps the other bits: only a whole write assigns.
          if (lv.hasPart && !assigned.count(lv.var)) return false;
        }
        for (const LValue& lv : st->lhs) assigned.insert(lv.var);
        return true;
      }
      case StmtKind::If: {
        if (!readAt(st->cond.text, assigned, b)) return false;
        VarSet thenAssigned = assigned, elseAssigned = assigned;
        if (!walk(st->thenStmt.get(), thenAssigned, b) || !walk(st->elseStmt.get(), elseAssigned, b))
          return false;
        assigned = intersect(thenAssigned, elseAssigned);
        return true;
      }
      case StmtKind::Case: {
        if (!readAt(st->cond.text, assigned, b)) return false;
        bool hasDefault = false;
        VarSet out;
        bool first = true;
        for (const CaseItem& item : st->items) {
          for (const Expr& label : item.labels)
            if (!readAt(label.text, assigned, b)) return false;
          hasDefault |= item.labels.empty();
          VarSet arm = assigned;
          if (!walk(item.body.get(), arm, b)) return false;
          out = first ? arm : intersect(out, arm);
          first = false;
        }
        // Without a default some subject matches no arm and assigns nothing.
        if (hasDefault && !first) assigned = out;
        return true;
      }
      case StmtKind::While: {
        if (!st->forInit || !st->forStep) return false;
        if (!walk(st->forInit.get(), assigned, b)) return false;
        if (!readAt(st->cond.text, assigned, b)) return false;
        // The body may run zero times: what it assigns is not definite.
        VarSet inLoop = assigned;
        return walk(st->loopBody.get(), inLoop, b) && walk(st->forStep.get(), inLoop, b);
      }
      default:
        return false;
    }
  }

  static VarSet intersect(const VarSet& a, const VarSet& b) {
    VarSet out;
    for (int v : a)
      if (b.count(v)) out.insert(v);
    return out;
  }

  bool analyze(const Process& p, Block& b) {
    if (p.kind != ProcessKind::Always || p.guard.empty() || !p.body) return false;
    for (const EventTerm& t : p.guard)
      if (t.edge != EdgeKind::Any) return false;
    collectWrites(p.body.get(), b.writes, /*includeNba=*/true);
    if (b.writes.empty()) return false;
    for (int v : b.writes) {
      const Var& var = d_.vars[v];
      if (var.kind != VarKind::Reg || var.depth > 0 || var.isReal || var.inFunction || v == d_.clockVar)
        return false;
    }
    VarSet assigned;
    if (!walk(p.body.get(), assigned, b)) return false;
    for (int v : b.writes)
      if (!assigned.count(v)) return false;
    VarSet guard;
    for (const EventTerm& t : p.guard) guard.insert(t.var);
    for (int v : b.inputs)
      if (!covered(v, guard)) return false;
    return true;
  }

  // Icarus puts the variables driving a port net in the guard, not the net.
  bool covered(int v, const VarSet& guard, unsigned depth = 0) const {
    if (guard.count(v)) return true;
    auto it = netInputs_.find(v);
    if (it == netInputs_.end() || depth > d_.netlist.size()) return false;
    for (int in : it->second)
      if (!covered(in, guard, depth + 1)) return false;
    return true;
  }

  static void collectWrites(const Stmt* st, VarSet& out, bool includeNba) {
    if (!st) return;
    if (st->kind == StmtKind::Assign || (includeNba && st->kind == StmtKind::NbAssign))
      for (const LValue& lv : st->lhs) out.insert(lv.var);
    if (st->kind == StmtKind::Task) {
      if (st->call.resultVar >= 0) out.insert(st->call.resultVar);
      for (const TaskArgIr& a : st->call.args) {
        if (a.writable && a.target.var >= 0) out.insert(a.target.var);
        if (a.arrayVar >= 0) out.insert(a.arrayVar);
      }
    }
    for (const StmtPtr& c : st->body) collectWrites(c.get(), out, includeNba);
    for (const CaseItem& item : st->items) collectWrites(item.body.get(), out, includeNba);
    for (const Stmt* c : {st->thenStmt.get(), st->elseStmt.get(), st->loopBody.get(),
                          st->forInit.get(), st->forStep.get()})
      collectWrites(c, out, includeNba);
  }

  // Blocking writes of a process, except the constant assignments that
  // open an initial block (they happen at time 0, before any output of a
  // combinational block could be observed as anything but unknown).
  static void collectBlockingWrites(const Process& p, VarSet& out) {
    const Stmt* body = p.body.get();
    if (p.kind == ProcessKind::Initial && body && body->kind == StmtKind::Block) {
      size_t i = 0;
      for (; i < body->body.size(); ++i) {
        const Stmt& c = *body->body[i];
        if (c.kind == StmtKind::Nop) continue;
        if (c.kind != StmtKind::Assign || !c.rhs.isConstant) break;
      }
      for (; i < body->body.size(); ++i) collectWrites(body->body[i].get(), out, /*includeNba=*/false);
      return;
    }
    if (p.kind == ProcessKind::Initial && body && body->kind == StmtKind::Assign && body->rhs.isConstant)
      return;
    collectWrites(body, out, /*includeNba=*/false);
  }

  // Whether a block's inputs, followed through continuous assigns and other
  // combinational blocks, reach a variable in `blocking`.
  bool dependsOn(const Block& b, const std::map<int, const Block*>& blockOf, const VarSet& blocking) const {
    VarSet seen;
    std::vector<int> work(b.inputs.begin(), b.inputs.end());
    while (!work.empty()) {
      int v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      if (blocking.count(v)) return true;
      if (auto it = netInputs_.find(v); it != netInputs_.end()) work.insert(work.end(), it->second.begin(), it->second.end());
      if (auto it = blockOf.find(v); it != blockOf.end() && it->second != &b)
        work.insert(work.end(), it->second->inputs.begin(), it->second->inputs.end());
    }
    return false;
  }

  Design& d_;
  std::map<std::string, int> varOfIdent_;
  std::map<std::string, bool> functions_;  // name -> reads only its own variables
  std::map<int, VarSet> netInputs_;
  VarSet writtenOutsideProcesses_;
};

}  // namespace

void keepCombinationalBlocks(Design& design) { CombinationalExtractor(design).run(); }

}  // namespace synergy::hwlower
