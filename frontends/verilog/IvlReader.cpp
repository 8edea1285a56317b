//===- IvlReader.cpp - Scopes, processes and statements to HW IR ----------===//
//
// This file implements the procedural half of IvlReader: it declares one Var
// per signal of every scope (hierarchy flattened, names mangled), translates
// each process into a hwlower::Process, and each expression into Verilog
// text that is width-exact and self-determined. Every compound expression is
// wrapped in a concatenation `{...}` (self-determined, so it cannot widen in
// its context) and in `$signed(...)` when Icarus says it is signed; width
// changes Icarus implies become explicit helper-function calls.
//
// System functions inside expressions ($feof, $fgetc, $random, $time, ...)
// cannot be evaluated by hardware: each is hoisted into a Task statement
// placed right before the statement that uses it, and the expression reads
// the task's result register instead.
//
//===----------------------------------------------------------------------===//
#include "frontends/verilog/IvlReader.h"
#include "hwlower/VerilogKeywords.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

namespace synergy::verilog {

using namespace hwlower;

// Real 0 as the engine's Verilog spells every real constant: from its bits
// (the .eng check admits no real literal).
static const std::string kRealZero = "$bitstoreal(64'h0000000000000000)";

static bool isRealValued(ivl_expr_t e) { return ivl_expr_value(e) == IVL_VT_REAL; }

static bool isRealTarget(ivl_lval_t lv) {
  ivl_signal_t sig = ivl_lval_sig(lv);
  return sig && ivl_signal_data_type(sig) == IVL_VT_REAL;
}

static std::string rangeText(unsigned width) {
  return width > 1 ? "[" + std::to_string(width - 1) + ":0] " : "";
}

// What a diagnostic calls a construct Icarus hands over but the IR has no
// place for: its source name, never Icarus's enum value.
static std::string statementKindName(ivl_statement_type_t type) {
  switch (type) {
    case IVL_ST_CONTRIB: return "analog contribution statement";
    case IVL_ST_FORK_JOIN_ANY: return "fork/join_any";
    case IVL_ST_FORK_JOIN_NONE: return "fork/join_none";
    default: return "statement of an unknown kind";
  }
}

static std::string expressionKindName(ivl_expr_type_t type) {
  switch (type) {
    case IVL_EX_ARRAY: return "whole-array expression";
    case IVL_EX_BACCESS: return "branch access expression";
    case IVL_EX_DELAY: return "delay expression";
    case IVL_EX_ENUMTYPE: return "enum type expression";
    case IVL_EX_EVENT: return "named event in an expression";
    case IVL_EX_MEMORY: return "memory expression";
    case IVL_EX_NEW: return "new expression";
    case IVL_EX_NULL: return "null expression";
    case IVL_EX_ARRAY_PATTERN: return "array pattern";
    case IVL_EX_PROPERTY: return "class property expression";
    case IVL_EX_SCOPE: return "scope name in an expression";
    case IVL_EX_SHALLOWCOPY: return "shallow copy expression";
    default: return "expression of an unknown kind";
  }
}

// A name component that is its own identifier: a letter, then letters,
// digits and single `_` between them. Such components joined by `__` can be
// split again, and never start with `__`, which the names we add use.
static bool isPlainComponent(const std::string& component) {
  if (component.empty() || !std::isalpha((unsigned char)component[0]) || component.back() == '_') return false;
  for (size_t i = 0; i < component.size(); ++i) {
    char c = component[i];
    if (!std::isalnum((unsigned char)c) && !(c == '_' && component[i - 1] != '_')) return false;
  }
  return true;
}

// Mangling must be injective: two user names that came out as one
// identifier would share one register, and a user name that came out as one
// of ours (a signal called `__clk` or `__task_r`) would be declared twice.
// So a plain component stays as it is, and any other (a leading or trailing
// `_`, `__`, a leading digit, an escaped identifier's characters, a keyword)
// becomes `_x`, the hex of its bytes and `_`; the hierarchy's dots become
// `__`, as no plain or hex component holds `__` or starts with it.
std::string IvlReader::mangle(const std::string& hierName) const {
  std::string name = hierName;
  std::string top = std::string(ivl_scope_name(topScope_)) + ".";
  if (name.compare(0, top.size(), top) == 0) name = name.substr(top.size());
  static const char kHexDigits[] = "0123456789abcdef";
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t dot = name.find('.', start);
    std::string component = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool keyword = start == 0 && dot == std::string::npos && isVerilogKeyword(component);
    if (isPlainComponent(component) && !keyword) {
      out += component;
    } else {
      out += "_x";
      for (unsigned char c : component) {
        out += kHexDigits[c >> 4];
        out += kHexDigits[c & 15];
      }
      out += '_';
    }
    if (dot == std::string::npos) break;
    out += "__";
    start = dot + 1;
  }
  return out;
}

SourceLoc IvlReader::locOf(ivl_statement_t st) const {
  SourceLoc loc;
  if (const char* f = ivl_stmt_file(st)) loc.file = f;
  loc.line = ivl_stmt_lineno(st);
  return loc;
}

int IvlReader::varOf(ivl_signal_t sig) {
  auto it = sigVar_.find(sig);
  if (it != sigVar_.end()) return it->second;
  declareSignal(sig, false);
  return sigVar_.at(sig);
}

void IvlReader::declareSignal(ivl_signal_t sig, bool insideFunction) {
  if (sigVar_.count(sig)) return;
  Var v;
  v.name = ivl_signal_name(sig);
  v.ident = mangle(v.name);
  v.width = ivl_signal_width(sig);
  v.isSigned = ivl_signal_signed(sig);
  if (ivl_signal_dimensions(sig) > 0) {
    v.depth = ivl_signal_array_count(sig);
    v.arrayBase = ivl_signal_array_base(sig);
  }
  v.kind = ivl_signal_type(sig) == IVL_SIT_REG ? VarKind::Reg : VarKind::Wire;
  v.inFunction = insideFunction;
  v.isLocal = ivl_signal_local(sig);
  // A real is held as the 64 bits of its IEEE double (see realText).
  if (ivl_signal_data_type(sig) == IVL_VT_REAL) {
    v.isReal = true;
    v.width = 64;
    v.isSigned = false;
  }
  if (ivl_signal_scope(sig) == topScope_ && ivl_signal_port(sig) == IVL_SIP_INPUT)
    v.kind = VarKind::Input;
  for (unsigned i = 0; i < ivl_signal_attr_cnt(sig); ++i) {
    ivl_attribute_t attr = ivl_signal_attr_val(sig, i);
    if (std::strcmp(attr->key, "non_volatile") == 0) v.nonVolatileAttr = true;
  }
  if (const char* f = ivl_signal_file(sig)) v.loc.file = f;
  v.loc.line = ivl_signal_lineno(sig);
  ivl_variable_type_t dt = ivl_signal_data_type(sig);
  if (dt != IVL_VT_LOGIC && dt != IVL_VT_BOOL && dt != IVL_VT_REAL && dt != IVL_VT_NO_TYPE)
    diags_.unsupported("signal '" + v.name + "' of a non-vector type", v.loc);
  sigVar_[sig] = out_.addVar(std::move(v));
}

void IvlReader::collectScope(ivl_scope_t scope, bool insideFunction) {
  ivl_scope_type_t type = ivl_scope_type(scope);
  if (type == IVL_SCT_FUNCTION) insideFunction = true;
  if (type == IVL_SCT_CLASS || type == IVL_SCT_PACKAGE) return;
  for (unsigned i = 0; i < ivl_scope_sigs(scope); ++i)
    declareSignal(ivl_scope_sig(scope, i), insideFunction);
  for (size_t i = 0; i < ivl_scope_childs(scope); ++i)
    collectScope(ivl_scope_child(scope, i), insideFunction);
}

bool IvlReader::read() {
  unsigned nroots = 0;
  ivl_scope_t* roots = nullptr;
  ivl_design_roots(des_, &roots, &nroots);
  // With several roots (an uninstantiated module, or no -top), the test
  // bench is the one named tb or top; otherwise the first.
  for (unsigned i = 0; i < nroots; ++i) {
    if (ivl_scope_type(roots[i]) != IVL_SCT_MODULE) continue;
    std::string name = ivl_scope_basename(roots[i]);
    if (!topScope_ || name == "tb" || name == "top") topScope_ = roots[i];
    if (name == "tb" || name == "top") break;
  }
  if (!topScope_) {
    diags_.error("no top-level module", {});
    return false;
  }
  out_.top = ivl_scope_basename(topScope_);
  for (unsigned i = 0; i < nroots; ++i) collectScope(roots[i], false);

  // A top-level `input clock` is the virtual clock the runtime drives.
  for (unsigned i = 0; i < ivl_scope_sigs(topScope_); ++i) {
    ivl_signal_t sig = ivl_scope_sig(topScope_, i);
    if (ivl_signal_port(sig) == IVL_SIP_INPUT) {
      int v = varOf(sig);
      if (out_.clockVar < 0 && out_.vars[v].width == 1) out_.clockVar = v;
    }
  }

  readNetlist();
  readProcesses();
  for (const std::string& helper : resizeHelpers_) out_.functions.push_back(helper);
  return !diags_.failed();
}

//===----------------------------------------------------------------------===//
// Processes and statements
//===----------------------------------------------------------------------===//

// Icarus marks an always block whose guard waits for value changes only
// (`@(a or b)`, `@*`) to start before every other process, the declaration
// initializers included.
static bool schedulesFirst(ivl_process_t proc) {
  for (unsigned i = 0; i < ivl_process_attr_cnt(proc); ++i)
    if (std::strcmp(ivl_process_attr_val(proc, i)->key, "_ivl_schedule_push") == 0) return true;
  return false;
}

// The whole variables that the leading assignments of an initial block
// write: they hold x until then under vvp. Icarus hands the declaration
// initializers of a module over as such a block, placed at the module's
// line, whose assignments are at their variables' declarations.
void IvlReader::markInitializedAtTimeZero(const Stmt& body, bool atModuleLine) {
  auto mark = [&](const Stmt& st) {
    if (st.kind != StmtKind::Assign) return false;
    for (const LValue& lv : st.lhs) {
      Var& var = out_.vars[lv.var];
      if (lv.hasIndex || lv.hasPart || var.depth != 0) continue;
      var.initializedAtTimeZero = true;
      bool atDeclaration = st.loc.line == var.loc.line && st.loc.file == var.loc.file;
      if (atModuleLine && atDeclaration && st.lhs.size() == 1) {
        var.hasDeclarationInitializer = true;
        var.declaredValue = literalValue(st.rhs.text);
      }
    }
    return true;
  };
  if (body.kind != StmtKind::Block) {
    mark(body);
    return;
  }
  for (const StmtPtr& st : body.body)
    if (!mark(*st)) return;
}

void IvlReader::readProcesses() {
  ivl_design_process(
      des_,
      [](ivl_process_t proc, void* self) -> int {
        auto* reader = static_cast<IvlReader*>(self);
        Process p;
        if (const char* f = ivl_process_file(proc)) p.loc.file = f;
        p.loc.line = ivl_process_lineno(proc);
        reader->currentScope_ = ivl_process_scope(proc);
        ++reader->currentProcess_;
        ivl_statement_t st = ivl_process_stmt(proc);
        switch (ivl_process_type(proc)) {
          case IVL_PR_INITIAL:
            p.kind = ProcessKind::Initial;
            p.body = reader->readStmt(st);
            reader->markInitializedAtTimeZero(*p.body,
                                              p.loc.line == ivl_scope_def_lineno(ivl_process_scope(proc)));
            break;
          case IVL_PR_ALWAYS:
          case IVL_PR_ALWAYS_COMB:
          case IVL_PR_ALWAYS_FF:
          case IVL_PR_ALWAYS_LATCH:
            p.kind = ProcessKind::Always;
            p.waitsBeforeInitializers = schedulesFirst(proc);
            if (ivl_statement_type(st) == IVL_ST_WAIT) {
              p.guard = reader->readEventTerms(st);
              ivl_statement_t sub = ivl_stmt_sub_stmt(st);
              p.body = sub ? reader->readStmt(sub) : std::make_unique<Stmt>();
            } else {
              // A delay is a clock generator; anything else must wait
              // inside its body (mergeProcessesIntoCore decides).
              p.body = reader->readStmt(st);
            }
            break;
          case IVL_PR_FINAL:
            reader->diags_.unsupported("final block", p.loc);
            return 0;
        }
        reader->out_.processes.push_back(std::move(p));
        return 0;
      },
      this);
}

static ivl_scope_t enclosingModule(ivl_scope_t scope) {
  while (scope && ivl_scope_type(scope) != IVL_SCT_MODULE && ivl_scope_parent(scope))
    scope = ivl_scope_parent(scope);
  return scope;
}

// An edge or change event normally waits on its nexus's canonical variable.
// When that is a register of another module, the process names a net (a
// port) that the register drives, and under vvp that net goes from x to the
// register's power-on value at time 0 after the process started waiting: a
// negedge (clock starting at 0), a posedge (starting at 1) and a change all
// fire once then. The guard is then the net itself, so
// replaceGuardsWithNativeClock can give it that first edge. (Icarus shares
// one event among the processes that wait on one nexus, so the module is
// the waiting process's, not the event's.)
int IvlReader::eventVar(ivl_nexus_t nex) {
  int canon = nexusVar(nex, 0);
  if (out_.vars[canon].kind != VarKind::Reg || !currentScope_) return canon;
  ivl_scope_t module = enclosingModule(currentScope_);
  for (unsigned i = 0; i < ivl_nexus_ptrs(nex); ++i) {
    ivl_signal_t sig = ivl_nexus_ptr_sig(ivl_nexus_ptr(nex, i));
    if (!sig || enclosingModule(ivl_signal_scope(sig)) != module || ivl_signal_dimensions(sig) > 0) continue;
    if (ivl_signal_type(sig) == IVL_SIT_REG) return canon;
    int v = varOf(sig);
    if (out_.vars[v].kind == VarKind::Wire && !out_.vars[v].inFunction) return v;
  }
  return canon;
}

std::vector<EventTerm> IvlReader::readEventTerms(ivl_statement_t wait) {
  std::vector<EventTerm> terms;
  for (unsigned i = 0; i < ivl_stmt_nevent(wait); ++i) {
    ivl_event_t ev = ivl_stmt_events(wait, i);
    for (unsigned k = 0; k < ivl_event_npos(ev); ++k)
      terms.push_back({EdgeKind::Pos, eventVar(ivl_event_pos(ev, k))});
    for (unsigned k = 0; k < ivl_event_nneg(ev); ++k)
      terms.push_back({EdgeKind::Neg, eventVar(ivl_event_neg(ev, k))});
    for (unsigned k = 0; k < ivl_event_nany(ev); ++k)
      terms.push_back({EdgeKind::Any, eventVar(ivl_event_any(ev, k))});
  }
  return terms;
}

static StmtPtr makeStmt(StmtKind kind, SourceLoc loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = kind;
  s->loc = std::move(loc);
  return s;
}

static StmtPtr cloneTaskStmt(const Stmt& s) {
  auto c = makeStmt(StmtKind::Task, s.loc);
  c->call = s.call;
  return c;
}

// Prepends the system-function calls hoisted while reading `st`'s own
// expressions (not those of its children, which wrap their own).
StmtPtr IvlReader::wrapHoisted(StmtPtr st) {
  if (hoisted_.empty()) return st;
  auto block = makeStmt(StmtKind::Block, st->loc);
  for (StmtPtr& h : hoisted_) block->body.push_back(std::move(h));
  hoisted_.clear();
  block->body.push_back(std::move(st));
  return block;
}

// Icarus delivers `for (i = a; i < N; i = i + s) body` as the assignment
// `i = a` followed by `while (i < N) begin body; i = i + s; end`. With a
// constant bound, synthesis can unroll it as a `for`, so it is recognised.
static ivl_signal_t plainSignal(ivl_expr_t e) {
  if (ivl_expr_type(e) == IVL_EX_SELECT && !ivl_expr_oper2(e)) e = ivl_expr_oper1(e);
  if (ivl_expr_type(e) != IVL_EX_SIGNAL || ivl_expr_oper1(e)) return nullptr;
  return ivl_expr_signal(e);
}

static bool isConstantExpr(ivl_expr_t e) {
  if (ivl_expr_type(e) == IVL_EX_SELECT && !ivl_expr_oper2(e)) e = ivl_expr_oper1(e);
  return ivl_expr_type(e) == IVL_EX_NUMBER || ivl_expr_type(e) == IVL_EX_ULONG;
}

static ivl_signal_t wholeTarget(ivl_statement_t st) {
  if (ivl_statement_type(st) != IVL_ST_ASSIGN || ivl_stmt_lvals(st) != 1) return nullptr;
  ivl_lval_t lv = ivl_stmt_lval(st, 0);
  if (ivl_lval_idx(lv) || ivl_lval_nest(lv)) return nullptr;
  ivl_signal_t sig = ivl_lval_sig(lv);
  if (!sig || ivl_lval_width(lv) != ivl_signal_width(sig)) return nullptr;
  return sig;
}

static bool isCountedFor(ivl_statement_t init, ivl_statement_t loop) {
  ivl_signal_t var = wholeTarget(init);
  if (!var || ivl_statement_type(loop) != IVL_ST_WHILE) return false;
  ivl_expr_t cond = ivl_stmt_cond_expr(loop);
  if (ivl_expr_type(cond) != IVL_EX_BINARY) return false;
  if (!std::strchr("<>LGn", ivl_expr_opcode(cond))) return false;
  ivl_expr_t a = ivl_expr_oper1(cond), b = ivl_expr_oper2(cond);
  bool bounded = (plainSignal(a) == var && isConstantExpr(b)) ||
                 (plainSignal(b) == var && isConstantExpr(a));
  if (!bounded || ivl_expr_type(ivl_stmt_rval(init)) == IVL_EX_SFUNC) return false;
  ivl_statement_t body = ivl_stmt_sub_stmt(loop);
  if (!body || ivl_statement_type(body) != IVL_ST_BLOCK || ivl_stmt_block_count(body) == 0)
    return false;
  ivl_statement_t step = ivl_stmt_block_stmt(body, ivl_stmt_block_count(body) - 1);
  return wholeTarget(step) == var && ivl_expr_type(ivl_stmt_rval(step)) != IVL_EX_SFUNC;
}

StmtPtr IvlReader::readStmt(ivl_statement_t st) {
  SourceLoc loc = locOf(st);
  switch (ivl_statement_type(st)) {
    case IVL_ST_NOOP:
      return makeStmt(StmtKind::Nop, loc);
    case IVL_ST_BLOCK:
    case IVL_ST_FORK: {
      if (std::optional<unsigned> routine = activeRecursiveTaskCall(st)) return readRecursiveTaskCall(st, *routine);
      auto block = makeStmt(StmtKind::Block, loc);
      block->isFork = ivl_statement_type(st) == IVL_ST_FORK;
      if (ivl_scope_t named = ivl_stmt_block_scope(st)) block->label = ivl_scope_name(named);
      unsigned n = ivl_stmt_block_count(st);
      for (unsigned i = 0; i < n; ++i) {
        ivl_statement_t child = ivl_stmt_block_stmt(st, i);
        if (i + 1 < n && isCountedFor(child, ivl_stmt_block_stmt(st, i + 1))) {
          block->body.push_back(readCountedFor(child, ivl_stmt_block_stmt(st, i + 1)));
          ++i;
          continue;
        }
        block->body.push_back(readStmt(child));
      }
      // Running a fork's branches in order is only a valid schedule when
      // none of them waits.
      if (block->isFork && containsEventWait(*block)) {
        diags_.unsupported("event control inside fork/join", loc);
        return makeStmt(StmtKind::Nop, loc);
      }
      return block;
    }
    case IVL_ST_ASSIGN:
    case IVL_ST_ASSIGN_NB: {
      if (ivl_stmt_delay_expr(st)) {
        diags_.unsupported("intra-assignment delay", loc);
        return makeStmt(StmtKind::Nop, loc);
      }
      auto a = makeStmt(ivl_statement_type(st) == IVL_ST_ASSIGN ? StmtKind::Assign
                                                                   : StmtKind::NbAssign,
                        loc);
      a->rhs = readAssignedValue(st);
      // Icarus lists concatenated l-values LSB first.
      for (unsigned i = 0; i < ivl_stmt_lvals(st); ++i) readLValue(ivl_stmt_lval(st, i), a->lhs);
      unsigned lw = assignedWidth(st);
      if (a->rhs.width != lw) {
        a->rhs.text = resized(a->rhs.text, a->rhs.width, lw, a->rhs.isSigned);
        a->rhs.width = lw;
      }
      return wrapHoisted(guardRunTimePartSelect(std::move(a)));
    }
    case IVL_ST_CONDIT: {
      auto s = makeStmt(StmtKind::If, loc);
      s->cond = readExpr(ivl_stmt_cond_expr(st));
      std::vector<StmtPtr> mine = std::move(hoisted_);
      hoisted_.clear();
      ivl_statement_t t = ivl_stmt_cond_true(st), f = ivl_stmt_cond_false(st);
      s->thenStmt = t ? readStmt(t) : makeStmt(StmtKind::Nop, loc);
      s->elseStmt = f ? readStmt(f) : makeStmt(StmtKind::Nop, loc);
      hoisted_ = std::move(mine);
      return wrapHoisted(std::move(s));
    }
    case IVL_ST_CASE:
    case IVL_ST_CASEX:
    case IVL_ST_CASEZ: {
      auto s = makeStmt(StmtKind::Case, loc);
      s->caseKind = ivl_statement_type(st) == IVL_ST_CASE    ? CaseKind::Case
                    : ivl_statement_type(st) == IVL_ST_CASEX ? CaseKind::CaseX
                                                             : CaseKind::CaseZ;
      s->cond = readExpr(ivl_stmt_cond_expr(st));
      // Icarus gives `a, b: stmt` as one item per label, each with its own
      // copy of the statement; the copies are kept (same behaviour).
      std::vector<CaseItem> items;
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i) {
        CaseItem item;
        if (ivl_expr_t label = ivl_stmt_case_expr(st, i)) {
          keepXZ_ = s->caseKind != CaseKind::Case;
          Expr e = readExpr(label);
          keepXZ_ = false;
          unsigned w = std::max(e.width, s->cond.width);
          e.text = resized(e.text, e.width, w, e.isSigned);
          item.labels.push_back(e);
        }
        items.push_back(std::move(item));
      }
      std::vector<StmtPtr> mine = std::move(hoisted_);
      hoisted_.clear();
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i) {
        ivl_statement_t sub = ivl_stmt_case_stmt(st, i);
        items[i].body = sub ? readStmt(sub) : makeStmt(StmtKind::Nop, loc);
      }
      s->items = std::move(items);
      hoisted_ = std::move(mine);
      return wrapHoisted(std::move(s));
    }
    case IVL_ST_WHILE: {
      auto s = makeStmt(StmtKind::While, loc);
      s->cond = readExpr(ivl_stmt_cond_expr(st));
      if (std::any_of(hoisted_.begin(), hoisted_.end(), [](const StmtPtr& h) { return h->kind != StmtKind::Task; }))
        diags_.unsupported("call of a recursive function in a loop condition", loc);
      std::vector<StmtPtr> mine = std::move(hoisted_);
      hoisted_.clear();
      auto body = makeStmt(StmtKind::Block, loc);
      body->body.push_back(readStmt(ivl_stmt_sub_stmt(st)));
      // The condition's system functions run again before every re-test.
      for (const StmtPtr& h : mine) body->body.push_back(cloneTaskStmt(*h));
      s->loopBody = std::move(body);
      hoisted_ = std::move(mine);
      return wrapHoisted(std::move(s));
    }
    case IVL_ST_REPEAT: {
      Expr count = readExpr(ivl_stmt_cond_expr(st));
      std::vector<StmtPtr> mine = std::move(hoisted_);
      hoisted_.clear();
      Var counter;
      counter.name = "__repeat_" + std::to_string(uniqueCounter_++);
      counter.ident = counter.name;
      counter.width = std::max(32u, count.width);
      counter.kind = VarKind::Internal;
      int cv = out_.addVar(counter);
      LValue lv;
      lv.var = cv;
      lv.width = counter.width;
      auto init = makeStmt(StmtKind::Assign, loc);
      init->lhs.push_back(lv);
      init->rhs = count;
      init->rhs.text = resized(count.text, count.width, counter.width, false);
      auto loop = makeStmt(StmtKind::While, loc);
      loop->cond.text = "{" + counter.ident + " != 0}";
      loop->cond.width = 1;
      auto body = makeStmt(StmtKind::Block, loc);
      body->body.push_back(readStmt(ivl_stmt_sub_stmt(st)));
      auto dec = makeStmt(StmtKind::Assign, loc);
      dec->lhs.push_back(lv);
      dec->rhs.text = "{" + counter.ident + " - " + std::to_string(counter.width) + "'d1}";
      dec->rhs.width = counter.width;
      body->body.push_back(std::move(dec));
      loop->loopBody = std::move(body);
      auto block = makeStmt(StmtKind::Block, loc);
      for (StmtPtr& h : mine) block->body.push_back(std::move(h));
      block->body.push_back(std::move(init));
      block->body.push_back(std::move(loop));
      return block;
    }
    case IVL_ST_FOREVER: {
      // A loop on a constant true condition; mergeProcessesIntoCore accepts
      // it only when every iteration waits for an event.
      auto s = makeStmt(StmtKind::While, loc);
      s->isForever = true;
      s->cond.text = "1'b1";
      s->cond.width = 1;
      s->cond.isConstant = true;
      s->loopBody = readStmt(ivl_stmt_sub_stmt(st));
      return s;
    }
    case IVL_ST_CASER: {
      // A case on a real compares the subject with each label as reals
      // (IEEE 1364 9.5), so 0.0 matches -0.0 where the bits differ: an if
      // chain of real equalities in item order, the default at its end.
      // The subject is read once; its system functions are hoisted before.
      std::string subject = realText(ivl_stmt_cond_expr(st));
      std::vector<std::string> matches(ivl_stmt_case_count(st));
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i)
        if (ivl_expr_t label = ivl_stmt_case_expr(st, i))
          matches[i] = "{" + subject + " == " + realText(label) + "}";
      std::vector<StmtPtr> mine = std::move(hoisted_);
      hoisted_.clear();
      std::vector<StmtPtr> bodies;
      StmtPtr chain = makeStmt(StmtKind::Nop, loc);
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i) {
        ivl_statement_t sub = ivl_stmt_case_stmt(st, i);
        bodies.push_back(sub ? readStmt(sub) : makeStmt(StmtKind::Nop, loc));
        if (matches[i].empty()) chain = std::move(bodies.back());
      }
      for (size_t i = bodies.size(); i-- > 0;) {
        if (matches[i].empty()) continue;
        auto test = makeStmt(StmtKind::If, loc);
        test->cond.text = matches[i];
        test->cond.width = 1;
        test->thenStmt = std::move(bodies[i]);
        test->elseStmt = std::move(chain);
        chain = std::move(test);
      }
      hoisted_ = std::move(mine);
      return wrapHoisted(std::move(chain));
    }
    case IVL_ST_DO_WHILE:
      diags_.unsupported("do-while loop", loc);
      return makeStmt(StmtKind::Nop, loc);
    case IVL_ST_STASK: {
      std::vector<ivl_expr_t> args;
      for (unsigned i = 0; i < ivl_stmt_parm_count(st); ++i) args.push_back(ivl_stmt_parm(st, i));
      auto s = makeStmt(StmtKind::Task, loc);
      Stmt call = readTaskCall(st, ivl_stmt_name(st), args);
      s->call = std::move(call.call);
      return wrapHoisted(std::move(s));
    }
    case IVL_ST_UTASK: {
      // A task call is its body, inlined. An automatic task's variables are
      // then shared by its calls, which is only sound when no call starts
      // before the previous one ended: never recursively (refused here),
      // and, when the task waits, from one process only (checked below).
      ivl_scope_t task = ivl_stmt_call(st);
      if (std::find(tasksBeingRead_.begin(), tasksBeingRead_.end(), task) != tasksBeingRead_.end()) {
        diags_.unsupported("recursive task '" + std::string(ivl_scope_basename(task)) + "'" +
                               (ivl_scope_is_auto(task) ? " called through another task" : " that is not automatic"),
                           loc);
        return makeStmt(StmtKind::Nop, loc);
      }
      // A recursive automatic task runs with a stack (IvlRecursiveCall.cpp).
      if (ivl_scope_is_auto(task) && isRecursiveTask(task)) return readRecursiveTaskBody(task, loc);
      ivl_scope_t saved = currentScope_;
      currentScope_ = task;
      tasksBeingRead_.push_back(task);
      StmtPtr body = readStmt(ivl_scope_def(task));
      tasksBeingRead_.pop_back();
      currentScope_ = saved;
      if (ivl_scope_is_auto(task) && anyStatement(*body, [](const Stmt& s) {
            return s.kind == StmtKind::EventWait || s.kind == StmtKind::Delay;
          })) {
        auto [it, first] = waitingAutomaticTaskCaller_.emplace(task, currentProcess_);
        if (!first && it->second != currentProcess_)
          diags_.unsupported("automatic task '" + std::string(ivl_scope_basename(task)) +
                                 "' that waits, called from more than one process",
                             loc);
      }
      return body;
    }
    case IVL_ST_ALLOC:
      return zeroAutomaticVariables(ivl_stmt_call(st), loc);
    case IVL_ST_FREE:
      return makeStmt(StmtKind::Nop, loc);
    case IVL_ST_DELAY: {
      auto s = makeStmt(StmtKind::Delay, loc);
      s->delay = ivl_stmt_delay_val(st);
      ivl_statement_t sub = ivl_stmt_sub_stmt(st);
      s->loopBody = sub ? readStmt(sub) : makeStmt(StmtKind::Nop, loc);
      return s;
    }
    case IVL_ST_WAIT: {
      auto s = makeStmt(StmtKind::EventWait, loc);
      s->events = readEventTerms(st);
      ivl_statement_t sub = ivl_stmt_sub_stmt(st);
      s->loopBody = sub ? readStmt(sub) : makeStmt(StmtKind::Nop, loc);
      return s;
    }
    case IVL_ST_DELAYX:
      diags_.unsupported("delay with a non-constant amount", loc);
      return makeStmt(StmtKind::Nop, loc);
    case IVL_ST_DISABLE: {
      // mergeProcessesIntoCore accepts only a disable of an enclosing block.
      auto s = makeStmt(StmtKind::Disable, loc);
      if (ivl_scope_t target = ivl_stmt_call(st)) s->label = ivl_scope_name(target);
      return s;
    }
    case IVL_ST_CASSIGN:
    case IVL_ST_DEASSIGN:
    case IVL_ST_FORCE:
    case IVL_ST_RELEASE:
      diags_.unsupported("procedural continuous assignment", loc);
      return makeStmt(StmtKind::Nop, loc);
    case IVL_ST_TRIGGER:
      diags_.unsupported("named event trigger", loc);
      return makeStmt(StmtKind::Nop, loc);
    default:
      diags_.unsupported(statementKindName(ivl_statement_type(st)), loc);
      return makeStmt(StmtKind::Nop, loc);
  }
}

// IEEE 1364 10.2.1: an automatic task's variables are new at every call.
// The two-state engine's new variable is 0, so a call starts by clearing
// them (Icarus puts this allocation before it assigns the inputs); an array
// word by word, in a counted loop that synthesis unrolls.
StmtPtr IvlReader::zeroAutomaticVariables(ivl_scope_t scope, const SourceLoc& loc) {
  auto block = makeStmt(StmtKind::Block, loc);
  auto assignment = [&](const LValue& target, const std::string& value, bool isConstant) {
    auto a = makeStmt(StmtKind::Assign, loc);
    a->lhs.push_back(target);
    a->rhs.text = value;
    a->rhs.width = target.width;
    a->rhs.isConstant = isConstant;
    return a;
  };
  for (unsigned i = 0; i < ivl_scope_sigs(scope); ++i) {
    int v = varOf(ivl_scope_sig(scope, i));
    const Var& var = out_.vars[v];
    LValue lv;
    lv.var = v;
    lv.width = var.width;
    std::string zero = std::to_string(var.width) + "'d0";
    if (var.depth == 0) {
      block->body.push_back(assignment(lv, zero, true));
      continue;
    }
    Var counter;
    counter.name = counter.ident = "__zero_index_" + std::to_string(uniqueCounter_++);
    counter.width = 64;
    counter.kind = VarKind::Internal;
    LValue index;
    index.var = out_.addVar(counter);
    index.width = counter.width;
    lv.hasIndex = true;
    lv.index.text = counter.ident;
    lv.index.width = counter.width;
    auto loop = makeStmt(StmtKind::While, loc);
    loop->forInit = assignment(index, "64'd0", true);
    loop->cond.text = "{" + counter.ident + " < 64'd" + std::to_string(var.depth) + "}";
    loop->cond.width = 1;
    loop->loopBody = makeStmt(StmtKind::Block, loc);
    loop->loopBody->body.push_back(assignment(lv, zero, true));
    loop->forStep = assignment(index, "{" + counter.ident + " + 64'd1}", false);
    block->body.push_back(std::move(loop));
  }
  return block;
}

StmtPtr IvlReader::readCountedFor(ivl_statement_t init, ivl_statement_t loop) {
  auto s = makeStmt(StmtKind::While, locOf(loop));
  s->forInit = readStmt(init);
  s->cond = readExpr(ivl_stmt_cond_expr(loop));
  ivl_statement_t body = ivl_stmt_sub_stmt(loop);
  unsigned n = ivl_stmt_block_count(body);
  auto inner = makeStmt(StmtKind::Block, locOf(body));
  for (unsigned i = 0; i + 1 < n; ++i) inner->body.push_back(readStmt(ivl_stmt_block_stmt(body, i)));
  s->loopBody = std::move(inner);
  s->forStep = readStmt(ivl_stmt_block_stmt(body, n - 1));
  return s;
}

// The value of a constant expression that fits in 64 bits, read as signed
// when the expression is; nothing for x/z bits or a non-constant.
static std::optional<int64_t> constantValue(ivl_expr_t e) {
  if (ivl_expr_type(e) == IVL_EX_ULONG) return int64_t(ivl_expr_uvalue(e));
  if (ivl_expr_type(e) != IVL_EX_NUMBER) return std::nullopt;
  const char* bits = ivl_expr_bits(e);
  unsigned width = ivl_expr_width(e);
  for (unsigned i = 0; i < width; ++i)
    if (bits[i] != '0' && bits[i] != '1') return std::nullopt;
  bool negative = ivl_expr_signed(e) && bits[width - 1] == '1';
  for (unsigned i = 63; i < width; ++i)
    if (bits[i] != (negative ? '1' : '0')) return std::nullopt;
  uint64_t value = negative ? ~uint64_t(0) : 0;
  for (unsigned i = 0; i < std::min(width, 64u); ++i)
    value = bits[i] == '1' ? value | (uint64_t(1) << i) : value & ~(uint64_t(1) << i);
  return int64_t(value);
}

static bool hasUnknownBits(ivl_expr_t e) {
  if (ivl_expr_type(e) != IVL_EX_NUMBER) return false;
  const char* bits = ivl_expr_bits(e);
  for (unsigned i = 0; i < ivl_expr_width(e); ++i)
    if (bits[i] != '0' && bits[i] != '1') return true;
  return false;
}

LValue IvlReader::discardTarget(unsigned width) {
  auto it = discardVars_.find(width);
  if (it == discardVars_.end()) {
    Var v;
    v.name = "__discard_" + std::to_string(width);
    v.ident = v.name;
    v.width = width;
    v.kind = VarKind::Reg;
    v.isLocal = true;
    it = discardVars_.emplace(width, out_.addVar(std::move(v))).first;
  }
  LValue out;
  out.var = it->second;
  out.width = width;
  return out;
}

// IEEE 1364-2005 (5.2.1, 5.2.2): a write to an address outside a memory or
// to bits outside a vector does nothing, and a part-select partly outside
// writes only the bits inside. Icarus hands over an out-of-range constant
// address as x (after warning) and a constant part offset as is; the bits
// that fall outside go to a discard register, so the pieces of a
// concatenated target keep their positions in the value. A memory address
// computed at run time is left to Verilator, which ignores such writes
// itself; a run-time part offset is guardRunTimePartSelect's.
void IvlReader::readLValue(ivl_lval_t lv, std::vector<LValue>& parts) {
  LValue out;
  ivl_signal_t sig = ivl_lval_sig(lv);
  if (!sig || ivl_lval_nest(lv)) {
    diags_.unsupported("nested l-value", {});
    parts.push_back(out);
    return;
  }
  out.var = varOf(sig);
  const Var& var = out_.vars[out.var];
  out.width = var.isReal ? 64 : ivl_lval_width(lv);
  if (ivl_expr_t idx = ivl_lval_idx(lv)) {
    std::optional<int64_t> word = constantValue(idx);
    if (hasUnknownBits(idx) || (word && uint64_t(*word) >= var.depth)) {
      parts.push_back(discardTarget(out.width));
      return;
    }
    out.hasIndex = true;
    out.index = readExpr(idx);
  }
  if (ivl_expr_t off = ivl_lval_part_off(lv)) {
    Expr o = readExpr(off);
    std::optional<int64_t> first = constantValue(off);
    if (hasUnknownBits(off)) {
      parts.push_back(discardTarget(out.width));
      return;
    }
    if (first) {
      int64_t width = out.width, low = std::max<int64_t>(*first, 0);
      int64_t high = std::min<int64_t>(*first + width, var.width);
      if (high <= low) {
        parts.push_back(discardTarget(out.width));
        return;
      }
      if (*first < 0) parts.push_back(discardTarget(unsigned(-*first)));
      if (low != *first || high - low != width) {
        out.width = unsigned(high - low);
        o.text = "32'd" + std::to_string(low);
        o.width = 32;
        o.isSigned = false;
      }
      bool wholeWord = out.width == var.width;
      if (!wholeWord) {
        out.hasPart = true;
        out.partOffset = o;
      }
      parts.push_back(out);
      if (*first + width > high) parts.push_back(discardTarget(unsigned(*first + width - high)));
      return;
    }
    out.hasPart = true;
    out.partOffset = o;
  }
  parts.push_back(out);
}

// A bit-select or part-select target whose offset is computed at run time
// writes only its bits inside the vector (IEEE 1364-2005 5.2.1), where
// Verilator would wrap the offset around. A blocking bit-select is written
// only when it lies inside; a blocking part-select becomes a masked write
// of the whole word (runTimePartMerge), so one that straddles the vector's
// edge keeps its inside bits. A non-blocking one is lowerNonBlockingAssigns'
// to mask, since it must write the shadow, not the variable. In a
// concatenated target the masked write is maskRunTimePartsOfConcatenation's.
StmtPtr IvlReader::guardRunTimePartSelect(StmtPtr assign) {
  if (assign->kind != StmtKind::Assign) return assign;
  if (assign->lhs.size() > 1) return maskRunTimePartsOfConcatenation(std::move(assign));
  LValue& lv = assign->lhs[0];
  if (!lv.hasPart || lv.partOffset.isConstant) return assign;
  const Var& var = out_.vars[lv.var];
  if (lv.width > 1) {
    std::string word = var.ident + (lv.hasIndex ? "[" + lv.index.text + "]" : "");
    std::string merged = runTimePartMerge(word, var.width, lv.width, assign->rhs.text, lv.partOffset);
    assign->rhs.text = resized(merged, var.width + lv.width, var.width, false);
    assign->rhs.width = var.width;
    assign->rhs.isSigned = false;
    assign->rhs.isConstant = false;
    assign->rhs.wholeVar = assign->rhs.invertedVar = -1;
    lv.hasPart = false;
    lv.width = var.width;
    return assign;
  }
  auto guarded = makeStmt(StmtKind::If, assign->loc);
  guarded->cond.text = "{$unsigned(" + lv.partOffset.text + ") <= 64'd" +
                       std::to_string(var.width - lv.width) + "}";
  guarded->cond.width = 1;
  guarded->thenStmt = std::move(assign);
  guarded->elseStmt = makeStmt(StmtKind::Nop, guarded->loc);
  return guarded;
}

// `{c, z[u +: 6]} = value;`: each word that a piece with a run-time offset
// writes becomes one whole-word piece, whose value is the word with the
// bits of every piece aimed at it merged in (runTimePartMerge), in
// concatenation order, from the piece's slice of the value. The statement
// stays one assignment, so every offset and index still reads the values
// from before it, as in the original.
StmtPtr IvlReader::maskRunTimePartsOfConcatenation(StmtPtr assign) {
  auto wordKey = [](const LValue& lv) { return std::make_pair(lv.var, lv.hasIndex ? lv.index.text : ""); };
  std::set<std::pair<int, std::string>> masked;
  for (const LValue& lv : assign->lhs)
    if (lv.hasPart && !lv.partOffset.isConstant) masked.insert(wordKey(lv));
  if (masked.empty()) return assign;

  const unsigned valueWidth = assign->rhs.width;
  const std::string value = "{" + assign->rhs.text + "}";
  std::vector<LValue> targets;
  std::vector<std::string> targetValues;  // same order as targets, LSB first
  std::map<std::pair<int, std::string>, size_t> targetOfWord;
  unsigned low = 0;
  for (const LValue& lv : assign->lhs) {
    std::string shifted = low == 0 ? value : "(" + value + " >> " + std::to_string(low) + ")";
    std::string slice = resized(shifted, valueWidth, lv.width, false);
    low += lv.width;
    auto key = wordKey(lv);
    if (!masked.count(key)) {
      targets.push_back(lv);
      targetValues.push_back(slice);
      continue;
    }
    const Var& var = out_.vars[lv.var];
    auto [it, first] = targetOfWord.emplace(key, targets.size());
    if (first) {
      LValue word = lv;
      word.hasPart = false;
      word.width = var.width;
      targets.push_back(word);
      targetValues.push_back(var.ident + (lv.hasIndex ? "[" + lv.index.text + "]" : ""));
    }
    std::string& merged = targetValues[it->second];
    if (!lv.hasPart) {
      merged = slice;
      continue;
    }
    std::string offsetWord = runTimePartMerge(merged, var.width, lv.width, slice, lv.partOffset);
    merged = resized(offsetWord, var.width + lv.width, var.width, false);
  }
  assign->lhs = std::move(targets);
  std::string text;
  unsigned width = 0;
  for (size_t i = assign->lhs.size(); i-- > 0;) {
    text += targetValues[i] + (i ? ", " : "");
    width += assign->lhs[i].width;
  }
  assign->rhs.text = "{" + text + "}";
  assign->rhs.width = width;
  assign->rhs.isSigned = false;
  assign->rhs.isConstant = false;
  assign->rhs.wholeVar = assign->rhs.invertedVar = -1;
  return assign;
}

// Whether argument i of system task `task` is one it writes its result into
// (the runtime writes it back through the state-access port).
static bool argIsOutput(const std::string& task, size_t i) {
  if (task == "$fscanf" || task == "$sscanf") return i >= 2;
  if (task == "$fread" || task == "$fgets" || task == "$sformat" || task == "$swrite")
    return i == 0;
  if (task == "$random" || task == "$urandom" || task == "$dist_uniform") return i == 0;
  if (task == "$value$plusargs") return i == 1;
  if (task == "$readmemh" || task == "$readmemb") return i == 1;
  return false;
}

static std::string unescapeIvlString(const char* s) {
  std::string out;
  for (const char* p = s; *p; ++p) {
    if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
      int v = 0, n = 0;
      while (n < 3 && p[1] >= '0' && p[1] <= '7') {
        v = v * 8 + (p[1] - '0');
        ++p;
        ++n;
      }
      out += char(v);
    } else {
      out += *p;
    }
  }
  return out;
}

static bool isTimeFunction(const std::string& name) {
  return name == "$time" || name == "$stime" || name == "$realtime" || name == "$simtime";
}

Stmt IvlReader::readTaskCall(ivl_statement_t st, const std::string& name,
                             std::vector<ivl_expr_t> args) {
  Stmt s;
  s.kind = StmtKind::Task;
  if (st) s.loc = locOf(st);
  s.call.name = name;
  s.call.scope = currentScope_ ? ivl_scope_name(currentScope_) : out_.top;
  if (name == "$yield") out_.usesYield = true;
  for (size_t i = 0; i < args.size(); ++i) {
    ivl_expr_t a = args[i];
    TaskArgIr arg;
    if (!a) {
      arg.kind = TaskArgIrKind::Empty;
    } else if (ivl_expr_type(a) == IVL_EX_STRING && !argIsOutput(name, i)) {
      arg.kind = TaskArgIrKind::String;
      arg.text = unescapeIvlString(ivl_expr_string(a));
    } else if (ivl_expr_type(a) == IVL_EX_SFUNC && isTimeFunction(ivl_expr_name(a))) {
      arg.kind = TaskArgIrKind::Time;
      arg.text = ivl_expr_name(a);
    } else if (ivl_expr_type(a) == IVL_EX_SCOPE) {
      arg.kind = TaskArgIrKind::String;
      arg.text = ivl_scope_name(ivl_expr_scope(a));
    } else if (ivl_expr_type(a) == IVL_EX_ARRAY) {
      arg.kind = TaskArgIrKind::Value;
      arg.wholeArray = true;
      arg.arrayVar = varOf(ivl_expr_signal(a));
      arg.writable = argIsOutput(name, i);
    } else if (ivl_expr_type(a) == IVL_EX_REALNUM) {
      double d = ivl_expr_dvalue(a);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      char buf[32];
      std::snprintf(buf, sizeof buf, "64'h%016llx", (unsigned long long)bits);
      arg.value.text = buf;
      arg.value.width = 64;
      arg.value.isReal = true;
      arg.value.isConstant = true;
    } else {
      arg.value = readExpr(a);
      if (argIsOutput(name, i)) {
        arg.writable = true;
        if (ivl_expr_type(a) == IVL_EX_SIGNAL) {
          arg.target.var = varOf(ivl_expr_signal(a));
          arg.target.width = arg.value.width;
          if (ivl_expr_t idx = ivl_expr_oper1(a)) {
            arg.target.hasIndex = true;
            arg.target.index = readExpr(idx);
          }
        } else {
          diags_.unsupported("output argument of " + name + " that is not a variable", s.loc);
        }
      }
    }
    s.call.args.push_back(std::move(arg));
  }
  return s;
}

Expr IvlReader::hoistSystemFunction(ivl_expr_t e) {
  std::string name = ivl_expr_name(e);
  SourceLoc loc;
  if (const char* f = ivl_expr_file(e)) loc.file = f;
  loc.line = ivl_expr_lineno(e);
  if (inFunctionBody_) {
    diags_.unsupported("system function " + name + " inside a function", loc);
    return {};
  }
  std::vector<ivl_expr_t> args;
  for (unsigned i = 0; i < ivl_expr_parms(e); ++i) args.push_back(ivl_expr_parm(e, i));
  Stmt call = readTaskCall(nullptr, name, args);
  call.loc = loc;
  Var result;
  result.name = "__result_" + std::to_string(uniqueCounter_++);
  result.ident = result.name;
  result.width = ivl_expr_width(e);
  result.isSigned = ivl_expr_signed(e);
  result.kind = VarKind::Internal;
  if (isRealValued(e)) {
    result.isReal = true;
    result.width = 64;
    result.isSigned = false;
  }
  int rv = out_.addVar(result);
  call.call.resultVar = rv;
  auto s = makeStmt(StmtKind::Task, loc);
  s->call = std::move(call.call);
  hoisted_.push_back(std::move(s));
  Expr out;
  out.width = result.width;
  out.isSigned = result.isSigned;
  out.isReal = result.isReal;
  out.text = result.isSigned ? "$signed(" + result.ident + ")" : result.ident;
  return out;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

// A memory word read at an address computed at run time reads 0 outside the
// memory, where Verilator would wrap the address (or clamp it) for some
// memory sizes. An out-of-range constant address reaches us as x: its word
// reads 0 too.
std::string IvlReader::memoryWordText(const Var& memory, ivl_expr_t index) {
  std::string zero = std::to_string(memory.width) + "'d0";
  if (hasUnknownBits(index)) return zero;
  std::string address = exprText(index);
  std::string word = memory.ident + "[" + address + "]";
  if (constantValue(index)) return word;
  return "(($unsigned(" + address + ") < 64'd" + std::to_string(memory.depth) + ") ? " + word + " : " + zero + ")";
}

static std::string wrapSelfDetermined(const std::string& inner, bool isSigned) {
  return isSigned ? "$signed({" + inner + "})" : "{" + inner + "}";
}

std::string IvlReader::resized(const std::string& text, unsigned from, unsigned to,
                               bool isSigned) {
  if (from == to || from == 0) return text;
  std::string fn;
  if (to < from) {
    fn = "__trunc_" + std::to_string(from) + "_" + std::to_string(to);
    resizeHelpers_.insert("function [" + std::to_string(to - 1) + ":0] " + fn + ";\n  input [" +
                          std::to_string(from - 1) + ":0] __x;\n  " + fn + " = __x[" +
                          std::to_string(to - 1) + ":0];\nendfunction");
  } else if (!isSigned) {
    return "{{" + std::to_string(to - from) + "{1'b0}}, " + text + "}";
  } else {
    fn = "__sext_" + std::to_string(from) + "_" + std::to_string(to);
    resizeHelpers_.insert("function [" + std::to_string(to - 1) + ":0] " + fn + ";\n  input [" +
                          std::to_string(from - 1) + ":0] __x;\n  " + fn + " = {{" +
                          std::to_string(to - from) + "{__x[" + std::to_string(from - 1) +
                          "]}}, __x};\nendfunction");
  }
  std::string call = fn + "(" + text + ")";
  return isSigned ? "$signed(" + call + ")" : call;
}

// x and z bits survive only where they mean "don't care" (casex/casez
// labels); elsewhere the two-state engine reads them as 0.
static std::string numberText(const char* bits, unsigned width, bool isSigned, bool keepXZ) {
  std::string s = std::to_string(width) + (isSigned ? "'sb" : "'b");
  for (unsigned i = width; i-- > 0;) {
    char c = bits[i];
    s += c == '1' ? '1' : (keepXZ && (c == 'x' || c == 'z')) ? c : '0';
  }
  return s;
}

Expr IvlReader::readExpr(ivl_expr_t e) {
  Expr out;
  out.width = ivl_expr_width(e);
  out.isSigned = ivl_expr_signed(e);
  out.isReal = isRealValued(e);
  if (out.isReal) {
    out.width = 64;
    out.isSigned = false;
  }
  ivl_expr_type_t type = ivl_expr_type(e);
  if (type == IVL_EX_SFUNC && !isInlineRealSystemFunction(ivl_expr_name(e))) return hoistSystemFunction(e);
  out.isConstant = type == IVL_EX_NUMBER || type == IVL_EX_ULONG;
  if (type == IVL_EX_SIGNAL && !ivl_expr_oper1(e)) {
    int v = varOf(ivl_expr_signal(e));
    if (out_.vars[v].depth == 0 && !out_.vars[v].isLocal && !out_.vars[v].inFunction) out.wholeVar = v;
  }
  if (type == IVL_EX_UNARY && (ivl_expr_opcode(e) == '~' || ivl_expr_opcode(e) == '!')) {
    ivl_expr_t op = ivl_expr_oper1(e);
    if (ivl_expr_type(op) == IVL_EX_SIGNAL && !ivl_expr_oper1(op) && ivl_expr_width(op) == 1)
      out.invertedVar = varOf(ivl_expr_signal(op));
  }
  out.text = exprText(e);
  return out;
}

std::string IvlReader::exprText(ivl_expr_t e) {
  unsigned w = ivl_expr_width(e);
  bool sgn = ivl_expr_signed(e);
  SourceLoc loc;
  if (const char* f = ivl_expr_file(e)) loc.file = f;
  loc.line = ivl_expr_lineno(e);
  auto operand = [&](ivl_expr_t op, unsigned to) {
    return resized(exprText(op), ivl_expr_width(op), to, ivl_expr_signed(op));
  };
  if (isRealValued(e)) {
    if (ivl_expr_type(e) == IVL_EX_SIGNAL) return realSignalBits(e);
    if (ivl_expr_type(e) == IVL_EX_UFUNC) return functionCallText(e);
    return "$realtobits(" + realText(e) + ")";
  }
  // Whether a real or integer operand is nonzero, as a 1-bit expression.
  auto truth = [&](ivl_expr_t op) {
    return isRealValued(op) ? "{" + realText(op) + " != " + kRealZero + "}" : exprText(op);
  };
  switch (ivl_expr_type(e)) {
    case IVL_EX_NUMBER:
      return numberText(ivl_expr_bits(e), w, sgn, keepXZ_);
    case IVL_EX_ULONG:
      return std::to_string(w) + "'d" + std::to_string(ivl_expr_uvalue(e));
    case IVL_EX_STRING: {
      std::string s = unescapeIvlString(ivl_expr_string(e));
      std::string bits = std::to_string(w) + "'h";
      if (s.empty()) return std::to_string(w) + "'h0";
      static const char* hex = "0123456789abcdef";
      for (unsigned char c : s) {
        bits += hex[c >> 4];
        bits += hex[c & 15];
      }
      return bits;
    }
    case IVL_EX_SIGNAL: {
      ivl_signal_t sig = ivl_expr_signal(e);
      const Var& v = out_.vars[varOf(sig)];
      std::string text = v.ident;
      if (ivl_expr_t idx = ivl_expr_oper1(e)) text = memoryWordText(v, idx);
      if (sgn && !v.isSigned) return "$signed(" + text + ")";
      if (!sgn && v.isSigned) return "$unsigned(" + text + ")";
      return text;
    }
    case IVL_EX_SELECT: {
      ivl_expr_t src = ivl_expr_oper1(e);
      ivl_expr_t base = ivl_expr_oper2(e);
      unsigned sw = ivl_expr_width(src);
      // No base: a pad/truncate, which is how Icarus delivers $signed() and
      // $unsigned(). The select's own signedness decides both the extension
      // and how the result is used; the operand's is irrelevant.
      if (!base) {
        std::string padded = resized(exprText(src), sw, w, sgn);
        if (sw != w || sgn == bool(ivl_expr_signed(src))) return padded;
        return (sgn ? "$signed(" : "$unsigned(") + padded + ")";
      }
      std::string baseText = exprText(base);
      std::string sel;
      if (ivl_expr_type(src) == IVL_EX_SIGNAL && ivl_expr_signed(src) ==
                                                     out_.vars[varOf(ivl_expr_signal(src))].isSigned) {
        const Var& v = out_.vars[varOf(ivl_expr_signal(src))];
        std::string word = v.ident;
        ivl_expr_t idx = ivl_expr_oper1(src);
        if (idx) word = memoryWordText(v, idx);
        // A guarded memory word is an expression, which takes no select.
        if (constantValue(base) && (!idx || constantValue(idx))) {
          sel = word + "[" + baseText + " +: " + std::to_string(w) + "]";
        } else {
          // At a run-time offset, bits outside the word read as 0 (Verilator
          // would wrap or clamp the offset): a shift, never a select.
          std::string wide = "{{" + std::to_string(w) + "{1'b0}}, " + word + "}";
          std::string shifted = "{" + wide + " >> " + baseText + "}";
          if (ivl_expr_signed(base))
            shifted = "{(" + baseText + " < 0) ? (" + wide + " << $unsigned(-" + baseText + ")) : " +
                      shifted + "}";
          sel = resized(shifted, sw + w, w, false);
        }
      } else {
        sel = resized("{" + exprText(src) + " >> " + baseText + "}", sw, w, false);
      }
      return sgn ? "$signed(" + sel + ")" : sel;
    }
    case IVL_EX_UNARY: {
      char op = ivl_expr_opcode(e);
      ivl_expr_t a = ivl_expr_oper1(e);
      if (isRealValued(a)) {
        if (op == '!') return "{" + realText(a) + " == " + kRealZero + "}";
        if (op == 'v' || op == '2') {
          std::string rounded = realToInteger(realText(a), w);
          return sgn ? "$signed(" + rounded + ")" : rounded;
        }
        diags_.unsupported(std::string("operator '") + op + "' on a real operand", loc);
        return "0";
      }
      switch (op) {
        case '~': return wrapSelfDetermined("~" + operand(a, w), sgn);
        case '-': return wrapSelfDetermined("-" + operand(a, w), sgn);
        case '!': return "{!" + exprText(a) + "}";
        case '&': return "{&" + exprText(a) + "}";
        case '|': return "{|" + exprText(a) + "}";
        case '^': return "{^" + exprText(a) + "}";
        case 'A': return "{~&" + exprText(a) + "}";
        case 'N': return "{~|" + exprText(a) + "}";
        case 'X': return "{~^" + exprText(a) + "}";
        case '2':
        case 'v': return resized(exprText(a), ivl_expr_width(a), w, ivl_expr_signed(a));
        default:
          diags_.unsupported(std::string("unary operator '") + op + "'", loc);
          return "0";
      }
    }
    case IVL_EX_BINARY: {
      char op = ivl_expr_opcode(e);
      ivl_expr_t a = ivl_expr_oper1(e), b = ivl_expr_oper2(e);
      unsigned wa = ivl_expr_width(a), wb = ivl_expr_width(b);
      auto arith = [&](const char* sym) {
        return wrapSelfDetermined(operand(a, w) + " " + sym + " " + operand(b, w), sgn);
      };
      auto compare = [&](const char* sym) {
        if (isRealValued(a) || isRealValued(b))
          return "{" + realText(a) + " " + sym + " " + realText(b) + "}";
        unsigned cw = std::max(wa, wb);
        return "{" + operand(a, cw) + " " + sym + " " + operand(b, cw) + "}";
      };
      switch (op) {
        case '+': return arith("+");
        case '-': return arith("-");
        case '*': return arith("*");
        case '/': return arith("/");
        case '%': return arith("%");
        case '&': return arith("&");
        case '|': return arith("|");
        case '^': return arith("^");
        case 'X': return arith("~^");
        case 'e': case 'E': return compare("==");
        case 'n': case 'N': return compare("!=");
        case '<': return compare("<");
        case '>': return compare(">");
        case 'L': return compare("<=");
        case 'G': return compare(">=");
        case 'a': return "{" + truth(a) + " && " + truth(b) + "}";
        case 'o': return "{" + truth(a) + " || " + truth(b) + "}";
        case 'l': return wrapSelfDetermined(operand(a, w) + " << " + exprText(b), sgn);
        case 'r': return wrapSelfDetermined(operand(a, w) + " >> " + exprText(b), sgn);
        case 'R': return wrapSelfDetermined(operand(a, w) + " >>> " + exprText(b), sgn);
        case 'p': return wrapSelfDetermined(operand(a, w) + " ** " + exprText(b), sgn);
        default:
          diags_.unsupported(std::string("binary operator '") + op + "'", loc);
          return "0";
      }
    }
    case IVL_EX_TERNARY: {
      // Only the arm vvp evaluates may recurse.
      if (!inFunctionBody_ && !isRealValued(ivl_expr_oper1(e)) &&
          (containsRecursiveCall(ivl_expr_oper2(e)) || containsRecursiveCall(ivl_expr_oper3(e))))
        return conditionalAroundRecursiveCall(e);
      std::string c = truth(ivl_expr_oper1(e));
      return wrapSelfDetermined(c + " ? " + operand(ivl_expr_oper2(e), w) + " : " +
                                    operand(ivl_expr_oper3(e), w),
                                sgn);
    }
    case IVL_EX_CONCAT: {
      std::string inner;
      for (unsigned i = 0; i < ivl_expr_parms(e); ++i) {
        if (i) inner += ", ";
        inner += exprText(ivl_expr_parm(e, i));
      }
      unsigned rep = ivl_expr_repeat(e);
      std::string text = rep > 1 ? "{" + std::to_string(rep) + "{" + inner + "}}" : "{" + inner + "}";
      return sgn ? "$signed(" + text + ")" : text;
    }
    case IVL_EX_UFUNC: {
      std::string text = functionCallText(e);
      bool fsgn = out_.vars[varOf(ivl_scope_port(ivl_expr_def(e), 0))].isSigned;
      if (sgn && !fsgn) return "$signed(" + text + ")";
      if (!sgn && fsgn) return "$unsigned(" + text + ")";
      return text;
    }
    case IVL_EX_SFUNC: {
      std::string name = ivl_expr_name(e);
      if (name == "$realtobits" && ivl_expr_parms(e) == 1)
        return "$realtobits(" + realText(ivl_expr_parm(e, 0)) + ")";
      if (name == "$rtoi" && ivl_expr_parms(e) == 1) {
        // Verilator's $rtoi is a signed 32-bit integer, as IEEE 1364 says.
        std::string truncated = resized("$rtoi(" + realText(ivl_expr_parm(e, 0)) + ")", 32, w, true);
        return sgn ? "$signed(" + truncated + ")" : "$unsigned(" + truncated + ")";
      }
      if (isInlineRealSystemFunction(name)) {
        diags_.unsupported("system function " + name + " with " + std::to_string(ivl_expr_parms(e)) +
                               " arguments",
                           loc);
        return "0";
      }
      return hoistSystemFunction(e).text;
    }
    default:
      diags_.unsupported(expressionKindName(ivl_expr_type(e)), loc);
      return "0";
  }
}

std::string IvlReader::functionCallText(ivl_expr_t e) {
  ivl_scope_t def = ivl_expr_def(e);
  // Hardware has no call stack, so a recursive function is never emitted
  // (readFunction drops it): a call to it in a constant expression was
  // evaluated by Icarus's elaborator (`localparam F = fact(5)`), one with
  // constant arguments elsewhere is evaluated here, any other is refused.
  // Calls inside the dropped bodies themselves are not reported.
  auto onStack = std::find(functionsBeingRead_.begin(), functionsBeingRead_.end(), def);
  if (onStack != functionsBeingRead_.end()) {
    recursiveFunctions_.insert(onStack, functionsBeingRead_.end());
    if (onStack + 1 != functionsBeingRead_.end()) mutuallyRecursive_.insert(onStack, functionsBeingRead_.end());
  } else {
    readFunction(def);
  }
  if (recursiveFunctions_.count(def)) {
    if (std::optional<std::string> value = evaluateConstantCall(e)) return *value;
    // Otherwise the call runs on the engine (IvlRecursiveCall.cpp), from a
    // process: an emitted function has no statements around it to hoist to.
    bool insideDroppedBody = std::any_of(functionsBeingRead_.begin(), functionsBeingRead_.end(),
                                         [&](ivl_scope_t f) { return recursiveFunctions_.count(f) != 0; });
    if (!inFunctionBody_ && !mutuallyRecursive_.count(def) && ivl_scope_is_auto(def))
      return recursiveCallText(e);
    if (!insideDroppedBody) {
      SourceLoc loc;
      if (const char* f = ivl_expr_file(e)) loc.file = f;
      loc.line = ivl_expr_lineno(e);
      std::string why = inFunctionBody_                 ? "made inside another function"
                        : mutuallyRecursive_.count(def) ? "recursive through another function"
                                                        : "not automatic";
      diags_.unsupported("call of recursive function '" + std::string(ivl_scope_basename(def)) +
                             "' that cannot be evaluated at compile time (non-constant arguments, "
                             "or more than integer arithmetic) and cannot run on the engine (" +
                             why + ")",
                         loc);
    }
    return "0";
  }
  std::string text = out_.vars[varOf(ivl_scope_port(def, 0))].ident + "(";
  for (unsigned i = 0; i < ivl_expr_parms(e); ++i) {
    if (i) text += ", ";
    const Var& port = out_.vars[varOf(ivl_scope_port(def, i + 1))];
    ivl_expr_t arg = ivl_expr_parm(e, i);
    if (port.isReal)
      text += isRealValued(arg) ? exprText(arg) : "$realtobits(" + realText(arg) + ")";
    else
      text += resized(exprText(arg), ivl_expr_width(arg), port.width, ivl_expr_signed(arg));
  }
  return text + ")";
}

//===----------------------------------------------------------------------===//
// Real values
//
// A real travels through the IR as the 64 bits of its IEEE double: a real
// variable is a 64-bit register and a real-valued Expr is `$realtobits(...)`
// around a Verilog expression of type real (isReal set). Registers, the
// state-access port, $save/$restart and task arguments therefore carry reals
// unchanged; only the text realText makes is of type real, and Verilator
// computes it with C doubles, as vvp does.
//===----------------------------------------------------------------------===//

std::string IvlReader::realSignalBits(ivl_expr_t e) {
  std::string text = out_.vars[varOf(ivl_expr_signal(e))].ident;
  if (ivl_expr_t idx = ivl_expr_oper1(e)) text += "[" + exprText(idx) + "]";
  return text;
}

// IEEE 1364 4.1.1.1: an integer operand of a real operator, and an integer
// assigned to a real, converts by value (signed or not as the operand is).
std::string IvlReader::integerToReal(const std::string& text, unsigned width, bool isSigned) {
  std::string fn = std::string(isSigned ? "__itor_s_" : "__itor_u_") + std::to_string(width);
  resizeHelpers_.insert("function real " + fn + ";\n  input " + (isSigned ? "signed " : "") +
                        rangeText(width) + "__x;\n  " + fn + " = __x;\nendfunction");
  return fn + "(" + text + ")";
}

// IEEE 1364 4.8.2: a real converts to an integer by rounding to the nearest,
// ties away from zero, which is what Verilator's implicit conversion does.
std::string IvlReader::realToInteger(const std::string& text, unsigned width) {
  std::string fn = "__rtoi_round_" + std::to_string(width);
  resizeHelpers_.insert("function " + rangeText(width) + fn + ";\n  input real __x;\n  " + fn +
                        " = __x;\nendfunction");
  return fn + "(" + text + ")";
}

std::string IvlReader::realText(ivl_expr_t e) {
  if (!isRealValued(e)) return integerToReal(exprText(e), ivl_expr_width(e), ivl_expr_signed(e));
  SourceLoc loc;
  if (const char* f = ivl_expr_file(e)) loc.file = f;
  loc.line = ivl_expr_lineno(e);
  switch (ivl_expr_type(e)) {
    case IVL_EX_REALNUM: {
      // The exact bits, never a decimal rendering that could round; a -0.0
      // constant is +0.0, as vvp loads it.
      double value = ivl_expr_dvalue(e);
      if (value == 0.0) value = 0.0;
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      char hex[20];
      std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)bits);
      return std::string("$bitstoreal(64'h") + hex + ")";
    }
    case IVL_EX_SIGNAL:
      return "$bitstoreal(" + realSignalBits(e) + ")";
    case IVL_EX_UFUNC:
      return "$bitstoreal(" + functionCallText(e) + ")";
    case IVL_EX_UNARY: {
      char op = ivl_expr_opcode(e);
      // vvp negates a real as 0.0 - x, so -0.0 is +0.0 there (and in a
      // sign test or %f that shows).
      if (op == '-') return "(" + kRealZero + " - " + realText(ivl_expr_oper1(e)) + ")";
      if (op == 'r') return realText(ivl_expr_oper1(e));
      diags_.unsupported(std::string("operator '") + op + "' on a real operand", loc);
      return kRealZero;
    }
    case IVL_EX_BINARY: {
      char op = ivl_expr_opcode(e);
      const char* sym = op == '+' ? "+" : op == '-' ? "-" : op == '*' ? "*" : op == '/' ? "/"
                        : op == 'p' ? "**" : nullptr;
      if (!sym) {
        diags_.unsupported(std::string("operator '") + op + "' on real operands", loc);
        return kRealZero;
      }
      return "(" + realText(ivl_expr_oper1(e)) + " " + sym + " " + realText(ivl_expr_oper2(e)) + ")";
    }
    case IVL_EX_TERNARY: {
      ivl_expr_t c = ivl_expr_oper1(e);
      // Only the arm vvp evaluates may recurse (IvlRecursiveCall.cpp).
      if (!inFunctionBody_ && !isRealValued(c) &&
          (containsRecursiveCall(ivl_expr_oper2(e)) || containsRecursiveCall(ivl_expr_oper3(e))))
        return "$bitstoreal(" + conditionalAroundRecursiveCall(e) + ")";
      std::string cond = isRealValued(c) ? "{" + realText(c) + " != " + kRealZero + "}" : exprText(c);
      return "(" + cond + " ? " + realText(ivl_expr_oper2(e)) + " : " + realText(ivl_expr_oper3(e)) + ")";
    }
    case IVL_EX_SFUNC: {
      std::string name = ivl_expr_name(e);
      unsigned n = ivl_expr_parms(e);
      if (name == "$bitstoreal" && n == 1) {
        ivl_expr_t bits = ivl_expr_parm(e, 0);
        return "$bitstoreal(" + resized(exprText(bits), ivl_expr_width(bits), 64, false) + ")";
      }
      if (name == "$itor" && n == 1) return realText(ivl_expr_parm(e, 0));
      bool binary = name == "$pow" || name == "$atan2" || name == "$hypot";
      if (isInlineRealSystemFunction(name) && n == (binary ? 2u : 1u)) {
        std::string text = name + "(" + realText(ivl_expr_parm(e, 0));
        if (binary) text += ", " + realText(ivl_expr_parm(e, 1));
        return text + ")";
      }
      if (isInlineRealSystemFunction(name)) {
        diags_.unsupported("system function " + name + " with " + std::to_string(n) + " arguments", loc);
        return kRealZero;
      }
      return "$bitstoreal(" + hoistSystemFunction(e).text + ")";
    }
    default:
      diags_.unsupported("real-valued " + expressionKindName(ivl_expr_type(e)), loc);
      return kRealZero;
  }
}

unsigned IvlReader::assignedWidth(ivl_statement_t st) {
  unsigned width = 0;
  for (unsigned i = 0; i < ivl_stmt_lvals(st); ++i) {
    ivl_lval_t lv = ivl_stmt_lval(st, i);
    width += isRealTarget(lv) ? 64 : ivl_lval_width(lv);
  }
  return width;
}

Expr IvlReader::readAssignedValue(ivl_statement_t st) {
  ivl_expr_t rval = ivl_stmt_rval(st);
  if (ivl_stmt_lvals(st) != 1 || !isRealTarget(ivl_stmt_lval(st, 0)) || isRealValued(rval))
    return readExpr(rval);
  Expr out;
  out.text = "$realtobits(" + realText(rval) + ")";
  out.width = 64;
  out.isReal = true;
  return out;
}

//===----------------------------------------------------------------------===//
// Functions become Verilog functions of the emitted module.
//===----------------------------------------------------------------------===//

void IvlReader::readFunction(ivl_scope_t scope) {
  if (!functionsRead_.insert(scope).second) return;
  SourceLoc loc;
  if (const char* f = ivl_scope_file(scope)) loc.file = f;
  loc.line = ivl_scope_lineno(scope);
  ivl_signal_t ret = ivl_scope_port(scope, 0);
  Var& rv = out_.vars[varOf(ret)];
  rv.ident = mangle(ivl_scope_name(scope));
  std::string text = "function " + std::string(rv.isSigned ? "signed " : "") +
                     rangeText(rv.width) + rv.ident + ";\n";
  std::set<ivl_signal_t> ports;
  for (unsigned i = 1; i < ivl_scope_ports(scope); ++i) {
    ivl_signal_t p = ivl_scope_port(scope, i);
    ports.insert(p);
    const Var& pv = out_.vars[varOf(p)];
    text += "  input " + std::string(pv.isSigned ? "signed " : "") + rangeText(pv.width) +
            pv.ident + ";\n";
  }
  std::function<void(ivl_scope_t)> locals = [&](ivl_scope_t s) {
    for (unsigned i = 0; i < ivl_scope_sigs(s); ++i) {
      ivl_signal_t sig = ivl_scope_sig(s, i);
      if (sig == ret || ports.count(sig)) continue;
      const Var& lv = out_.vars[varOf(sig)];
      text += "  reg " + std::string(lv.isSigned ? "signed " : "") + rangeText(lv.width) +
              lv.ident + (lv.depth ? " [0:" + std::to_string(lv.depth - 1) + "]" : "") + ";\n";
    }
    for (size_t i = 0; i < ivl_scope_childs(s); ++i) locals(ivl_scope_child(s, i));
  };
  locals(scope);
  // The emitted function is static. For an automatic one that is sound
  // because calls never overlap (recursion is refused in functionCallText)
  // provided every call starts with new variables, which in the two-state
  // engine are 0 (IEEE 1364 10.4.1: they are allocated at each call); an
  // array is cleared word by word with a loop index of the function's own.
  std::string clearText;
  if (ivl_scope_is_auto(scope)) {
    const std::string index = "__zero_index_" + rv.ident;
    std::function<void(ivl_scope_t)> clear = [&](ivl_scope_t s) {
      for (unsigned i = 0; i < ivl_scope_sigs(s); ++i) {
        ivl_signal_t sig = ivl_scope_sig(s, i);
        if (ports.count(sig)) continue;
        const Var& lv = out_.vars[varOf(sig)];
        std::string zero = std::to_string(lv.width) + "'d0";
        if (lv.depth > 0)
          clearText += "    for (" + index + " = 0; " + index + " < " + std::to_string(lv.depth) + "; " + index +
                       " = " + index + " + 1) " + lv.ident + "[" + index + "] = " + zero + ";\n";
        else
          clearText += "    " + lv.ident + " = " + zero + ";\n";
      }
      for (size_t i = 0; i < ivl_scope_childs(s); ++i) clear(ivl_scope_child(s, i));
    };
    clear(scope);
    if (clearText.find(index) != std::string::npos) text += "  integer " + index + ";\n";
  }
  text += "  begin\n" + clearText;
  bool saved = inFunctionBody_;
  inFunctionBody_ = true;
  functionsBeingRead_.push_back(scope);
  text += stmtText(ivl_scope_def(scope), 4) + "  end\nendfunction";
  functionsBeingRead_.pop_back();
  inFunctionBody_ = saved;
  if (!recursiveFunctions_.count(scope)) out_.functions.push_back(text);
}

// Synthesizable Verilog text of a function body statement.
std::string IvlReader::stmtText(ivl_statement_t st, unsigned indent) {
  std::string pad(indent, ' ');
  SourceLoc loc = locOf(st);
  switch (ivl_statement_type(st)) {
    case IVL_ST_NOOP:
      return pad + ";\n";
    case IVL_ST_BLOCK: {
      std::string text = pad + "begin\n";
      unsigned n = ivl_stmt_block_count(st);
      for (unsigned i = 0; i < n; ++i) {
        ivl_statement_t child = ivl_stmt_block_stmt(st, i);
        if (i + 1 < n && isCountedFor(child, ivl_stmt_block_stmt(st, i + 1))) {
          // Synthesis unrolls `for` but refuses `while` outside constant functions.
          ivl_statement_t loop = ivl_stmt_block_stmt(st, ++i);
          ivl_statement_t body = ivl_stmt_sub_stmt(loop);
          unsigned m = ivl_stmt_block_count(body);
          auto bare = [&](ivl_statement_t a) {
            std::string t = stmtText(a, 0);
            while (!t.empty() && (t.back() == '\n' || t.back() == ';')) t.pop_back();
            return t;
          };
          text += pad + "  for (" + bare(child) + "; " + exprText(ivl_stmt_cond_expr(loop)) + "; " +
                  bare(ivl_stmt_block_stmt(body, m - 1)) + ") begin\n";
          for (unsigned k = 0; k + 1 < m; ++k) text += stmtText(ivl_stmt_block_stmt(body, k), indent + 4);
          text += pad + "  end\n";
          continue;
        }
        text += stmtText(child, indent + 2);
      }
      return text + pad + "end\n";
    }
    case IVL_ST_ASSIGN: {
      Expr rhs = readAssignedValue(st);
      std::string lhs;
      std::vector<LValue> lvs;
      for (unsigned i = 0; i < ivl_stmt_lvals(st); ++i) readLValue(ivl_stmt_lval(st, i), lvs);
      if (lvs.size() == 1) {
        lhs = lvalueText(out_, lvs[0]);
      } else {
        lhs = "{";
        for (size_t i = lvs.size(); i-- > 0;) lhs += lvalueText(out_, lvs[i]) + (i ? ", " : "");
        lhs += "}";
      }
      std::string r = resized(rhs.text, rhs.width, assignedWidth(st), rhs.isSigned);
      return pad + lhs + " = " + r + ";\n";
    }
    case IVL_ST_CONDIT: {
      // The true arm is a block, so an `if` without `else` inside it (Icarus
      // drops a one-statement begin/end) cannot take this `if`'s `else`.
      std::string text = pad + "if (" + exprText(ivl_stmt_cond_expr(st)) + ")\n" + pad + "begin\n";
      ivl_statement_t t = ivl_stmt_cond_true(st), f = ivl_stmt_cond_false(st);
      if (t) text += stmtText(t, indent + 2);
      text += pad + "end\n";
      if (f) text += pad + "else\n" + stmtText(f, indent + 2);
      return text;
    }
    case IVL_ST_CASE:
    case IVL_ST_CASEX:
    case IVL_ST_CASEZ: {
      const char* kw = ivl_statement_type(st) == IVL_ST_CASE    ? "case"
                       : ivl_statement_type(st) == IVL_ST_CASEX ? "casex"
                                                                : "casez";
      std::string text = pad + kw + " (" + exprText(ivl_stmt_cond_expr(st)) + ")\n";
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i) {
        ivl_expr_t label = ivl_stmt_case_expr(st, i);
        keepXZ_ = ivl_statement_type(st) != IVL_ST_CASE;
        text += pad + "  " + (label ? exprText(label) : std::string("default")) + ":\n";
        keepXZ_ = false;
        ivl_statement_t sub = ivl_stmt_case_stmt(st, i);
        text += sub ? stmtText(sub, indent + 4) : pad + "    ;\n";
      }
      return text + pad + "endcase\n";
    }
    case IVL_ST_CASER: {
      // As in readStmt: real equalities in item order, the default last;
      // every arm is a block, so an `if` inside one keeps its own `else`.
      std::string subject = realText(ivl_stmt_cond_expr(st));
      std::string text, fallback = pad + "  ;\n";
      for (unsigned i = 0; i < ivl_stmt_case_count(st); ++i) {
        ivl_statement_t sub = ivl_stmt_case_stmt(st, i);
        std::string arm = pad + "begin\n" + (sub ? stmtText(sub, indent + 2) : "") + pad + "end\n";
        if (ivl_expr_t label = ivl_stmt_case_expr(st, i))
          text += pad + "if (" + subject + " == " + realText(label) + ")\n" + arm + pad + "else\n";
        else
          fallback = arm;
      }
      return text + fallback;
    }
    case IVL_ST_WHILE:
      return pad + "while (" + exprText(ivl_stmt_cond_expr(st)) + ")\n" +
             stmtText(ivl_stmt_sub_stmt(st), indent + 2);
    default:
      diags_.unsupported("statement inside a function", loc);
      return "";
  }
}

}  // namespace synergy::verilog
