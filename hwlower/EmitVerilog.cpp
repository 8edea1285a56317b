//===- EmitVerilog.cpp - The synergy_engine module -------------------------===//
//
// Prints the lowered design as one synthesizable Verilog module whose ports
// are exactly the engine ABI of EngineManifest.h. Everything sequential is
// one `always @(posedge __clk)` block using blocking assignments, in this
// priority order:
//   1. a state-access write (`__sa_we`) does nothing else;
//   2. `__update` latches the pending non-blocking assignments;
//   3. otherwise: `__cont` clears the trap; the open-loop controller may
//      start a new tick (toggle the clock; when the falling edge is idle, run
//      that tick on the spot and start the next one); if the core is idle and a guard
//      variable changed, a pass starts (Fig. 4 latch of the mangled guards);
//      then the states follow in id order (Fig. 5), each an
//      `if (__task == 0 && __state == k)`, so control falls through forward
//      transitions within one cycle and stops at a trap; in open loop the
//      NBAs of a finished pass are latched in the same cycle, by the same
//      statements as in 2 (each NBA commit is a write port of its target).
// A memory with a shared write port (shareMemoryWritePorts) is stored once,
// after all of that, from whichever source set the port this cycle.
// State reads are combinational (`always @*` over the id; nets and other
// derived state only where a task reads them), and so are the
// continuous assigns and the blocks keepCombinationalBlocks kept. The only
// `initial` block holds the contents of the ROMs and the statements
// hoistPowerOnPrefixes moved to power-on.
//
// Runs last. Guarantees: Design::verilog holds the module text, and
// Design::verilogLineLocs the source statement of each line a statement
// printed.
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

namespace synergy::hwlower {

namespace {

std::string range(unsigned width) {
  return width > 1 ? "[" + std::to_string(width - 1) + ":0] " : "";
}

unsigned bitsFor(size_t n) {
  unsigned b = 1;
  while ((size_t(1) << b) < n) ++b;
  return b;
}

class Emitter {
 public:
  explicit Emitter(Design& design) : d_(design) {}

  std::string run() {
    for (const MemoryWritePort& port : d_.memoryWritePorts) {
      portOf_[port.memory] = port.prefix;
      if (port.site) portAt_[port.site] = &port;
    }
    header();
    declarations();
    stateRead();
    mainBlock();
    out_ += "endmodule\n";
    return out_;
  }

 private:
  void line(unsigned indent, const std::string& text) {
    if (statementLoc_ && statementLoc_->line) {
      linesCounted_ += unsigned(std::count(out_.begin() + long(charsCounted_), out_.end(), '\n'));
      charsCounted_ = out_.size();
      d_.verilogLineLocs.emplace(linesCounted_ + 1, *statementLoc_);
    }
    out_ += std::string(indent, ' ') + text + "\n";
  }

  // No pass running, no trap to service and no guard changed: the engine
  // stands between two ticks. Inside the clocked block this reads the
  // blocking-updated registers, so it cannot be the __done wire.
  std::string betweenTicks() const {
    return "__state == 0 && __task_r == 16'd0 && !(" + d_.guardChanged + ")";
  }

  // No comments: Verilator reads directives in them, and the runtime refuses
  // any Verilog that holds one (runtime/engine/EmittedVerilogCheck.h). The
  // warnings the old lint_off comments silenced are off on its command line.
  void header() { out_ += kEngineModuleHeader; }

  void declarations() {
    for (size_t i = 0; i < d_.vars.size(); ++i) {
      const Var& v = d_.vars[i];
      if (v.inFunction) continue;
      std::string sgn = v.isSigned ? "signed " : "";
      if (v.kind == VarKind::Wire) {
        std::string dims = v.depth > 0 ? " [0:" + std::to_string(v.depth - 1) + "]" : "";
        line(2, "wire " + sgn + range(v.width) + v.ident + dims + ";");
      } else if (v.kind == VarKind::CombReg) {
        line(2, "reg " + sgn + range(v.width) + v.ident + ";");
      } else if (v.depth > 0) {
        line(2, "reg " + sgn + range(v.width) + v.ident + " [0:" + std::to_string(v.depth - 1) + "];");
      } else if (d_.powerOnVars.count(int(i))) {
        line(2, "reg " + sgn + range(v.width) + v.ident + ";");
      } else {
        line(2, "reg " + sgn + range(v.width) + v.ident + " = " + powerOnValue(v) + ";");
      }
    }
    for (const std::string& decl : d_.extraDecls) line(2, decl);
    for (const MemoryWritePort& port : d_.memoryWritePorts) {
      line(2, "reg " + port.prefix + "_en;");
      line(2, "reg [31:0] " + port.prefix + "_index;");
      line(2, "reg " + range(d_.vars[port.memory].width) + port.prefix + "_value;");
    }
    powerOnBlock();
    stateBits_ = bitsFor(d_.states.size());
    line(2, "reg " + range(stateBits_) + "__state = 0;");
    // The __task port is 16 bits wide; the register needs only the ids.
    line(2, "reg " + range(bitsFor(d_.tasks.size() + 1)) + "__task_r = 0;");
    line(2, "reg __ol_active = 1'b0;");
    line(2, "reg [31:0] __ol_left = 32'd0;");
    if (d_.negedgeIsIdle) line(2, "reg __ol_two_ticks = 1'b0;");
    for (const std::string& f : d_.functions) out_ += f + "\n";
    for (const std::string& a : d_.netlist) line(2, a);
    for (const StmtPtr& body : d_.combinationalBlocks) {
      line(2, "always @* begin");
      printStmt(*body, 4);
      line(2, "end");
    }
    pending_.clear();
    for (size_t i = 0; i < d_.nbaCommits.size(); ++i)
      pending_ += (i ? " | " : "") + d_.nbaCommits[i].pendingIdent;
    if (pending_.empty()) pending_ = "1'b0";
    line(2, "assign __task = __task_r;");
    line(2, "assign __done = " + betweenTicks() + ";");
    line(2, "assign __there_are_updates = " + pending_ + ";");
    line(2, "assign __open_loop_active = __ol_active;");
    line(2, "assign __ticks_left = __ol_left;");
  }

  static std::string powerOnValue(const Var& v) {
    return std::to_string(v.width) + "'d" + std::to_string(v.initValue);
  }

  // One block, because synthesis evaluates a power-on statement that reads a
  // ROM only when the ROM's contents are set in the same block. After
  // extraDecls, which declare the ROM fill loops' variables.
  void powerOnBlock() {
    if (d_.romContents.empty() && d_.powerOnStatements.empty()) return;
    line(2, "initial begin");
    for (int v : d_.powerOnVars) line(4, d_.vars[v].ident + " = " + powerOnValue(d_.vars[v]) + ";");
    for (const std::string& write : d_.romContents) line(4, write);
    for (const StmtPtr& st : d_.powerOnStatements) printStmt(*st, 4);
    line(2, "end");
  }

  // Nets, combinational outputs and ROMs are never saved, so the runtime
  // reads them only as task arguments; the others read as 0, which saves a
  // read-mux arm (and a ROM's second read port) each. Pass-local registers
  // (findPassLocalVariables) have neither arm: no value of theirs is ever
  // needed from one pass to the next.
  std::set<uint32_t> idsReadByTasks() const {
    std::set<uint32_t> ids;
    for (const Task& t : d_.tasks) {
      ids.insert(t.resultId);
      for (const TaskArg& a : t.args) {
        ids.insert(a.stateId);
        ids.insert(a.indexStateId);
      }
    }
    return ids;
  }

  static bool isDerived(const Var& v) {
    return v.kind == VarKind::Wire || v.kind == VarKind::CombReg || v.kind == VarKind::Rom;
  }

  // Word w (64 bits, the last one shorter) of a variable wider than 64
  // bits. A constant select per word, not a shift by __sa_word: a shifter
  // or a variable part-select costs logic for every bit and shift amount.
  static std::string wordSelect(unsigned width, unsigned w) {
    unsigned high = std::min(width, (w + 1) * 64) - 1;
    return "[" + std::to_string(high) + ":" + std::to_string(w * 64) + "]";
  }

  // The runtime only asks for the ids of the manifest, so the state-access
  // cases decode just the bits those ids need: every compare of the 16-bit
  // port costs logic in both the read and the write case.
  std::string saIdBits() const {
    return "__sa_id[" + std::to_string(bitsFor(d_.stateIdToVar.size()) - 1) + ":0]";
  }

  std::string saIdLabel(size_t id) const {
    return std::to_string(bitsFor(d_.stateIdToVar.size())) + "'d" + std::to_string(id) + ": ";
  }

  void stateRead() {
    std::set<uint32_t> taskIds = idsReadByTasks();
    line(2, "always @* begin");
    line(4, "__sa_rdata = 64'd0;");
    line(4, "case (" + saIdBits() + ")");
    for (size_t id = 0; id < d_.stateIdToVar.size(); ++id) {
      const Var& v = d_.vars[d_.stateIdToVar[id]];
      if ((isDerived(v) && !taskIds.count(uint32_t(id))) || v.passLocal) continue;
      std::string word = v.depth ? v.ident + "[__sa_index]" : v.ident;
      std::string arm = saIdLabel(id);
      if (v.width <= 64) {
        line(6, arm + "__sa_rdata = {" + word + "};");
        continue;
      }
      line(6, arm + "case (__sa_word)");
      for (unsigned w = 0; w * 64 < v.width; ++w)
        line(8, "16'd" + std::to_string(w) + ": __sa_rdata = " + word + wordSelect(v.width, w) + ";");
      line(8, "default: __sa_rdata = 64'd0;");
      line(6, "endcase");
    }
    line(6, "default: __sa_rdata = 64'd0;");
    line(4, "endcase");
    line(2, "end");
  }

  void stateWrite(unsigned indent) {
    line(indent, "case (" + saIdBits() + ")");
    for (size_t id = 0; id < d_.stateIdToVar.size(); ++id) {
      const Var& v = d_.vars[d_.stateIdToVar[id]];
      if (isDerived(v) || v.passLocal) continue;
      std::string word = v.depth ? v.ident + "[__sa_index]" : v.ident;
      std::string arm = saIdLabel(id);
      if (auto port = portOf_.find(d_.stateIdToVar[id]); port != portOf_.end()) {
        line(indent + 2, arm + port->second + "_en = 1'b1;");
      } else if (v.width < 64) {
        line(indent + 2, arm + word + " = __sa_wdata[" + std::to_string(v.width - 1) + ":0];");
      } else if (v.width == 64) {
        line(indent + 2, arm + word + " = __sa_wdata;");
      } else {
        line(indent + 2, arm + "case (__sa_word)");
        for (unsigned w = 0; w * 64 < v.width; ++w) {
          unsigned bits = std::min(64u, v.width - w * 64);
          line(indent + 4, "16'd" + std::to_string(w) + ": " + word + wordSelect(v.width, w) +
                               " = __sa_wdata[" + std::to_string(bits - 1) + ":0];");
        }
        line(indent + 4, "default: ;");
        line(indent + 2, "endcase");
      }
    }
    line(indent + 2, "default: ;");
    line(indent, "endcase");
  }

  // A source's write through a shared memory write port.
  static std::string setPort(const std::string& port, const std::string& index, const std::string& value) {
    return port + "_en = 1'b1; " + port + "_index = " + index + "; " + port + "_value = " + value + ";";
  }

  void commits(unsigned indent) {
    for (const NbaCommit& c : d_.nbaCommits) {
      auto port = c.memoryVar >= 0 ? portOf_.find(c.memoryVar) : portOf_.end();
      if (port == portOf_.end()) {
        line(indent, c.commitText);
        continue;
      }
      line(indent, "if (" + c.pendingIdent + ") begin " + setPort(port->second, c.indexIdent, c.valueIdent) + " " +
                       c.pendingIdent + " = 1'b0; end");
    }
  }

  void mainBlock() {
    line(2, "always @(posedge __clk) begin");
    for (const MemoryWritePort& port : d_.memoryWritePorts) {
      const std::string& p = port.prefix;
      line(4, p + "_en = 1'b0; " + p + "_index = __sa_index; " + p + "_value = __sa_wdata[" +
                  std::to_string(d_.vars[port.memory].width - 1) + ":0];");
    }
    line(4, "if (__sa_we) begin");
    stateWrite(6);
    line(4, "end else begin");
    line(6, "if (!__update) begin");
    line(8, "if (__cont) __task_r = 16'd0;");
    line(8, "if (__open_loop) begin");
    line(10, "__ol_active = 1'b1; __ol_left = __open_loop_n;");
    line(8, "end");
    // A tick boundary: idle, no trap, nothing triggered, nothing to latch.
    // The run counts down the ticks it has left: a compare with zero and a
    // decrement are cheaper than counting up to a compare with the input.
    line(8, "if (__ol_active && " + betweenTicks() + " && !(" + pending_ + ")) begin");
    line(10, "if (__ol_left == 32'd0) begin");
    line(12, "__ol_active = 1'b0;");
    line(10, "end else begin");
    if (d_.clockVar >= 0) {
      const std::string& clk = d_.vars[d_.clockVar].ident;
      line(12, clk + " = ~" + clk + ";");
    }
    if (d_.negedgeIsIdle) {
      // The falling edge's pass would fire nothing (findIdleNegedge): when a
      // second tick is left, run it here and go on to the rising edge. All
      // that pass changes is the clock's history: the boundary saw every
      // other guard variable unchanged, the falling clock changes none of
      // them, and the rising edge's pass start rewrites the fire flags. One
      // subtraction of 1 or 2 serves both cases.
      const std::string& clk = d_.vars[d_.clockVar].ident;
      line(12, "__ol_two_ticks = !" + clk + " && __ol_left != 32'd1;");
      line(12, "__ol_left = __ol_left - {30'd0, __ol_two_ticks, !__ol_two_ticks};");
      line(12, "if (__ol_two_ticks) begin");
      if (!d_.clockHistoryUpdate.empty()) line(14, d_.clockHistoryUpdate);
      line(14, clk + " = ~" + clk + ";");
      line(12, "end");
    } else {
      line(12, "__ol_left = __ol_left - 32'd1;");
    }
    line(10, "end");
    line(8, "end");
    line(8, "if (__state == 0 && __task_r == 16'd0 && (" + d_.guardChanged + ")) begin");
    for (const std::string& s : d_.passStart) line(10, s);
    line(10, "__state = 1;");
    line(8, "end");
    for (const MachineState& s : d_.states) {
      if (s.id == 0) continue;
      line(8, "if (__task_r == 16'd0 && __state == " + std::to_string(s.id) + ") begin");
      for (const StmtPtr& st : s.stmts) printStmt(*st, 10);
      printExit(s, 10);
      line(8, "end");
    }
    line(8, "if (__task_r != 16'd0) __ol_active = 1'b0;");
    line(6, "end");
    // One copy of the commits for both cases: __update, and open loop once a
    // pass is over.
    if (!d_.nbaCommits.empty()) {
      line(6, "if (__update || (__ol_active && " + betweenTicks() + ")) begin");
      commits(8);
      line(6, "end");
    }
    line(4, "end");
    for (const MemoryWritePort& port : d_.memoryWritePorts)
      line(4, "if (" + port.prefix + "_en) " + d_.vars[port.memory].ident + "[" + port.prefix + "_index] = " +
                  port.prefix + "_value;");
    line(2, "end");
  }

  std::string stateConst(unsigned id) {
    return std::to_string(stateBits_) + "'d" + std::to_string(id);
  }

  void printExit(const MachineState& s, unsigned indent) {
    switch (s.exit) {
      case MachineState::Exit::Goto:
        line(indent, "__state = " + stateConst(s.next) + ";");
        break;
      case MachineState::Exit::Branch:
        line(indent, "if (" + s.branchCond + ") __state = " + stateConst(s.thenState) +
                         "; else __state = " + stateConst(s.elseState) + ";");
        break;
      case MachineState::Exit::Case: {
        line(indent, caseKeyword(s.caseKind) + " (" + s.caseSubject + ")");
        for (const auto& [labels, target] : s.caseTargets)
          line(indent + 2, labelList(labels) + ": __state = " + stateConst(target) + ";");
        line(indent, "endcase");
        break;
      }
      case MachineState::Exit::Trap:
        line(indent, "__task_r = 16'd" + std::to_string(s.taskId) + "; __state = " +
                         stateConst(s.next) + ";");
        if (s.hasFinishExit)
          line(indent, "if (" + d_.vars[d_.finishingVar].ident + ") __state = " + stateConst(s.finishExit) + ";");
        break;
      case MachineState::Exit::End:
        line(indent, "__state = " + stateConst(0) + ";");
        break;
    }
  }

  static std::string caseKeyword(CaseKind kind) {
    switch (kind) {
      case CaseKind::Case: return "case";
      case CaseKind::CaseX: return "casex";
      case CaseKind::CaseZ: return "casez";
    }
    return "case";
  }

  static std::string labelList(const std::vector<std::string>& labels) {
    if (labels.empty()) return "default";
    std::string s;
    for (size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + labels[i];
    return s;
  }

  // Every line a statement prints is mapped to its source, so a Verilator
  // error on the emitted module names the statement it came from.
  void printStmt(const Stmt& st, unsigned indent) {
    const SourceLoc* outer = statementLoc_;
    if (st.loc.line) statementLoc_ = &st.loc;
    printStmtLines(st, indent);
    statementLoc_ = outer;
  }

  void printStmtLines(const Stmt& st, unsigned indent) {
    switch (st.kind) {
      case StmtKind::Nop:
        return;
      case StmtKind::Raw:
        line(indent, st.rawText);
        return;
      case StmtKind::Block:
        for (const StmtPtr& c : st.body) printStmt(*c, indent);
        return;
      case StmtKind::Assign: {
        if (auto port = portAt_.find(&st); port != portAt_.end()) {
          line(indent, setPort(port->second->prefix, st.lhs[0].index.text, st.rhs.text));
          return;
        }
        std::string lhs;
        if (st.lhs.size() == 1) {
          lhs = lvalueText(d_, st.lhs[0]);
        } else {
          lhs = "{";
          for (size_t i = st.lhs.size(); i-- > 0;) lhs += lvalueText(d_, st.lhs[i]) + (i ? ", " : "");
          lhs += "}";
        }
        line(indent, lhs + " = " + st.rhs.text + ";");
        return;
      }
      case StmtKind::If:
        line(indent, "if (" + st.cond.text + ") begin");
        if (st.thenStmt) printStmt(*st.thenStmt, indent + 2);
        if (st.elseStmt && st.elseStmt->kind != StmtKind::Nop) {
          line(indent, "end else begin");
          printStmt(*st.elseStmt, indent + 2);
        }
        line(indent, "end");
        return;
      case StmtKind::Case:
        line(indent, caseKeyword(st.caseKind) + " (" + st.cond.text + ")");
        for (const CaseItem& item : st.items) {
          std::vector<std::string> labels;
          for (const Expr& l : item.labels) labels.push_back(l.text);
          line(indent + 2, labelList(labels) + ": begin");
          if (item.body) printStmt(*item.body, indent + 4);
          line(indent + 2, "end");
        }
        line(indent, "endcase");
        return;
      case StmtKind::While: {
        assert(st.forInit && st.forStep && "only counted for loops stay inline");
        auto bare = [&](const Stmt& a) {
          return lvalueText(d_, a.lhs[0]) + " = " + a.rhs.text;
        };
        line(indent, "for (" + bare(*st.forInit) + "; " + st.cond.text + "; " + bare(*st.forStep) +
                         ") begin");
        printStmt(*st.loopBody, indent + 2);
        line(indent, "end");
        return;
      }
      default:
        assert(false && "control flow must have been lowered into states");
        return;
    }
  }

  Design& d_;
  std::map<int, std::string> portOf_;  // memory -> its shared write port's prefix
  std::map<const Stmt*, const MemoryWritePort*> portAt_;  // blocking writes moved to a port
  std::string out_;
  const SourceLoc* statementLoc_ = nullptr;
  size_t charsCounted_ = 0;    // of out_, by linesCounted_
  unsigned linesCounted_ = 0;
  std::string pending_;
  unsigned stateBits_ = 1;
};

}  // namespace

void emitVerilog(Design& design) { design.verilog = Emitter(design).run(); }

}  // namespace synergy::hwlower
