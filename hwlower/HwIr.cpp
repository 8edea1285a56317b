//===- HwIr.cpp - Shared helpers of the HW IR -----------------------------===//
//
// The one diagnostics path of the hardware compiler, the Verilog text of an
// assignment target, which the frontend (function bodies) and the emitter
// (core statements) must spell identically, and the identifiers of a piece
// of Verilog text, for passes that follow dependences through it.
//
//===----------------------------------------------------------------------===//
#include "hwlower/HwIr.h"

#include <cctype>
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

static bool isIdentStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
static bool isIdentChar(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$'; }

std::vector<std::string> identifiersIn(const std::string& text) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      ++i;
    } else if (c == '\'') {
      for (++i; i < text.size() && (isIdentChar(text[i]) || text[i] == '?'); ++i) {
      }
    } else if (std::isdigit((unsigned char)c) || c == '$') {
      for (++i; i < text.size() && isIdentChar(text[i]); ++i) {
      }
    } else if (isIdentStart(c)) {
      size_t start = i;
      for (++i; i < text.size() && isIdentChar(text[i]); ++i) {
      }
      ids.push_back(text.substr(start, i - start));
    } else {
      ++i;
    }
  }
  return ids;
}

void forEachExprText(const Stmt& st, const std::function<void(const std::string&)>& fn) {
  anyStatement(st, [&](const Stmt& s) {
    for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()}) {
      if (!a) continue;
      if (a->kind == StmtKind::Assign || a->kind == StmtKind::NbAssign) fn(a->rhs.text);
      for (const LValue& lv : a->lhs) {
        if (lv.hasIndex) fn(lv.index.text);
        if (lv.hasPart) fn(lv.partOffset.text);
      }
    }
    if (s.kind == StmtKind::If || s.kind == StmtKind::While || s.kind == StmtKind::Case) fn(s.cond.text);
    for (const CaseItem& item : s.items)
      for (const Expr& label : item.labels) fn(label.text);
    return false;
  });
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
