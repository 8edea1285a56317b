//===- ShareMemoryWritePorts.cpp - One write port per memory where it can --===//
//
// Synthesis maps a memory to flip-flops, and every statement that writes an
// element at a variable index costs a decoder and a multiplexer per element.
// The state-access port adds such a write to every memory, so a memory the
// design writes at one place pays twice. This pass gives such a memory one
// write port (Design::memoryWritePorts): each source sets the port's enable,
// element and value, and one write at the end of the clocked block stores
// them (EmitVerilog). A deferred write must reorder nothing, so the one
// other source is either
//   - the commit of one shared NBA shadow (lowerNonBlockingAssigns), when no
//     state and no other commit writes the memory: the commits are the
//     clocked block's last statements; or
//   - one blocking assignment of a whole element, outside any loop (a loop
//     would store several elements in one cycle), when nothing reads the
//     memory after it in the same native cycle: not later in its own
//     state, nor in a state reachable from it by forward transitions (a
//     trap, a back edge or the end of the pass ends the cycle, and the
//     runtime reads state only between cycles).
// The state-access write excludes everything else, so it never collides
// with the other source.
//
// Runs after threadPassThroughStates (the states are final) and
// findPassLocalVariables (a pass-local memory has no state-access write).
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <cctype>
#include <set>

namespace synergy::hwlower {

namespace {

class WritePortSharer {
 public:
  explicit WritePortSharer(Design& design) : d_(design) {}

  void run() {
    for (size_t m = 0; m < d_.vars.size(); ++m) {
      const Var& v = d_.vars[m];
      if (v.kind != VarKind::Reg || v.depth == 0 || v.passLocal || v.width > 64 || v.inFunction) continue;
      unsigned commits = 0, sharedCommits = 0;
      for (const NbaCommit& c : d_.nbaCommits) {
        for (const std::string& id : identifiersIn(c.commitText)) commits += id == v.ident;
        sharedCommits += c.memoryVar == int(m);
      }
      Sites sites = blockingWrites(int(m));
      MemoryWritePort port;
      port.memory = int(m);
      port.prefix = "__memw" + std::to_string(d_.memoryWritePorts.size());
      if (commits == 1 && sharedCommits == 1 && sites.count == 0) {
        d_.memoryWritePorts.push_back(std::move(port));
      } else if (commits == 0 && sites.count == 1 && sites.site && !readLaterInCycle(int(m), sites)) {
        port.site = sites.site;
        d_.memoryWritePorts.push_back(std::move(port));
      }
    }
  }

 private:
  struct Sites {
    unsigned count = 0;           // writes of the memory in the states
    const Stmt* site = nullptr;   // the one that may move to the port
    unsigned state = 0;           // its state
    size_t topLevel = 0;          // the statement of that state holding it
  };

  Sites blockingWrites(int memory) {
    Sites sites;
    for (const MachineState& s : d_.states)
      for (size_t k = 0; k < s.stmts.size(); ++k) findWrites(*s.stmts[k], memory, false, s.id, k, sites);
    return sites;
  }

  void findWrites(const Stmt& st, int memory, bool inLoop, unsigned state, size_t topLevel, Sites& sites) {
    bool writes = false;
    if (st.kind == StmtKind::Raw) {
      writes = assignsElement(st.rawText, d_.vars[memory].ident);
    } else if (st.kind == StmtKind::Assign) {
      for (const LValue& lv : st.lhs) writes |= lv.var == memory;
    }
    if (writes) {
      ++sites.count;
      bool movable = st.kind == StmtKind::Assign && !inLoop && st.lhs.size() == 1 && st.lhs[0].hasIndex &&
                     !st.lhs[0].hasPart;
      sites.site = movable ? &st : nullptr;
      sites.state = state;
      sites.topLevel = topLevel;
    }
    for (const StmtPtr& c : st.body) findWrites(*c, memory, inLoop, state, topLevel, sites);
    for (const Stmt* c : {st.thenStmt.get(), st.elseStmt.get()})
      if (c) findWrites(*c, memory, inLoop, state, topLevel, sites);
    for (const CaseItem& item : st.items)
      if (item.body) findWrites(*item.body, memory, inLoop, state, topLevel, sites);
    if (st.loopBody) findWrites(*st.loopBody, memory, true, state, topLevel, sites);
  }

  // Whether `text` (a pass's Verilog statements) assigns `ident[...]`.
  static bool assignsElement(const std::string& text, const std::string& ident) {
    for (size_t at = text.find(ident + "["); at != std::string::npos; at = text.find(ident + "[", at + 1)) {
      if (at > 0 && (std::isalnum((unsigned char)text[at - 1]) || text[at - 1] == '_')) continue;
      size_t close = at + ident.size(), depth = 0;
      for (; close < text.size(); ++close) {
        if (text[close] == '[') ++depth;
        if (text[close] == ']' && --depth == 0) break;
      }
      size_t next = text.find_first_not_of(' ', close + 1);
      if (next != std::string::npos && text[next] == '=' && text.compare(next, 2, "==") != 0) return true;
    }
    return false;
  }

  bool readLaterInCycle(int memory, const Sites& sites) {
    const std::string& ident = d_.vars[memory].ident;
    const MachineState& own = d_.states[sites.state];
    if (mentions(*own.stmts[sites.topLevel], ident, sites.site) || exitMentions(own, ident)) return true;
    for (size_t k = sites.topLevel + 1; k < own.stmts.size(); ++k)
      if (mentions(*own.stmts[k], ident, nullptr)) return true;
    for (unsigned t : reachableInCycle(sites.state)) {
      const MachineState& s = d_.states[t];
      if (exitMentions(s, ident)) return true;
      for (const StmtPtr& st : s.stmts)
        if (mentions(*st, ident, nullptr)) return true;
    }
    return false;
  }

  // The states control falls through to from `from` within one native cycle:
  // forward transitions that are not traps.
  std::set<unsigned> reachableInCycle(unsigned from) const {
    std::set<unsigned> seen;
    std::vector<unsigned> work{from};
    while (!work.empty()) {
      unsigned s = work.back();
      work.pop_back();
      for (unsigned next : successors(d_.states[s]))
        if (next > s && seen.insert(next).second) work.push_back(next);
    }
    return seen;
  }

  static std::vector<unsigned> successors(const MachineState& s) {
    switch (s.exit) {
      case MachineState::Exit::Goto: return {s.next};
      case MachineState::Exit::Branch: return {s.thenState, s.elseState};
      case MachineState::Exit::Case: {
        std::vector<unsigned> targets;
        for (const auto& target : s.caseTargets) targets.push_back(target.second);
        return targets;
      }
      default: return {};
    }
  }

  static unsigned namesIn(const std::string& text, const std::string& ident) {
    unsigned n = 0;
    for (const std::string& id : identifiersIn(text)) n += id == ident;
    return n;
  }

  static bool exitMentions(const MachineState& s, const std::string& ident) {
    if (namesIn(s.branchCond, ident) || namesIn(s.caseSubject, ident)) return true;
    for (const auto& target : s.caseTargets)
      for (const std::string& label : target.first)
        if (namesIn(label, ident)) return true;
    return false;
  }

  // How often `st` and the statements in it name `ident`.
  static unsigned mentionCount(const Stmt& st, const std::string& ident) {
    unsigned n = 0;
    forEachExprText(st, [&](const std::string& text) { n += namesIn(text, ident); });
    anyStatement(st, [&](const Stmt& s) {
      if (s.kind == StmtKind::Raw) n += namesIn(s.rawText, ident);
      return false;
    });
    return n;
  }

  // Whether `st`, apart from the statement `skip` inside it, names `ident`.
  static bool mentions(const Stmt& st, const std::string& ident, const Stmt* skip) {
    return mentionCount(st, ident) > (skip ? mentionCount(*skip, ident) : 0);
  }

  Design& d_;
};

}  // namespace

void shareMemoryWritePorts(Design& design) { WritePortSharer(design).run(); }

}  // namespace synergy::hwlower
