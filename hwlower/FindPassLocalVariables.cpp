//===- FindPassLocalVariables.cpp - Registers dead at every pass start ----===//
//
// Every register gets a state-access read arm and write arm so the runtime
// can save and restore it, which costs logic per bit and keeps the register
// a flip-flop even where the design never needs its old value. Temporaries
// such as bitcoin's `s0`, `t1`, `maj` are written before they are read in
// every process that uses them: their value never crosses a pass, so no
// saved value could matter and synthesis may keep them as wires. This pass
// finds such registers; the emitter gives them no state-access arms (the
// runtime reads them as 0 and its writes are dropped, as for nets).
//
// A register qualifies when, in every conjunct, each read follows a write of
// the whole register on every path from the conjunct's start (a must-write
// analysis: an if or case keeps what all branches write, a loop what its
// initialization writes). It must not be touched by continuous logic,
// functions, guards, NBA commits or tasks (the runtime reads and writes
// those by id), and no conjunct using it may suspend at an event control or
// leave a block by `disable` (both break the straight-line order).
//
// Runs after lowerTaskArguments (task reads are argument registers or
// listed by id) and before lowerCoreToStateMachine (the statement tree is
// still structured).
// Guarantees: Var::passLocal is set only for such registers.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <map>

namespace synergy::hwlower {

namespace {

class PassLocalFinder {
 public:
  explicit PassLocalFinder(Design& design)
      : design_(design), varOfIdent_(variablesByIdent(design)) {}

  void run() {
    for (size_t v = 0; v < design_.vars.size(); ++v) {
      const Var& var = design_.vars[v];
      if (var.kind != VarKind::Reg || var.depth > 0 || var.inFunction || var.isLocal || var.isReal ||
          int(v) == design_.clockVar)
        live_.insert(int(v));
    }
    excludeTouchedOutsideCore();
    for (const CoreConjunct& c : design_.core) {
      if (!c.body) continue;
      bool straight = c.resumeVar < 0 &&
                      !anyStatement(*c.body, [](const Stmt& s) { return s.kind == StmtKind::Disable; });
      if (!straight) {
        forEachRead(*c.body, [&](int v) { live_.insert(v); });
        continue;
      }
      std::set<int> written;
      analyze(*c.body, written);
    }
    for (size_t v = 0; v < design_.vars.size(); ++v)
      design_.vars[v].passLocal = !live_.count(int(v));
  }

 private:
  void excludeText(const std::string& text) {
    for (const std::string& id : identifiersIn(text))
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) live_.insert(it->second);
  }

  void excludeTouchedOutsideCore() {
    for (const std::string& text : design_.netlist) excludeText(text);
    for (const std::string& text : design_.functions) excludeText(text);
    for (const std::string& text : design_.passStart) excludeText(text);
    excludeText(design_.guardChanged);
    for (const NbaCommit& commit : design_.nbaCommits) excludeText(commit.commitText);
    for (const StmtPtr& block : design_.combinationalBlocks) {
      forEachExprText(*block, [&](const std::string& text) { excludeText(text); });
      forEachWrite(*block, [&](int v) { live_.insert(v); });
    }
    for (const CoreConjunct& c : design_.core) {
      for (const EventTerm& t : c.guard) live_.insert(t.var);
      for (const std::vector<EventTerm>& wait : c.waits)
        for (const EventTerm& t : wait) live_.insert(t.var);
    }
    for (const Task& t : design_.tasks) {
      live_.insert(int(t.resultId));
      for (const TaskArg& a : t.args) {
        live_.insert(int(a.stateId));
        live_.insert(int(a.indexStateId));
      }
    }
  }

  template <typename Fn>
  void forEachWrite(const Stmt& st, Fn fn) {
    anyStatement(st, [&](const Stmt& s) {
      for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()})
        if (a)
          for (const LValue& lv : a->lhs) fn(lv.var);
      return false;
    });
  }

  template <typename Fn>
  void forEachIdentRead(const std::string& text, Fn fn) {
    for (const std::string& id : identifiersIn(text))
      if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) fn(it->second);
  }

  // The reads of `st` itself, not of the statements nested in it.
  template <typename Fn>
  void readsOf(const Stmt& st, Fn fn) {
    if (st.kind == StmtKind::Assign) forEachIdentRead(st.rhs.text, fn);
    for (const LValue& lv : st.lhs) {
      if (lv.hasIndex) forEachIdentRead(lv.index.text, fn);
      if (lv.hasPart) forEachIdentRead(lv.partOffset.text, fn);
      // A partial write keeps the other bits: it reads the register.
      if (lv.hasIndex || lv.hasPart) fn(lv.var);
    }
    if (st.kind == StmtKind::If || st.kind == StmtKind::While || st.kind == StmtKind::Case)
      forEachIdentRead(st.cond.text, fn);
    for (const CaseItem& item : st.items)
      for (const Expr& label : item.labels) forEachIdentRead(label.text, fn);
    if (st.kind == StmtKind::Raw) forEachIdentRead(st.rawText, fn);
    if (st.kind == StmtKind::Task)
      for (const TaskArgIr& arg : st.call.args) {
        forEachIdentRead(arg.value.text, fn);
        if (arg.writable && arg.target.hasIndex) forEachIdentRead(arg.target.index.text, fn);
      }
  }

  template <typename Fn>
  void forEachRead(const Stmt& st, Fn fn) {
    anyStatement(st, [&](const Stmt& s) {
      for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()})
        if (a) readsOf(*a, fn);
      return false;
    });
  }

  void readWith(const Stmt& st, const std::set<int>& written) {
    readsOf(st, [&](int v) {
      if (!written.count(v)) live_.insert(v);
    });
  }

  static void addWrites(const Stmt& st, std::set<int>& written) {
    if (st.kind != StmtKind::Assign) return;
    for (const LValue& lv : st.lhs)
      if (!lv.hasIndex && !lv.hasPart) written.insert(lv.var);
  }

  static std::set<int> intersect(const std::set<int>& a, const std::set<int>& b) {
    std::set<int> both;
    for (int v : a)
      if (b.count(v)) both.insert(v);
    return both;
  }

  // Marks as live every register `st` may read before writing it, given the
  // registers `written` on every path so far; adds what `st` always writes.
  void analyze(const Stmt& st, std::set<int>& written) {
    switch (st.kind) {
      case StmtKind::Block:
        for (const StmtPtr& c : st.body) analyze(*c, written);
        return;
      case StmtKind::If: {
        readWith(st, written);
        std::set<int> thenWritten = written, elseWritten = written;
        if (st.thenStmt) analyze(*st.thenStmt, thenWritten);
        if (st.elseStmt) analyze(*st.elseStmt, elseWritten);
        written = intersect(thenWritten, elseWritten);
        return;
      }
      case StmtKind::Case: {
        readWith(st, written);
        std::set<int> all;
        bool first = true, hasDefault = false;
        for (const CaseItem& item : st.items) {
          hasDefault |= item.labels.empty();
          std::set<int> armWritten = written;
          if (item.body) analyze(*item.body, armWritten);
          all = first ? armWritten : intersect(all, armWritten);
          first = false;
        }
        if (!first && hasDefault) written = all;
        return;
      }
      case StmtKind::While: {
        std::set<int> inLoop = written;
        if (st.forInit) {
          readWith(*st.forInit, inLoop);
          addWrites(*st.forInit, inLoop);
        }
        readWith(st, inLoop);
        std::set<int> afterEntry = inLoop;
        if (st.loopBody) analyze(*st.loopBody, inLoop);
        if (st.forStep) readWith(*st.forStep, inLoop);
        written = afterEntry;
        return;
      }
      default:
        readWith(st, written);
        addWrites(st, written);
        return;
    }
  }

  Design& design_;
  std::map<std::string, int> varOfIdent_;
  std::set<int> live_;
};

}  // namespace

void findPassLocalVariables(Design& design) { PassLocalFinder(design).run(); }

}  // namespace synergy::hwlower
