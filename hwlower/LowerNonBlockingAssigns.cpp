//===- LowerNonBlockingAssigns.cpp - NBAs latch only on __update ----------===//
//
// A non-blocking assignment `x <= e` must not be visible until the runtime
// (or the open-loop controller) asks the engine to update. This pass
// rewrites it into a write of a shadow register plus a pending flag:
//   whole variable:   __nba_x = e; __nbp_x = 1;
//   part of x:        the shadow carries a bit mask (__nbm_x) of written bits;
//                     at a run-time offset, only the bits inside x are
//                     written (runTimePartMerge), as IEEE 1364 says
//   memory element:   one shadow (value, element, pending) per source site,
//                     shared by whole-element sites that exclude each
//                     other, or, inside a loop, a shadow memory with a
//                     pending bit per element
// and records the commit that `update` performs for each shadow. The OR of
// all pending flags is `__there_are_updates`.
//
// Runs after replaceGuardsWithNativeClock, before the state machine (the
// rewritten statements are ordinary synthesizable ones).
// Guarantees: no NbAssign remains in the core.
// Limitation: outside loops, a memory NBA site runs at most once a tick, so
// one shadow per site suffices; a part-select of a memory element inside a
// loop still uses that single shadow (the last write of the tick wins).
//
//===----------------------------------------------------------------------===//
#include "hwlower/Passes.h"

#include <algorithm>
#include <map>
#include <set>

namespace synergy::hwlower {

namespace {

class NbaLowering {
 public:
  explicit NbaLowering(Design& design) : design_(design) {}

  void run() {
    for (CoreConjunct& c : design_.core) findPartialWrites(*c.body);
    for (CoreConjunct& c : design_.core) rewrite(c.body);
    // A shared index register is as wide as its widest site's index.
    for (const auto& [var, n] : indexDecls_) {
      const SharedShadow& shadow = sharedShadows_[var][n];
      design_.extraDecls.push_back("reg " + range(shadow.indexWidth) + "__nbai_" + shadow.suffix + " = 0;");
    }
  }

 private:
  static std::string range(unsigned w) { return "[" + std::to_string(w - 1) + ":0] "; }

  void findPartialWrites(const Stmt& st) {
    if (st.kind == StmtKind::NbAssign)
      for (const LValue& lv : st.lhs)
        if (lv.hasPart && !lv.hasIndex) masked_.insert(lv.var);
    for (const StmtPtr& c : st.body) findPartialWrites(*c);
    if (st.thenStmt) findPartialWrites(*st.thenStmt);
    if (st.elseStmt) findPartialWrites(*st.elseStmt);
    for (const CaseItem& item : st.items) findPartialWrites(*item.body);
    if (st.loopBody) findPartialWrites(*st.loopBody);
  }

  void declareScalarShadow(int v) {
    if (!shadowed_.insert(v).second) return;
    const Var& var = design_.vars[v];
    const std::string& x = var.ident;
    design_.extraDecls.push_back("reg " + range(var.width) + "__nba_" + x + " = 0;");
    design_.extraDecls.push_back("reg __nbp_" + x + " = 1'b0;");
    std::string commit;
    if (masked_.count(v)) {
      design_.extraDecls.push_back("reg " + range(var.width) + "__nbm_" + x + " = 0;");
      commit = x + " = (" + x + " & ~__nbm_" + x + ") | (__nba_" + x + " & __nbm_" + x +
               "); __nbm_" + x + " = 0;";
    } else {
      commit = x + " = __nba_" + x + ";";
    }
    design_.nbaCommits.push_back(
        {"__nbp_" + x, "if (__nbp_" + x + ") begin " + commit + " __nbp_" + x + " = 1'b0; end"});
  }

  std::string writeOne(const LValue& lv, const std::string& value) {
    const Var& var = design_.vars[lv.var];
    const std::string& x = var.ident;
    if (!lv.hasIndex) {
      declareScalarShadow(lv.var);
      std::string text;
      if (lv.hasPart && !lv.partOffset.isConstant) {
        text = "__nba_" + x + " = " + runTimePartMerge("__nba_" + x, var.width, lv.width, value, lv.partOffset) +
               "; __nbm_" + x + " = __nbm_" + x + " | " + runTimePartMask(var.width, lv.width, lv.partOffset) + ";";
      } else if (lv.hasPart) {
        std::string sel = "[" + lv.partOffset.text + " +: " + std::to_string(lv.width) + "]";
        text = "__nba_" + x + sel + " = " + value + "; __nbm_" + x + sel + " = {" +
               std::to_string(lv.width) + "{1'b1}};";
      } else {
        text = "__nba_" + x + " = " + value + ";";
        if (masked_.count(lv.var))
          text += " __nbm_" + x + " = {" + std::to_string(var.width) + "{1'b1}};";
      }
      return text + " __nbp_" + x + " = 1'b1;";
    }
    if (loopDepth_ > 0 && !lv.hasPart) return writeInLoop(lv, value);
    if (loopDepth_ == 0 && !lv.hasPart) return writeShared(lv, value);
    std::string k = std::to_string(site_++);
    std::string val = "__nbav_" + k, idx = "__nbai_" + k, pend = "__nbap_" + k;
    design_.extraDecls.push_back("reg " + range(lv.width) + val + " = 0;");
    design_.extraDecls.push_back("reg " + range(std::max(1u, lv.index.width)) + idx + " = 0;");
    design_.extraDecls.push_back("reg " + pend + " = 1'b0;");
    std::string text = val + " = " + value + "; " + idx + " = " + lv.index.text + "; ";
    std::string target = x + "[" + idx + "]";
    std::string latched = val;
    if (lv.hasPart) {
      Expr off = lv.partOffset;
      off.text = "__nbao_" + k;
      design_.extraDecls.push_back(std::string("reg ") + (off.isSigned ? "signed " : "") +
                                   range(std::max(1u, off.width)) + off.text + " = 0;");
      text += off.text + " = " + lv.partOffset.text + "; ";
      if (off.isConstant)
        target += "[" + off.text + " +: " + std::to_string(lv.width) + "]";
      else
        latched = runTimePartMerge(target, var.width, lv.width, val, off);
    }
    design_.nbaCommits.push_back(
        {pend, "if (" + pend + ") begin " + target + " = " + latched + "; " + pend + " = 1'b0; end"});
    return text + pend + " = 1'b1;";
  }

  // Whether two sites can never both run in one pass: they lie in different
  // arms of the same if or case of the same conjunct.
  static bool exclusive(const std::vector<std::pair<const Stmt*, int>>& a,
                        const std::vector<std::pair<const Stmt*, int>>& b) {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i] == b[i]) continue;
      return a[i].first == b[i].first;
    }
    return false;
  }

  // Whole-element sites of one memory that exclude each other (mips32's
  // `regs[rd] <=` in several case arms) share one shadow, so the commit is
  // one write port instead of one per site.
  std::string writeShared(const LValue& lv, const std::string& value) {
    std::vector<SharedShadow>& shadows = sharedShadows_[lv.var];
    SharedShadow* shadow = nullptr;
    for (SharedShadow& candidate : shadows) {
      bool fits = true;
      for (const auto& path : candidate.sites) fits &= exclusive(path, branchPath_);
      if (fits) {
        shadow = &candidate;
        break;
      }
    }
    if (!shadow) {
      shadows.push_back({std::to_string(site_++), 1, {}});
      shadow = &shadows.back();
      const std::string& k = shadow->suffix;
      design_.extraDecls.push_back("reg " + range(lv.width) + "__nbav_" + k + " = 0;");
      design_.extraDecls.push_back("reg __nbap_" + k + " = 1'b0;");
      indexDecls_.push_back({lv.var, shadows.size() - 1});
      NbaCommit commit;
      commit.pendingIdent = "__nbap_" + k;
      commit.memoryVar = lv.var;
      commit.indexIdent = "__nbai_" + k;
      commit.valueIdent = "__nbav_" + k;
      commit.commitText = "if (" + commit.pendingIdent + ") begin " + design_.vars[lv.var].ident + "[" +
                          commit.indexIdent + "] = " + commit.valueIdent + "; " + commit.pendingIdent +
                          " = 1'b0; end";
      design_.nbaCommits.push_back(std::move(commit));
    }
    shadow->sites.push_back(branchPath_);
    shadow->indexWidth = std::max({shadow->indexWidth, lv.index.width, 1u});
    const std::string& k = shadow->suffix;
    // $unsigned: a narrower signed index must not sign-extend into the
    // shared register.
    return "__nbav_" + k + " = " + value + "; __nbai_" + k + " = $unsigned(" + lv.index.text + "); __nbap_" +
           k + " = 1'b1;";
  }

  // A memory NBA inside a loop may run many times in one tick, each time
  // for another element, so it goes to a whole shadow memory with one
  // pending bit per element.
  std::string writeInLoop(const LValue& lv, const std::string& value) {
    const Var& var = design_.vars[lv.var];
    const std::string& x = var.ident;
    std::string shadow = "__nbs_" + x, pend = "__nbsp_" + x;
    std::string depth = std::to_string(var.depth);
    if (shadowMemories_.insert(lv.var).second) {
      design_.extraDecls.push_back("reg " + range(var.width) + shadow + " [0:" +
                                   std::to_string(var.depth - 1) + "];");
      design_.extraDecls.push_back("reg " + range(unsigned(var.depth)) + pend + " = 0;");
      if (shadowMemories_.size() == 1) design_.extraDecls.push_back("integer __nbk;");
      design_.nbaCommits.push_back(
          {"(|" + pend + ")", "if (|" + pend + ") begin for (__nbk = 0; __nbk < " + depth +
                                  "; __nbk = __nbk + 1) if (" + pend + "[__nbk]) " + x +
                                  "[__nbk] = " + shadow + "[__nbk]; " + pend + " = 0; end"});
    }
    return shadow + "[" + lv.index.text + "] = " + value + "; " + pend + "[" + lv.index.text +
           "] = 1'b1;";
  }

  void rewrite(StmtPtr& st) {
    if (!st) return;
    switch (st->kind) {
      case StmtKind::NbAssign: {
        std::string text;
        if (st->lhs.size() == 1) {
          text = writeOne(st->lhs[0], st->rhs.text);
        } else {
          std::string tmp = "__nbt_" + std::to_string(temp_++);
          design_.extraDecls.push_back("reg " + range(st->rhs.width) + tmp + ";");
          text = tmp + " = " + st->rhs.text + ";";
          unsigned off = 0;
          for (const LValue& lv : st->lhs) {
            text += " " + writeOne(lv, tmp + "[" + std::to_string(off) + " +: " +
                                           std::to_string(lv.width) + "]");
            off += lv.width;
          }
        }
        st->kind = StmtKind::Raw;
        st->rawText = text;
        break;
      }
      case StmtKind::Block:
        for (StmtPtr& c : st->body) rewrite(c);
        break;
      case StmtKind::If:
        branchPath_.push_back({st.get(), 0});
        rewrite(st->thenStmt);
        branchPath_.back().second = 1;
        rewrite(st->elseStmt);
        branchPath_.pop_back();
        break;
      case StmtKind::Case:
        branchPath_.push_back({st.get(), 0});
        for (CaseItem& item : st->items) {
          rewrite(item.body);
          ++branchPath_.back().second;
        }
        branchPath_.pop_back();
        break;
      case StmtKind::While:
        ++loopDepth_;
        rewrite(st->loopBody);
        --loopDepth_;
        break;
      default:
        break;
    }
  }

  struct SharedShadow {
    std::string suffix;
    unsigned indexWidth = 1;
    std::vector<std::vector<std::pair<const Stmt*, int>>> sites;  // branch path of each site
  };

  Design& design_;
  std::set<int> masked_, shadowed_, shadowMemories_;
  std::vector<std::pair<const Stmt*, int>> branchPath_;  // enclosing if/case arms
  std::map<int, std::vector<SharedShadow>> sharedShadows_;
  std::vector<std::pair<int, size_t>> indexDecls_;
  unsigned site_ = 0, temp_ = 0, loopDepth_ = 0;
};

}  // namespace

void lowerNonBlockingAssigns(Design& design) { NbaLowering(design).run(); }

}  // namespace synergy::hwlower
