//===- HoistPowerOnPrefixes.cpp - Initial-block prefixes run at power-on --===//
//
// Lowered into the core, an initial block runs in the first pass of tick 0
// like any other conjunct: each of its statements is state-machine logic
// that synthesis must build although it runs once. Loading a message block
// in bitcoin, or clearing mips32's register file in a loop, costs a write
// port on every element it touches. Yet such a prefix only computes the
// values the design starts from. This pass moves it out of the core into
// the emitted module's `initial` block (Design::powerOnStatements), which
// synthesis folds into the flip-flops' initial values and Verilator runs
// once at power-on.
//
// The power-on block runs before every process, so a prefix moves only when
// that reorders nothing: initial processes are taken in source order (the
// core's order at time 0), each for as long as its leading statements
// qualify, and the scan stops at the first statement that does not, for
// that process and all later ones. So everything that ran before a moved
// statement at time 0 moved too, in the same order; always blocks fire on
// events only, and none can fire in the first pass because the moved
// statements change no guard (see below).
//
// A statement qualifies when it is a blocking assignment, an if, a case, a
// counted `for` loop or a block of those, and
//   - it writes only whole registers or their parts and elements, none of
//     them a guard variable or a variable a guard is derived from (a guard's
//     `__prev_` copy starts from the register's old power-on value);
//   - synthesis can evaluate it at power-on. Yosys evaluates an initial
//     block only when each value it stores is a constant or a copy, so every
//     condition, index, loop bound and operand must be constant once the
//     loops around it are unrolled (constants, loop counters, the frontend's
//     width helpers, $signed and $unsigned), and an assigned value may also
//     be a whole register or a ROM element at such an index. A case on a
//     register known to hold a literal (a task's constant argument) is first
//     reduced to the arm it takes. A net that foldConstantVariables made
//     from a constant counts as that constant and is spelled as its literal,
//     because Verilator settles continuous logic only after the power-on
//     block; other nets, and register memories (whose elements have no
//     initial value for synthesis to read), do not qualify.
// Every register the moved statements touch gets its power-on value at the
// start of the block instead of in its declaration (two initial values of
// one register conflict in synthesis).
//
// Runs after keepCombinationalBlocks (combinational outputs are nets by
// then) and before mergeProcessesIntoCore. Guarantees: initial processes
// lost their moved prefixes, and those left empty are gone;
// Design::powerOnStatements holds the moved statements in order and
// Design::powerOnVars the registers whose power-on value they need.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace synergy::hwlower {

namespace {

class PowerOnHoister {
 public:
  explicit PowerOnHoister(Design& design) : d_(design), varOfIdent_(variablesByIdent(design)) {
    for (const Process& p : d_.processes) {
      for (const EventTerm& t : p.guard) guards_.insert(t.var);
      if (p.body) collectWaitedOn(*p.body);
    }
    for (const std::string& line : d_.netlist) noteConstantNet(line);
  }

  void run() {
    std::vector<Process> kept;
    bool scanning = true;
    for (Process& p : d_.processes) {
      if (scanning && p.kind == ProcessKind::Initial && p.body) scanning = hoistPrefix(p);
      bool emptied = p.kind == ProcessKind::Initial && p.body && p.body->kind == StmtKind::Block &&
                     p.body->body.empty();
      if (!emptied) kept.push_back(std::move(p));
    }
    d_.processes = std::move(kept);
  }

 private:
  void collectWaitedOn(const Stmt& st) {
    anyStatement(st, [&](const Stmt& s) {
      for (const EventTerm& t : s.events) guards_.insert(t.var);
      return false;
    });
  }

  // `assign n = <literal>;`, as foldConstantVariables writes a register set
  // once (a task's constant argument, say).
  void noteConstantNet(const std::string& line) {
    std::vector<std::string> ids = identifiersIn(line);
    size_t eq = line.find(" = ");
    if (ids.size() < 2 || ids[0] != "assign" || eq == std::string::npos || line.back() != ';') return;
    auto net = varOfIdent_.find(ids[1]);
    std::string literal = line.substr(eq + 3, line.size() - eq - 4);
    std::optional<uint64_t> value = literalValue(literal);
    if (net == varOfIdent_.end() || d_.vars[net->second].kind != VarKind::Wire || !value ||
        line.compare(0, eq, "assign " + ids[1]) != 0)
      return;
    constantNets_[ids[1]] = literal;
    if (d_.vars[net->second].width < 64) known_[net->second] = *value;
  }

  // Moves the qualifying leading statements of `p`; whether all of them did.
  bool hoistPrefix(Process& p) {
    if (p.body->kind != StmtKind::Block) {
      auto block = std::make_unique<Stmt>();
      block->kind = StmtKind::Block;
      block->loc = p.body->loc;
      block->body.push_back(std::move(p.body));
      p.body = std::move(block);
    }
    std::vector<StmtPtr>& body = p.body->body;
    size_t moved = 0;
    for (; moved < body.size(); ++moved) {
      Stmt& st = *body[moved];
      std::set<int> written = writtenBy(st);
      std::map<int, uint64_t> known = known_;
      for (int v : written) known.erase(v);
      selectConstantCases(st, known);
      if (!qualifies(st, {})) break;
      for (int v : written) known_.erase(v);
      if (st.kind == StmtKind::Assign && st.lhs.size() == 1 && st.rhs.isConstant) noteConstant(st);
      noteVariables(st);
    }
    for (size_t i = 0; i < moved; ++i) {
      spellConstantNets(*body[i]);
      d_.powerOnStatements.push_back(std::move(body[i]));
    }
    body.erase(body.begin(), body.begin() + long(moved));
    return body.empty();
  }

  static std::set<int> writtenBy(const Stmt& st) {
    std::set<int> written;
    anyStatement(st, [&](const Stmt& s) {
      for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()})
        if (a)
          for (const LValue& lv : a->lhs) written.insert(lv.var);
      return false;
    });
    return written;
  }

  // Verilator runs the power-on block before it settles continuous logic, so
  // a constant net must be read as its literal there.
  void spellConstantNets(Stmt& st) {
    auto spell = [&](Expr& e) {
      for (const std::string& id : identifiersIn(e.text))
        if (auto net = constantNets_.find(id); net != constantNets_.end())
          e.text = renameIdentifier(e.text, id, net->second);
    };
    std::function<void(Stmt&)> visit = [&](Stmt& s) {
      spell(s.rhs);
      spell(s.cond);
      for (LValue& lv : s.lhs) {
        spell(lv.index);
        spell(lv.partOffset);
      }
      for (CaseItem& item : s.items)
        for (Expr& label : item.labels) spell(label);
      for (StmtPtr& c : s.body) visit(*c);
      for (Stmt* c : {s.thenStmt.get(), s.elseStmt.get(), s.loopBody.get(), s.forInit.get(), s.forStep.get()})
        if (c) visit(*c);
      for (CaseItem& item : s.items)
        if (item.body) visit(*item.body);
    };
    visit(st);
  }

  // Records the value a whole scalar register holds after `v = <literal>`.
  void noteConstant(const Stmt& st) {
    const LValue& lv = st.lhs[0];
    const Var& v = d_.vars[lv.var];
    std::optional<uint64_t> value = literalValue(st.rhs.text);
    if (lv.hasIndex || lv.hasPart || v.depth > 0 || v.width >= 64 || !value) return;
    known_[lv.var] = *value & ((uint64_t(1) << v.width) - 1);
  }

  // Replaces every `case` on a register of known value by the arm it takes.
  // Synthesis evaluates a power-on statement only when all that decides its
  // values is constant, and the frontend passes a task's constant argument
  // through a register (`which = 0; case (which) ...`). Values and labels
  // must be non-negative in every width, so that extension cannot matter.
  void selectConstantCases(Stmt& st, const std::map<int, uint64_t>& known) {
    for (StmtPtr& c : st.body) selectConstantCases(*c, known);
    for (Stmt* c : {st.thenStmt.get(), st.elseStmt.get(), st.loopBody.get()})
      if (c) selectConstantCases(*c, known);
    for (CaseItem& item : st.items)
      if (item.body) selectConstantCases(*item.body, known);
    if (st.kind != StmtKind::Case || st.caseKind != CaseKind::Case || st.cond.wholeVar < 0) return;
    auto value = known.find(st.cond.wholeVar);
    if (value == known.end() || !nonNegative(value->second, d_.vars[st.cond.wholeVar].width)) return;
    CaseItem* taken = nullptr;
    for (CaseItem& item : st.items) {
      if (item.labels.empty() && !taken) taken = &item;
      for (const Expr& label : item.labels) {
        std::optional<uint64_t> l = literalValue(label.text);
        if (!label.isConstant || !l || !nonNegative(*l, label.width)) return;
        if (*l == value->second && (!taken || taken->labels.empty())) taken = &item;
      }
    }
    StmtPtr arm = taken && taken->body ? std::move(taken->body) : std::make_unique<Stmt>();
    st = std::move(*arm);
  }

  static bool nonNegative(uint64_t value, unsigned width) {
    return width > 1 && width <= 64 && value < (uint64_t(1) << (width - 1));
  }

  // `loopVars` are the counters of the loops around `st`, which synthesis
  // unrolls into constants.
  bool qualifies(const Stmt& st, const std::set<int>& loopVars) {
    switch (st.kind) {
      case StmtKind::Nop:
        return true;
      case StmtKind::Block:
        if (st.isFork) return false;
        for (const StmtPtr& c : st.body)
          if (!qualifies(*c, loopVars)) return false;
        return true;
      case StmtKind::Assign:
        for (const LValue& lv : st.lhs)
          if (!writable(lv, loopVars)) return false;
        return constant(st.rhs, loopVars) || plainRead(st.rhs, loopVars);
      case StmtKind::If:
        return constant(st.cond, loopVars) && (!st.thenStmt || qualifies(*st.thenStmt, loopVars)) &&
               (!st.elseStmt || qualifies(*st.elseStmt, loopVars));
      case StmtKind::Case:
        if (!constant(st.cond, loopVars)) return false;
        for (const CaseItem& item : st.items) {
          for (const Expr& label : item.labels)
            if (!constant(label, loopVars)) return false;
          if (item.body && !qualifies(*item.body, loopVars)) return false;
        }
        return true;
      case StmtKind::While:
        return countedLoopQualifies(st, loopVars);
      default:
        return false;
    }
  }

  // A `for` from a constant, stepping and testing its counter alone, whose
  // body leaves the counter alone.
  bool countedLoopQualifies(const Stmt& st, std::set<int> loopVars) {
    if (!st.forInit || !st.forStep || !st.loopBody || st.forInit->lhs.size() != 1) return false;
    int counter = st.forInit->lhs[0].var;
    if (!qualifies(*st.forInit, loopVars) || !constant(st.forInit->rhs, loopVars)) return false;
    loopVars.insert(counter);
    if (st.forStep->lhs.size() != 1 || st.forStep->lhs[0].var != counter || !constant(st.forStep->rhs, loopVars) ||
        !constant(st.cond, loopVars) || !writable(st.forStep->lhs[0], loopVars))
      return false;
    return !writtenBy(*st.loopBody).count(counter) && qualifies(*st.loopBody, loopVars);
  }

  bool writable(const LValue& lv, const std::set<int>& loopVars) {
    if (lv.var < 0) return false;
    const Var& v = d_.vars[lv.var];
    if (v.kind != VarKind::Reg || v.isReal || v.inFunction || feedsGuard(lv.var)) return false;
    return (!lv.hasIndex || constant(lv.index, loopVars)) && (!lv.hasPart || constant(lv.partOffset, loopVars));
  }

  // Constant once the loops around it are unrolled.
  bool constant(const Expr& e, const std::set<int>& loopVars) {
    if (e.isReal || !callsOnlyCasts(e.text)) return false;
    for (const std::string& id : identifiersIn(e.text)) {
      auto it = varOfIdent_.find(id);
      bool known = it == varOfIdent_.end() ? isResizeHelper(id) : loopVars.count(it->second) || constantNets_.count(id);
      if (!known) return false;
    }
    return true;
  }

  // A whole register, or a ROM element at a constant index: a copy of a
  // value synthesis knows, with no operator it would have to evaluate.
  bool plainRead(const Expr& e, const std::set<int>& loopVars) {
    if (e.isReal) return false;
    if (e.wholeVar >= 0) {
      const Var& v = d_.vars[e.wholeVar];
      return v.kind == VarKind::Reg && v.depth == 0 && !v.isReal && !v.inFunction;
    }
    size_t open = e.text.find('[');
    if (open == std::string::npos || e.text.back() != ']') return false;
    auto rom = varOfIdent_.find(e.text.substr(0, open));
    if (rom == varOfIdent_.end() || d_.vars[rom->second].kind != VarKind::Rom) return false;
    Expr index;
    index.text = e.text.substr(open + 1, e.text.size() - open - 2);
    return constant(index, loopVars);
  }

  static bool callsOnlyCasts(const std::string& text) {
    for (size_t at = text.find('$'); at != std::string::npos; at = text.find('$', at + 1))
      if (text.compare(at, 8, "$signed(") != 0 && text.compare(at, 10, "$unsigned(") != 0) return false;
    return text.find('"') == std::string::npos;
  }

  bool feedsGuard(int var) {
    auto cached = feedsGuard_.find(var);
    if (cached != feedsGuard_.end()) return cached->second;
    bool feeds = false;
    for (int derived : derivedFrom(d_, {var}))
      if (guards_.count(derived)) feeds = true;
    feedsGuard_[var] = feeds;
    return feeds;
  }

  void noteVariables(const Stmt& st) {
    for (int v : writtenBy(st)) noteRegister(v);
    forEachExprText(st, [&](const std::string& text) {
      for (const std::string& id : identifiersIn(text))
        if (auto it = varOfIdent_.find(id); it != varOfIdent_.end()) noteRegister(it->second);
    });
  }

  void noteRegister(int var) {
    if (var >= 0 && d_.vars[var].kind == VarKind::Reg && d_.vars[var].depth == 0) d_.powerOnVars.insert(var);
  }

  Design& d_;
  std::map<std::string, int> varOfIdent_;
  std::set<int> guards_;
  std::map<int, bool> feedsGuard_;
  std::map<int, uint64_t> known_;  // scalar registers and nets holding a literal's value
  std::map<std::string, std::string> constantNets_;  // identifier -> literal
};

}  // namespace

void hoistPowerOnPrefixes(Design& design) { PowerOnHoister(design).run(); }

}  // namespace synergy::hwlower
