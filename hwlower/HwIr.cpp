//===- HwIr.cpp - Shared helpers of the HW IR -----------------------------===//
//
// The one diagnostics path of the hardware compiler, the Verilog text of an
// assignment target, which the frontend (function bodies) and the emitter
// (core statements) must spell identically, the identifiers of a piece of
// Verilog text (and renaming one of them), and the variables derived from
// others through continuous logic, for passes that follow dependences
// through them.
//
//===----------------------------------------------------------------------===//
#include "hwlower/HwIr.h"

#include <cctype>
#include <iostream>
#include <map>

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

// Calls `fn` with the position and length of every identifier of `text`.
static void forEachIdentifier(const std::string& text, const std::function<void(size_t, size_t)>& fn) {
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
      fn(start, i - start);
    } else {
      ++i;
    }
  }
}

std::vector<std::string> identifiersIn(const std::string& text) {
  std::vector<std::string> ids;
  forEachIdentifier(text, [&](size_t start, size_t length) { ids.push_back(text.substr(start, length)); });
  return ids;
}

bool isResizeHelper(const std::string& id) {
  size_t digitsFrom = id.rfind("__trunc_", 0) == 0 ? 8 : id.rfind("__sext_", 0) == 0 ? 7 : 0;
  if (!digitsFrom) return false;
  size_t split = id.find('_', digitsFrom);
  auto allDigits = [&](size_t from, size_t to) {
    if (from >= to) return false;
    for (size_t k = from; k < to; ++k)
      if (!std::isdigit((unsigned char)id[k])) return false;
    return true;
  };
  return split != std::string::npos && allDigits(digitsFrom, split) && allDigits(split + 1, id.size());
}

unsigned hexDigitValue(char c) {
  if (std::isdigit((unsigned char)c)) return unsigned(c - '0');
  if (std::isxdigit((unsigned char)c)) return unsigned(std::tolower((unsigned char)c) - 'a' + 10);
  return 16;
}

std::optional<uint64_t> literalValue(const std::string& text) {
  size_t tick = text.find('\'');
  std::string digits = tick == std::string::npos ? text : text.substr(tick + 1);
  unsigned base = 10;
  if (tick != std::string::npos) {
    if (!digits.empty() && (digits[0] == 's' || digits[0] == 'S')) digits.erase(0, 1);
    if (digits.empty()) return std::nullopt;
    char b = char(std::tolower((unsigned char)digits[0]));
    base = b == 'd' ? 10 : b == 'h' ? 16 : b == 'b' ? 2 : b == 'o' ? 8 : 0;
    if (!base) return std::nullopt;
    digits.erase(0, 1);
  }
  if (digits.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    unsigned digit = hexDigitValue(c);
    if (digit >= base || value > (UINT64_MAX - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

std::string renameIdentifier(const std::string& text, const std::string& from, const std::string& to) {
  std::string out;
  size_t copied = 0;
  forEachIdentifier(text, [&](size_t start, size_t length) {
    if (text.compare(start, length, from) != 0) return;
    out += text.substr(copied, start - copied) + to;
    copied = start + length;
  });
  return out + text.substr(copied);
}

static std::string placedAtOffset(const std::string& bits, const Expr& offset) {
  std::string off = "(" + offset.text + ")";
  std::string left = "(" + bits + " << " + off + ")";
  if (!offset.isSigned) return left;
  return "((" + off + " < 0) ? (" + bits + " >> $unsigned(-" + off + ")) : " + left + ")";
}

std::string runTimePartMask(unsigned wordWidth, unsigned width, const Expr& offset) {
  return placedAtOffset("{{" + std::to_string(wordWidth) + "{1'b0}}, {" + std::to_string(width) + "{1'b1}}}",
                        offset);
}

std::string runTimePartMerge(const std::string& word, unsigned wordWidth, unsigned width,
                             const std::string& value, const Expr& offset) {
  std::string mask = runTimePartMask(wordWidth, width, offset);
  std::string placed = placedAtOffset("{{" + std::to_string(wordWidth) + "{1'b0}}, " + value + "}", offset);
  return "{(" + word + " & ~" + mask + ") | (" + placed + " & " + mask + ")}";
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

bool readsArgumentsAtEndOfTick(const std::string& task) {
  return task == "$strobe" || task == "$fstrobe" || task == "$monitor" || task == "$fmonitor" ||
         task == "$strobeb" || task == "$strobeh" || task == "$strobeo" || task == "$monitorb" ||
         task == "$monitorh" || task == "$monitoro";
}

std::map<std::string, int> variablesByIdent(const Design& design) {
  std::map<std::string, int> byIdent;
  for (size_t v = 0; v < design.vars.size(); ++v)
    if (!design.vars[v].inFunction) byIdent[design.vars[v].ident] = int(v);
  return byIdent;
}

std::set<int> derivedFrom(const Design& design, std::set<int> seeds) {
  std::map<std::string, int> varOfIdent = variablesByIdent(design);
  // Each derivation: what it reads, what it writes.
  std::vector<std::pair<std::vector<std::string>, std::set<int>>> derivations;
  for (const std::string& line : design.netlist) {
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::set<int> written;
    for (const std::string& id : identifiersIn(line.substr(0, eq)))
      if (auto it = varOfIdent.find(id); it != varOfIdent.end()) written.insert(it->second);
    derivations.push_back({identifiersIn(line.substr(eq + 1)), written});
  }
  for (const StmtPtr& block : design.combinationalBlocks) {
    std::vector<std::string> reads;
    std::set<int> written;
    forEachExprText(*block, [&](const std::string& text) {
      for (const std::string& id : identifiersIn(text)) reads.push_back(id);
    });
    anyStatement(*block, [&](const Stmt& s) {
      for (const Stmt* a : std::initializer_list<const Stmt*>{&s, s.forInit.get(), s.forStep.get()})
        if (a)
          for (const LValue& lv : a->lhs) written.insert(lv.var);
      return false;
    });
    derivations.push_back({reads, written});
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [reads, written] : derivations) {
      bool readsSeed = false;
      for (const std::string& id : reads)
        if (auto it = varOfIdent.find(id); it != varOfIdent.end() && seeds.count(it->second))
          readsSeed = true;
      if (!readsSeed) continue;
      for (int v : written) grew |= seeds.insert(v).second;
    }
  }
  return seeds;
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
