//===- IvlConstantCall.cpp - Evaluate a recursive call with constant args -===//
//
// Hardware has no call stack, so a recursive function cannot be emitted.
// When such a function is called with constant arguments (`x = fact(5)` in
// a process, which Icarus evaluates only in constant expressions), the call
// is evaluated here at compile time and replaced by its value. The
// arguments may be any expression without variables (`fact(2 + 3)`, or a
// call of another function with constant arguments). Every call
// gets a new frame whose variables start at 0 (the two-state value of a new
// automatic variable). The evaluation follows the widths and signedness
// Icarus put on every node, as exprText does when it writes them as text.
//
// It gives up (the caller then reports the call as unsupported) on anything
// outside integer arithmetic up to 64 bits over the function's own
// variables: module variables, x/z constants, memories, part-select
// targets, system functions, division by zero, more than 256 nested calls
// or more than a million evaluation steps.
//
//===----------------------------------------------------------------------===//
#include "frontends/verilog/IvlReader.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace synergy::verilog {

namespace {

constexpr unsigned MaxCallDepth = 256;
constexpr uint64_t MaxSteps = 1000000;

uint64_t mask(uint64_t bits, unsigned width) {
  return width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
}

// `bits` of `from` bits extended (per `isSigned`) or truncated to `to` bits.
uint64_t resize(uint64_t bits, unsigned from, unsigned to, bool isSigned) {
  if (isSigned && from < 64 && from > 0 && (bits >> (from - 1) & 1)) bits |= ~uint64_t(0) << from;
  return mask(bits, to);
}

int64_t asSigned(uint64_t bits, unsigned width) {
  return static_cast<int64_t>(resize(bits, width, 64, true));
}

class ConstantCallEvaluator {
 public:
  std::optional<uint64_t> call(ivl_scope_t def, const std::vector<uint64_t>& args) {
    if (depth_ >= MaxCallDepth || ivl_scope_ports(def) != args.size() + 1) return std::nullopt;
    Frame frame;
    for (size_t i = 0; i < args.size(); ++i) frame[ivl_scope_port(def, unsigned(i) + 1)] = args[i];
    ++depth_;
    frames_.push_back(std::move(frame));
    bool ok = run(ivl_scope_def(def));
    uint64_t result = frames_.back()[ivl_scope_port(def, 0)];
    frames_.pop_back();
    --depth_;
    if (!ok) return std::nullopt;
    return result;
  }

  // The value of `e`, resized to `width` by its own signedness.
  std::optional<uint64_t> operand(ivl_expr_t e, unsigned width) {
    auto v = eval(e);
    if (!v) return std::nullopt;
    return resize(*v, ivl_expr_width(e), width, ivl_expr_signed(e));
  }

 private:
  using Frame = std::map<ivl_signal_t, uint64_t>;

  static bool isPlainVector(ivl_signal_t sig) {
    return ivl_signal_dimensions(sig) == 0 && ivl_signal_width(sig) <= 64 &&
           ivl_signal_data_type(sig) != IVL_VT_REAL;
  }

  bool step() { return ++steps_ <= MaxSteps; }

  std::optional<uint64_t> eval(ivl_expr_t e) {
    unsigned w = ivl_expr_width(e);
    if (w == 0 || w > 64 || ivl_expr_value(e) == IVL_VT_REAL || !step()) return std::nullopt;
    bool sgn = ivl_expr_signed(e);
    switch (ivl_expr_type(e)) {
      case IVL_EX_NUMBER: {
        const char* bits = ivl_expr_bits(e);
        uint64_t v = 0;
        for (unsigned i = w; i-- > 0;) {
          if (bits[i] != '0' && bits[i] != '1') return std::nullopt;
          v = v << 1 | (bits[i] == '1');
        }
        return v;
      }
      case IVL_EX_ULONG:
        return mask(ivl_expr_uvalue(e), w);
      case IVL_EX_SIGNAL: {
        ivl_signal_t sig = ivl_expr_signal(e);
        if (frames_.empty() || ivl_expr_oper1(e) || !isPlainVector(sig) || !isFunctionVariable(sig))
          return std::nullopt;
        auto it = frames_.back().find(sig);
        return it == frames_.back().end() ? 0 : it->second;
      }
      case IVL_EX_SELECT: {
        ivl_expr_t src = ivl_expr_oper1(e);
        ivl_expr_t base = ivl_expr_oper2(e);
        auto v = eval(src);
        if (!v) return std::nullopt;
        if (!base) return resize(*v, ivl_expr_width(src), w, sgn);
        auto b = eval(base);
        if (!b || *b >= 64 || (ivl_expr_signed(base) && asSigned(*b, ivl_expr_width(base)) < 0))
          return std::nullopt;
        return mask(*v >> *b, w);
      }
      case IVL_EX_UNARY: return unary(e, w);
      case IVL_EX_BINARY: return binary(e, w, sgn);
      case IVL_EX_TERNARY: {
        auto c = eval(ivl_expr_oper1(e));
        if (!c) return std::nullopt;
        return operand(*c ? ivl_expr_oper2(e) : ivl_expr_oper3(e), w);
      }
      case IVL_EX_UFUNC: {
        ivl_scope_t def = ivl_expr_def(e);
        std::vector<uint64_t> args;
        for (unsigned i = 0; i < ivl_expr_parms(e); ++i) {
          ivl_signal_t port = ivl_scope_port(def, i + 1);
          if (!port || !isPlainVector(port)) return std::nullopt;
          auto a = operand(ivl_expr_parm(e, i), ivl_signal_width(port));
          if (!a) return std::nullopt;
          args.push_back(*a);
        }
        ivl_signal_t ret = ivl_scope_port(def, 0);
        if (!ret || !isPlainVector(ret)) return std::nullopt;
        auto r = call(def, args);
        if (!r) return std::nullopt;
        return resize(*r, ivl_signal_width(ret), w, ivl_signal_signed(ret));
      }
      default:
        return std::nullopt;
    }
  }

  std::optional<uint64_t> unary(ivl_expr_t e, unsigned w) {
    ivl_expr_t a = ivl_expr_oper1(e);
    unsigned wa = ivl_expr_width(a);
    switch (ivl_expr_opcode(e)) {
      case '~': { auto v = operand(a, w); if (!v) return std::nullopt; return mask(~*v, w); }
      case '-': { auto v = operand(a, w); if (!v) return std::nullopt; return mask(0 - *v, w); }
      case '2':
      case 'v': return operand(a, w);
      default: break;
    }
    auto v = eval(a);
    if (!v) return std::nullopt;
    unsigned ones = unsigned(__builtin_popcountll(*v));
    bool all = *v == mask(~uint64_t(0), wa);
    switch (ivl_expr_opcode(e)) {
      case '!': return *v == 0;
      case '&': return all;
      case '|': return *v != 0;
      case '^': return ones & 1;
      case 'A': return !all;
      case 'N': return *v == 0;
      case 'X': return !(ones & 1);
      default: return std::nullopt;
    }
  }

  std::optional<uint64_t> binary(ivl_expr_t e, unsigned w, bool sgn) {
    ivl_expr_t a = ivl_expr_oper1(e), b = ivl_expr_oper2(e);
    char op = ivl_expr_opcode(e);
    if (op == 'a' || op == 'o') {
      auto x = eval(a);
      if (!x) return std::nullopt;
      if ((op == 'a' && !*x) || (op == 'o' && *x)) return op == 'o';
      auto y = eval(b);
      if (!y) return std::nullopt;
      return *y != 0;
    }
    if (std::strchr("eEnN<>LG", op)) {
      unsigned cw = std::max(ivl_expr_width(a), ivl_expr_width(b));
      auto x = operand(a, cw), y = operand(b, cw);
      if (!x || !y) return std::nullopt;
      bool both = ivl_expr_signed(a) && ivl_expr_signed(b);
      auto less = [&](uint64_t p, uint64_t q) {
        return both ? asSigned(p, cw) < asSigned(q, cw) : p < q;
      };
      switch (op) {
        case 'e': case 'E': return *x == *y;
        case 'n': case 'N': return *x != *y;
        case '<': return less(*x, *y);
        case '>': return less(*y, *x);
        case 'L': return !less(*y, *x);
        case 'G': return !less(*x, *y);
      }
    }
    if (op == 'l' || op == 'r' || op == 'R') {
      auto x = operand(a, w), s = eval(b);
      if (!x || !s) return std::nullopt;
      if (*s >= w) return op == 'R' && sgn && asSigned(*x, w) < 0 ? mask(~uint64_t(0), w) : 0;
      if (op == 'l') return mask(*x << *s, w);
      if (op == 'R' && sgn) return mask(uint64_t(asSigned(*x, w) >> *s), w);
      return *x >> *s;
    }
    auto x = operand(a, w), y = operand(b, w);
    if (!x || !y) return std::nullopt;
    switch (op) {
      case '+': return mask(*x + *y, w);
      case '-': return mask(*x - *y, w);
      case '*': return mask(*x * *y, w);
      case '&': return *x & *y;
      case '|': return *x | *y;
      case '^': return *x ^ *y;
      case 'X': return mask(~(*x ^ *y), w);
      case '/':
      case '%': {
        if (*y == 0) return std::nullopt;
        if (!sgn) return op == '/' ? *x / *y : *x % *y;
        int64_t p = asSigned(*x, w), q = asSigned(*y, w);
        if (q == -1) return mask(op == '/' ? 0 - *x : 0, w);
        return mask(uint64_t(op == '/' ? p / q : p % q), w);
      }
      default: return std::nullopt;
    }
  }

  bool run(ivl_statement_t st) {
    if (!step()) return false;
    switch (ivl_statement_type(st)) {
      case IVL_ST_NOOP: return true;
      case IVL_ST_BLOCK:
        for (unsigned i = 0; i < ivl_stmt_block_count(st); ++i)
          if (!run(ivl_stmt_block_stmt(st, i))) return false;
        return true;
      case IVL_ST_ASSIGN: {
        if (ivl_stmt_lvals(st) != 1 || ivl_stmt_delay_expr(st)) return false;
        ivl_lval_t lv = ivl_stmt_lval(st, 0);
        ivl_signal_t sig = ivl_lval_sig(lv);
        if (!sig || ivl_lval_idx(lv) || ivl_lval_part_off(lv) || ivl_lval_nest(lv) || !isPlainVector(sig) ||
            ivl_lval_width(lv) != ivl_signal_width(sig) || !isFunctionVariable(sig))
          return false;
        auto v = operand(ivl_stmt_rval(st), ivl_signal_width(sig));
        if (!v) return false;
        frames_.back()[sig] = *v;
        return true;
      }
      case IVL_ST_CONDIT: {
        auto c = eval(ivl_stmt_cond_expr(st));
        if (!c) return false;
        ivl_statement_t branch = *c ? ivl_stmt_cond_true(st) : ivl_stmt_cond_false(st);
        return !branch || run(branch);
      }
      case IVL_ST_WHILE:
        for (;;) {
          auto c = eval(ivl_stmt_cond_expr(st));
          if (!c) return false;
          if (!*c) return true;
          if (!run(ivl_stmt_sub_stmt(st))) return false;
        }
      default:
        return false;
    }
  }

  // A function's own variables live in its scope or a named block inside
  // it; the evaluator reads and writes those only (Verilog lets a function
  // body name nothing else of another function).
  static bool isFunctionVariable(ivl_signal_t sig) {
    for (ivl_scope_t s = ivl_signal_scope(sig); s; s = ivl_scope_parent(s))
      if (ivl_scope_type(s) == IVL_SCT_FUNCTION) return true;
    return false;
  }

  std::vector<Frame> frames_;
  unsigned depth_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace

std::optional<std::string> IvlReader::evaluateConstantCall(ivl_expr_t call) {
  ivl_scope_t def = ivl_expr_def(call);
  ivl_signal_t ret = ivl_scope_port(def, 0);
  unsigned w = ivl_expr_width(call);
  if (!ret || w == 0 || w > 64) return std::nullopt;
  ConstantCallEvaluator evaluator;
  // The arguments are evaluated outside any frame, so any variable in them
  // (whose value is not known at compile time) makes the evaluation give up.
  std::vector<uint64_t> args;
  for (unsigned i = 0; i < ivl_expr_parms(call); ++i) {
    ivl_expr_t arg = ivl_expr_parm(call, i);
    ivl_signal_t port = ivl_scope_port(def, i + 1);
    if (!port || ivl_signal_width(port) > 64 || ivl_signal_data_type(port) == IVL_VT_REAL)
      return std::nullopt;
    auto v = evaluator.operand(arg, ivl_signal_width(port));
    if (!v) return std::nullopt;
    args.push_back(*v);
  }
  if (ivl_signal_width(ret) > 64 || ivl_signal_data_type(ret) == IVL_VT_REAL) return std::nullopt;
  auto result = evaluator.call(def, args);
  if (!result) return std::nullopt;
  uint64_t value = resize(*result, ivl_signal_width(ret), w, ivl_signal_signed(ret));
  std::string text = std::to_string(w) + (ivl_expr_signed(call) ? "'sb" : "'b");
  for (unsigned i = w; i-- > 0;) text += (value >> i & 1) ? '1' : '0';
  return text;
}

}  // namespace synergy::verilog
