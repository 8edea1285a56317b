//===- FoldConstantVariables.cpp - Constant variables become constant nets ===//
//
// The state-access port makes every register host-writable, so synthesis can
// never fold a register the design itself only sets once: `reg [63:0] r =
// K;` (which Icarus hands over as `initial r = K`) costs its flip-flops, its
// write-port decoding, and all the logic it feeds stays unfolded. Such a
// variable is a constant of the design, so this pass turns it into a net
// driven by `assign r = K;`: synthesis propagates K, the runtime can still
// read it by id (for task arguments and $monitor), and since nets are
// neither saved nor restored, $save/$restart stay correct. A guard on such a
// net still sees one change in the first pass (its edge detector starts at
// the register's old power-on value), as it saw the initial assignment.
//
// A variable qualifies when it is a scalar, non-real user register and its
// only write is a whole-variable assignment of a constant at the start of an
// initial block (before anything that can advance time). That value holds
// from power-on in the original too, except for readers racing the initial
// block at time 0, whose result the simulator leaves unspecified.
// Conservatively, a register named as an assignment target in a function
// body or a continuous assignment never qualifies.
//
// A memory (a table of round constants, say) qualifies the same way when
// every one of its writes is a constant to a constant element at the start
// of an initial block. It becomes a ROM (VarKind::Rom): its writes move to an
// `initial` block of the emitted module, which synthesis takes as the
// memory's initial contents and Verilator runs at power-on; like a net, it
// is readable by id and never written or saved.
//
// Runs after recognizeClockGenerator (the clock's initial value is already
// its power-on value) and before mergeProcessesIntoCore.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <cctype>

namespace synergy::hwlower {

namespace {

class ConstantFolder {
 public:
  explicit ConstantFolder(Design& design)
      : d_(design),
        writes_(design.vars.size(), 0),
        constantWrite_(design.vars.size(), nullptr),
        elementWrites_(design.vars.size()) {}

  void run() {
    for (Process& p : d_.processes) countWrites(p.body.get());
    for (Process& p : d_.processes)
      if (p.kind == ProcessKind::Initial) findLeadingConstants(p.body.get());
    for (size_t v = 0; v < d_.vars.size(); ++v) {
      Stmt* write = constantWrite_[v];
      if (!write || writes_[v] != 1 || d_.vars[v].depth > 0 || !qualifies(int(v))) continue;
      Var& var = d_.vars[v];
      var.kind = VarKind::Wire;
      d_.netlist.push_back("assign " + var.ident + " = " + write->rhs.text + ";");
      write->kind = StmtKind::Nop;
      write->lhs.clear();
    }
    for (size_t v = 0; v < d_.vars.size(); ++v) {
      std::vector<Stmt*>& elements = elementWrites_[v];
      if (elements.empty() || elements.size() != writes_[v] || !qualifies(int(v))) continue;
      d_.vars[v].kind = VarKind::Rom;
      for (Stmt* write : elements) {
        d_.romContents.push_back(lvalueText(d_, write->lhs[0]) + " = " + write->rhs.text + ";");
        write->kind = StmtKind::Nop;
        write->lhs.clear();
      }
    }
    for (Process& p : d_.processes) dropNops(p.body.get());
  }

 private:
  static void dropNops(Stmt* st) {
    if (!st || st->kind != StmtKind::Block) return;
    std::vector<StmtPtr> kept;
    for (StmtPtr& c : st->body)
      if (c->kind != StmtKind::Nop) kept.push_back(std::move(c));
    st->body = std::move(kept);
  }

  void countWrites(const Stmt* st) {
    if (!st) return;
    for (const LValue& lv : st->lhs)
      if (lv.var >= 0) ++writes_[lv.var];
    if (st->kind == StmtKind::Task) {
      if (st->call.resultVar >= 0) writes_[st->call.resultVar] += 2;
      for (const TaskArgIr& a : st->call.args) {
        if (a.writable && a.target.var >= 0) writes_[a.target.var] += 2;
        if (a.arrayVar >= 0) writes_[a.arrayVar] += 2;
      }
    }
    for (const StmtPtr& c : st->body) countWrites(c.get());
    for (const CaseItem& item : st->items) countWrites(item.body.get());
    countWrites(st->thenStmt.get());
    countWrites(st->elseStmt.get());
    countWrites(st->loopBody.get());
    countWrites(st->forInit.get());
    countWrites(st->forStep.get());
  }

  // Records `v = <constant>` statements that run before time can advance.
  void findLeadingConstants(Stmt* st) {
    if (!st) return;
    if (st->kind == StmtKind::Block) {
      for (StmtPtr& c : st->body) {
        if (c->kind == StmtKind::Nop) continue;
        if (c->kind != StmtKind::Assign) return;
        findLeadingConstants(c.get());
      }
      return;
    }
    if (st->kind != StmtKind::Assign || st->lhs.size() != 1 || !st->rhs.isConstant) return;
    const LValue& lv = st->lhs[0];
    if (lv.var < 0 || lv.hasPart) return;
    if (!lv.hasIndex)
      constantWrite_[lv.var] = st;
    else if (lv.index.isConstant)
      elementWrites_[lv.var].push_back(st);
  }

  bool qualifies(int v) const {
    const Var& var = d_.vars[v];
    if (var.kind != VarKind::Reg || var.isReal || var.inFunction || var.isLocal) return false;
    if (v == d_.clockVar) return false;
    for (const std::string& f : d_.functions)
      if (assignsTo(f, var.ident)) return false;
    for (const std::string& a : d_.netlist)
      if (assignsTo(a.substr(0, a.find('=')), var.ident)) return false;
    return true;
  }

  // Whether `text` has `ident` as a whole token followed by an index or an
  // assignment (`=` that is not `==`); reads like `ident[3]` also count,
  // which only makes the answer more conservative.
  static bool assignsTo(const std::string& text, const std::string& ident) {
    auto isIdentChar = [](char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; };
    for (size_t pos = text.find(ident); pos != std::string::npos; pos = text.find(ident, pos + 1)) {
      size_t end = pos + ident.size();
      if (pos > 0 && isIdentChar(text[pos - 1])) continue;
      if (end < text.size() && isIdentChar(text[end])) continue;
      while (end < text.size() && std::isspace((unsigned char)text[end])) ++end;
      if (end == text.size()) return true;  // `assign ident ` before the split `=`
      if (text[end] == '[') return true;
      if (text[end] == '=' && (end + 1 == text.size() || text[end + 1] != '=')) return true;
      if (text[end] == '<' && end + 1 < text.size() && text[end + 1] == '=') return true;
    }
    return false;
  }

  Design& d_;
  std::vector<unsigned> writes_;
  std::vector<Stmt*> constantWrite_;
  std::vector<std::vector<Stmt*>> elementWrites_;  // of memories, in program order
};

}  // namespace

void foldConstantVariables(Design& design) { ConstantFolder(design).run(); }

}  // namespace synergy::hwlower
