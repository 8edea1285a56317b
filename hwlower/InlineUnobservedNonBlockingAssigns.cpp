//===- InlineUnobservedNonBlockingAssigns.cpp - NBAs nobody sees early ----===//
//
// lowerNonBlockingAssigns gives every NBA target a shadow register and a
// pending flag, which doubles the flip-flops of a register like df's
// `x <= next_x`. The shadow only matters if something can observe the
// target between the assignment and the commit at the end of the tick. This
// pass turns `x <= e` into `x = e` when nothing can:
//   - the site is the only NBA to x, x is a plain register (not a memory,
//     not the clock), and every other write of x is in an initial process
//     that runs before the site's process (declaration initializers);
//   - its process runs at most once a tick: its guard is edges of the clock
//     only, and it has no event controls in its body;
//   - no later statement of that process (in program order, the site not
//     inside a loop) and no other process, task argument read later
//     ($strobe, $monitor), function body or event reads x or anything
//     continuous logic derives from x.
// Then every read of x in the tick happens before the site, exactly as with
// the NBA, and the value x holds after the tick is the same.
//
// Runs after replaceGuardsWithNativeClock (conjuncts are final), before
// lowerNonBlockingAssigns. Designs under $yield keep every shadow: there a
// volatile register may be dropped, while its shadow is always saved.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>

namespace synergy::hwlower {

namespace {

class NbaInliner {
 public:
  explicit NbaInliner(Design& design) : design_(design), varOfIdent_(variablesByIdent(design)) {}

  void run() {
    if (design_.usesYield || design_.clockVar < 0) return;
    for (size_t k = 0; k < design_.core.size(); ++k)
      if (design_.core[k].body) findWrites(*design_.core[k].body, int(k));
    for (const StmtPtr& block : design_.combinationalBlocks) findWrites(*block, -1);
    for (auto& [v, writes] : sites_) {
      const Write* site = nullptr;
      for (const Write& w : writes)
        if (w.site && !site) site = &w;
      if (!site || site->conjunct < 0) continue;
      // Blocking writes that all happen before the site (runsFirst) cannot
      // undo it; another NBA would commit after it.
      bool othersFirst = true;
      for (const Write& w : writes)
        if (&w != site && (w.nonBlocking || !runsFirst(w.conjunct, site->conjunct))) othersFirst = false;
      if (othersFirst && canInline(v, *site)) site->site->kind = StmtKind::Assign;
    }
  }

  // Conjunct k is an initial process without event controls placed before
  // `owner`: it runs to its end in the first pass, where it comes before
  // the owner, and never again, so it reads and writes x only before the
  // site does.
  bool runsFirst(int k, int owner) const {
    return k >= 0 && k < owner && design_.core[k].isInitial && design_.core[k].resumeVar < 0;
  }

  struct Write {
    Stmt* site = nullptr;  // a whole-variable NBA, or null for any other write
    bool nonBlocking = false;
    int conjunct = -1;
  };

  void findWrites(Stmt& root, int conjunct) {
    anyStatement(root, [&](const Stmt& s) {
      Stmt& st = const_cast<Stmt&>(s);
      for (Stmt* a : {&st, st.forInit.get(), st.forStep.get()}) {
        if (!a) continue;
        bool wholeNba = a->kind == StmtKind::NbAssign && a->lhs.size() == 1 && !a->lhs[0].hasIndex &&
                        !a->lhs[0].hasPart;
        for (const LValue& lv : a->lhs)
          sites_[lv.var].push_back({wholeNba ? a : nullptr, a->kind == StmtKind::NbAssign, conjunct});
      }
      if (st.kind == StmtKind::Task)
        for (const TaskArgIr& arg : st.call.args) {
          if (arg.writable) sites_[arg.target.var].push_back({nullptr, false, conjunct});
          if (arg.wholeArray) sites_[arg.arrayVar].push_back({nullptr, false, conjunct});
        }
      return false;
    });
  }

  bool mentions(const std::string& text) const {
    for (const std::string& id : identifiersIn(text))
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end() && observed_.count(it->second))
        return true;
    return false;
  }

  bool canInline(int v, const Write& write) {
    const Var& var = design_.vars[v];
    if (var.kind != VarKind::Reg || var.depth > 0 || v == design_.clockVar) return false;
    const CoreConjunct& owner = design_.core[write.conjunct];
    if (owner.isInitial || owner.resumeVar >= 0 || owner.guard.empty()) return false;
    for (const EventTerm& t : owner.guard)
      if (t.var != design_.clockVar) return false;
    observed_ = derivedFrom(design_, {v});
    for (const CoreConjunct& c : design_.core) {
      for (const EventTerm& t : c.guard)
        if (observed_.count(t.var)) return false;
      for (const std::vector<EventTerm>& wait : c.waits)
        for (const EventTerm& t : wait)
          if (observed_.count(t.var)) return false;
    }
    for (const std::string& f : design_.functions)
      if (mentions(f)) return false;
    for (size_t k = 0; k < design_.core.size(); ++k) {
      if (!design_.core[k].body) continue;
      seenSite_ = false;
      site_ = int(k) == write.conjunct ? write.site : nullptr;
      Order order = site_ ? Order::AfterSite : runsFirst(int(k), write.conjunct) ? Order::Never : Order::Always;
      if (readsLate(*design_.core[k].body, order)) return false;
    }
    return true;
  }

  bool readsTask(const TaskCall& call) const {
    for (const TaskArgIr& arg : call.args) {
      if (arg.kind != TaskArgIrKind::Value) continue;
      if (mentions(arg.value.text) || (arg.writable && arg.target.hasIndex && mentions(arg.target.index.text)))
        return true;
      if (arg.wholeArray && observed_.count(arg.arrayVar)) return true;
    }
    return false;
  }

  bool readsHere(const Stmt& st) const {
    bool reads = false;
    for (const Stmt* a : std::initializer_list<const Stmt*>{&st, st.forInit.get(), st.forStep.get()}) {
      if (!a) continue;
      if (a->kind == StmtKind::Assign || a->kind == StmtKind::NbAssign) reads |= mentions(a->rhs.text);
      for (const LValue& lv : a->lhs)
        reads |= (lv.hasIndex && mentions(lv.index.text)) || (lv.hasPart && mentions(lv.partOffset.text));
    }
    if (st.kind == StmtKind::If || st.kind == StmtKind::While || st.kind == StmtKind::Case)
      reads |= mentions(st.cond.text);
    for (const CaseItem& item : st.items)
      for (const Expr& label : item.labels) reads |= mentions(label.text);
    if (st.kind == StmtKind::Raw) reads |= mentions(st.rawText);
    if (st.kind == StmtKind::Task) reads |= readsTask(st.call);
    return reads;
  }

  // Which reads of a conjunct may come after the site in the same tick:
  // all of them, those after the site (the site's own conjunct), or none
  // (runsFirst).
  enum class Order { Always, AfterSite, Never };

  // Walks `root` in program order. Besides the reads `order` makes late, a
  // read anywhere in a loop around the site and one by a task that reads
  // its arguments at the end of the tick are late.
  bool readsLate(const Stmt& root, Order order) {
    // anyStatement visits in program order, so seenSite_ turns true exactly
    // for the statements after the site.
    return anyStatement(root, [&](const Stmt& st) {
      if (st.kind == StmtKind::While && site_ && anyStatement(st, [&](const Stmt& s) { return &s == site_; }))
        return true;
      if (st.kind == StmtKind::Task && readsArgumentsAtEndOfTick(st.call.name) && readsTask(st.call)) return true;
      bool late = order == Order::Always || (order == Order::AfterSite && seenSite_);
      if (late && readsHere(st)) return true;
      if (&st == site_) seenSite_ = true;
      return false;
    });
  }

  Design& design_;
  std::map<std::string, int> varOfIdent_;
  std::map<int, std::vector<Write>> sites_;
  std::set<int> observed_;
  const Stmt* site_ = nullptr;
  bool seenSite_ = false;
};

}  // namespace

void inlineUnobservedNonBlockingAssigns(Design& design) { NbaInliner(design).run(); }

}  // namespace synergy::hwlower
