//===- HwIr.cpp - Shared helpers of the HW IR -----------------------------===//
//
// The one diagnostics path of the hardware compiler and the Verilog text of
// an assignment target, which the frontend (function bodies) and the emitter
// (core statements) must spell identically.
//
//===----------------------------------------------------------------------===//
#include "hwlower/HwIr.h"

#include <iostream>

namespace synergy::hwlower {

static std::string where(const SourceLoc& loc) {
  if (loc.file.empty()) return "";
  return loc.file + ":" + std::to_string(loc.line);
}

bool anyStatement(const Stmt& st, const std::function<bool(const Stmt&)>& pred) {
  if (pred(st)) return true;
  for (const StmtPtr& c : st.body)
    if (anyStatement(*c, pred)) return true;
  for (const Stmt* c : {st.thenStmt.get(), st.elseStmt.get(), st.loopBody.get()})
    if (c && anyStatement(*c, pred)) return true;
  for (const CaseItem& item : st.items)
    if (item.body && anyStatement(*item.body, pred)) return true;
  return false;
}

void Diagnostics::unsupported(const std::string& what, const SourceLoc& loc) {
  std::string at = where(loc);
  std::cerr << (at.empty() ? "" : at + ": ") << "error: unsupported: " << what
            << (at.empty() ? "" : " at " + at) << "\n";
  failed_ = true;
}

void Diagnostics::error(const std::string& msg, const SourceLoc& loc) {
  std::string at = where(loc);
  std::cerr << (at.empty() ? "" : at + ": ") << "error: " << msg << "\n";
  failed_ = true;
}

std::string lvalueText(const Design& design, const LValue& lv) {
  std::string text = design.vars[lv.var].ident;
  if (lv.hasIndex) text += "[" + lv.index.text + "]";
  if (lv.hasPart) text += "[" + lv.partOffset.text + " +: " + std::to_string(lv.width) + "]";
  return text;
}

}  // namespace synergy::hwlower
