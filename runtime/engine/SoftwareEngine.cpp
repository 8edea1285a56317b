//===- SoftwareEngine.cpp - run an engine without Verilator ----------------===//
//
// This file implements the software engine: a machine over 64-bit words that
// executes a SoftwareProgram with Verilator's 2-state semantics, and the
// engine ABI's entry points over it. Nodes the compiler marked wide go
// through word arrays (SoftwareWideWords.h); the rest never leave one
// machine word, and an expression or a statement with code
// (SoftwareExprCode.h) runs as that code. Reals compute with C doubles, as Verilator's and vvp's do.
// Each entry point follows the cycle protocol of hwlower/EngineManifest.h exactly as wrapper/EngineWrapper.cpp
// does over the Verilator model: one edge runs the `always @(posedge __clk)`
// blocks, then settles the continuous logic in its levelized order, each
// node only if what it reads has changed; the state-read logic runs only
// when the host reads state.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareEngine.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

#include "engine/SoftwareCompiler.h"
#include "engine/SoftwareExprCode.h"
#include "engine/SoftwareWideWords.h"

namespace synergy::engine {

using namespace software;

namespace {

// Passes over cyclic continuous logic before a settle gives up, as
// Verilator's "did not converge" does.
constexpr unsigned kMaxSettlePasses = 1u << 16;
// Arguments of one call are evaluated before any is stored (a nested call of
// the same function would overwrite them); the emitter's functions have few.
constexpr size_t kMaxInlineArguments = 16;

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

// `word`, a `variableWidth`-bit variable, with the low `fieldWidth` bits of
// `value` written at bit `position` (negative: the field starts below bit 0
// and its low bits fall off); nullopt when no bit of the field lands inside
// the variable, as Verilog ignores a part-select wholly out of range.
std::optional<uint64_t> withField(uint64_t word, uint64_t value, uint32_t fieldWidth, int64_t position,
                                  uint32_t variableWidth) {
  if (position >= int64_t(variableWidth) || position <= -int64_t(fieldWidth))
    return std::nullopt;
  uint64_t fieldMask = maskOf(fieldWidth);
  uint64_t field = fieldMask & value;
  if (position >= 0) {
    field <<= position;
    fieldMask <<= position;
  } else {
    field >>= -position;
    fieldMask >>= -position;
  }
  fieldMask &= maskOf(variableWidth);
  return (word & ~fieldMask) | (field & fieldMask);
}

uint64_t signExtend(uint64_t value, uint32_t width) {
  if (width >= 64)
    return value;
  uint64_t sign = uint64_t(1) << (width - 1);
  return (value ^ sign) - sign;
}

// An index beyond every memory and vector, for one that does not fit an
// int64_t; far enough from the limits that adding a select offset is safe.
constexpr int64_t kFarIndex = std::numeric_limits<int64_t>::max() / 4;

double realOf(uint64_t bits) { return std::bit_cast<double>(bits); }
uint64_t bitsOf(double value) { return std::bit_cast<uint64_t>(value); }

// IEEE 1364 4.8.2 as Verilator implements it (VL_RTOIROUND_Q_D): round to
// the nearest, ties away from zero, then the low 64 bits of that integer,
// so that a value out of range wraps instead of being undefined.
uint64_t roundRealToInteger(double value) {
  value = std::round(value);
  if (value == 0.0 || std::isnan(value))
    return 0;
  uint64_t bits = bitsOf(value);
  int lsb = static_cast<int>((bits >> 52) & 0x7ff) - 1023 - 52;
  uint64_t mantissa = (bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
  uint64_t magnitude = lsb < 0 ? (lsb > -64 ? mantissa >> -lsb : 0) : lsb < 64 ? mantissa << lsb : 0;
  return value < 0 ? 0 - magnitude : magnitude;
}

// The same conversion into an integer of `width` bits (VL_RTOIROUND_W_D).
Words roundRealToWords(double value, uint32_t width) {
  value = std::round(value);
  Words result(wordsFor(width), 0);
  if (value == 0.0 || std::isnan(value))
    return result;
  uint64_t bits = bitsOf(value);
  int lsb = static_cast<int>((bits >> 52) & 0x7ff) - 1023 - 52;
  uint64_t mantissa = (bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
  Words magnitude = lsb < 0 ? shiftRightWords({mantissa}, static_cast<uint64_t>(-lsb), width, false)
                            : shiftLeftWords({mantissa}, static_cast<uint64_t>(lsb), width);
  return value < 0 ? negateWords(magnitude, width) : magnitude;
}

// $rtoi: toward zero into a signed 32-bit integer; what x86's truncating
// conversion (Verilator's static_cast) gives out of range: INT32_MIN.
uint64_t truncateReal(double value) {
  value = std::trunc(value);
  int32_t result = std::numeric_limits<int32_t>::min();
  if (value >= -2147483648.0 && value <= 2147483647.0)
    result = static_cast<int32_t>(value);
  return static_cast<uint64_t>(static_cast<int64_t>(result));
}

double realFunction(RealFunction fn, double x, double y) {
  switch (fn) {
    case RealFunction::Sqrt: return std::sqrt(x);
    case RealFunction::Ln: return std::log(x);
    case RealFunction::Log10: return std::log10(x);
    case RealFunction::Exp: return std::exp(x);
    case RealFunction::Pow: return std::pow(x, y);
    case RealFunction::Floor: return std::floor(x);
    case RealFunction::Ceil: return std::ceil(x);
    case RealFunction::Sin: return std::sin(x);
    case RealFunction::Cos: return std::cos(x);
    case RealFunction::Tan: return std::tan(x);
    case RealFunction::Asin: return std::asin(x);
    case RealFunction::Acos: return std::acos(x);
    case RealFunction::Atan: return std::atan(x);
    case RealFunction::Atan2: return std::atan2(x, y);
    case RealFunction::Hypot: return std::hypot(x, y);
    case RealFunction::Sinh: return std::sinh(x);
    case RealFunction::Cosh: return std::cosh(x);
    case RealFunction::Tanh: return std::tanh(x);
    case RealFunction::Asinh: return std::asinh(x);
    case RealFunction::Acosh: return std::acosh(x);
    case RealFunction::Atanh: return std::atanh(x);
  }
  return 0;
}

class Machine {
 public:
  explicit Machine(std::shared_ptr<const Program> program)
      : program_(std::move(program)),
        p_(*program_),
        slots_(p_.slotCount, 0),
        writtenAt_(p_.variables.size(), 0),
        settledAt_(p_.combinational.size(), 0) {
    for (const Stmt& st : p_.powerOn) exec(st);
    settle();
  }

  uint64_t getState(uint32_t id, uint32_t index, uint32_t word) {
    setPort(p_.clk, 0);
    setPort(p_.saId, id & 0xffff);
    setPort(p_.saIndex, index);
    setPort(p_.saWord, word & 0xffff);
    for (const Stmt& st : p_.stateRead) exec(st);
    return port(p_.saRdata);
  }

  void setState(uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
    setPort(p_.saId, id & 0xffff);
    setPort(p_.saIndex, index);
    setPort(p_.saWord, word & 0xffff);
    setPort(p_.saWdata, data);
    edgeWith(p_.saWe);
  }

  uint32_t evaluate(uint64_t* edgeBudget) {
    while (port(p_.task) == 0 && !port(p_.done)) {
      if (*edgeBudget == 0 || unsettled_)
        return SYNERGY_ENGINE_UNSETTLED;
      --*edgeBudget;
      edge();
    }
    return unsettled_ ? SYNERGY_ENGINE_UNSETTLED : static_cast<uint32_t>(port(p_.task));
  }

  void resume() { edgeWith(p_.cont); }
  void update() { edgeWith(p_.update); }
  uint32_t thereAreUpdates() { return port(p_.thereAreUpdates) != 0; }

  uint32_t openLoop(uint32_t ticks, uint64_t edgesPerTick, uint32_t* ticksRun) {
    setPort(p_.openLoopN, ticks);
    setPort(p_.cont, port(p_.task) != 0);
    edgeWith(p_.openLoop);
    setPort(p_.cont, 0);
    uint64_t ticksLeft = port(p_.ticksLeft);
    uint64_t edgesThisTick = 1;
    while (port(p_.openLoopActive) && port(p_.task) == 0 && !unsettled_) {
      if (port(p_.ticksLeft) != ticksLeft) {
        ticksLeft = port(p_.ticksLeft);
        edgesThisTick = 0;
      }
      if (edgesThisTick++ >= edgesPerTick)
        break;
      edge();
    }
    *ticksRun = ticks - static_cast<uint32_t>(port(p_.ticksLeft));
    if (unsettled_ || (port(p_.openLoopActive) && port(p_.task) == 0))
      return SYNERGY_ENGINE_UNSETTLED;
    return static_cast<uint32_t>(port(p_.task));
  }

 private:
  uint64_t port(uint32_t variable) const { return slots_[p_.variables[variable].slot]; }

  void setPort(uint32_t variable, uint64_t value) {
    slots_[p_.variables[variable].slot] = value;
    writtenAt_[variable] = epoch_;
  }

  void edge() {
    for (const Stmt& st : p_.clocked) exec(st);
    settle();
  }

  void edgeWith(uint32_t control) {
    setPort(control, 1);
    edge();
    setPort(control, 0);
  }

  // Without a cycle, a node runs when it has never run, when a variable it
  // reads was written after it last ran, or when it reads what it writes
  // itself (a temporary of an `always @*` block). Every write stamps its
  // variable with the current epoch, and each settle closes one.
  void settle() {
    if (!p_.combinationalCycle) {
      for (size_t k = 0; k < p_.combinational.size(); ++k) {
        const CombinationalInputs& inputs = p_.combinationalInputs[k];
        if (settledAt_[k] == 0 || inputs.readsOwnWrites || writtenSince(inputs.reads, settledAt_[k]))
          exec(p_.combinational[k]);
        settledAt_[k] = epoch_;
      }
      ++epoch_;
      return;
    }
    for (unsigned pass = 0; pass < kMaxSettlePasses; ++pass) {
      changed_ = false;
      for (const Stmt& st : p_.combinational) exec(st);
      if (!changed_)
        return;
    }
    unsettled_ = true;
  }

  bool writtenSince(const std::vector<uint32_t>& variables, uint64_t epoch) const {
    for (uint32_t variable : variables)
      if (writtenAt_[variable] > epoch)
        return true;
    return false;
  }

  // The self-determined result of a leaf, extended to its context.
  static uint64_t widen(const Expr& e, uint64_t raw) {
    if (e.isSigned && e.width > e.selfWidth)
      return signExtend(raw, e.selfWidth) & maskOf(e.width);
    return raw;
  }

  // An index as a signed number; unsigned ones past 2^63 fall out of range.
  int64_t indexValue(const Expr& e) {
    if (e.wide) [[unlikely]]
      return wideIndexValue(e);
    uint64_t raw = eval(e);
    return static_cast<int64_t>(e.isSigned ? signExtend(raw, e.width) : raw);
  }

  int64_t wideIndexValue(const Expr& e) {
    Words value = evalWide(e);
    bool negative = e.isSigned && isNegativeWords(value, e.width);
    value = resizeWords(value, e.width, static_cast<uint32_t>(value.size() * 64), e.isSigned);
    uint64_t fill = negative ? ~uint64_t(0) : 0;
    for (size_t k = 1; k < value.size(); ++k)
      if (value[k] != fill)
        return negative ? -kFarIndex : kFarIndex;
    int64_t low = static_cast<int64_t>(value[0]);
    if ((low < 0) != negative || low > kFarIndex || low < -kFarIndex)
      return negative ? -kFarIndex : kFarIndex;
    return low;
  }

  // The element `index` (a Verilog index) of a memory, or nullptr outside it.
  uint64_t* element(const Variable& memory, const Expr& index) {
    int64_t position = indexValue(index);
    if (position < memory.lowIndex)
      return nullptr;
    uint64_t offset = static_cast<uint64_t>(position) - static_cast<uint64_t>(memory.lowIndex);
    return offset < memory.depth ? &slots_[memory.slot + offset * memory.words] : nullptr;
  }

  bool truth(const Expr& e) {
    if (e.wide) [[unlikely]]
      return !isZeroWords(evalWide(e));
    return eval(e) != 0;
  }

  double real(const Expr& e) { return realOf(eval(e)); }

  uint64_t eval(const Expr& e) {
    if (e.code)
      return run(e.code - 1);
    if (e.wide) [[unlikely]]
      return evalWide(e)[0];
    return evalNarrow(e);
  }

  // The code of SoftwareExprCode.h from `start`.
  uint64_t run(uint32_t start) {
    uint64_t stack[kMaxCodeStack];
    uint64_t* top = stack - 1;
    const Instr* code = p_.code.data();
    for (const Instr* in = code + start;; ++in) {
      switch (in->op) {
        case CodeOp::Const:
          *++top = in->mask;
          break;
        case CodeOp::Load:
          *++top = slots_[in->target];
          break;
        case CodeOp::Widen:
          *top = signExtend(*top, in->width) & in->mask;
          break;
        case CodeOp::Index:
          if (in->mask)
            *top = signExtend(*top, in->width);
          break;
        case CodeOp::Element: {
          const Variable& memory = p_.variables[in->target];
          int64_t position = static_cast<int64_t>(*top);
          uint64_t offset = static_cast<uint64_t>(position) - static_cast<uint64_t>(memory.lowIndex);
          *top = position >= memory.lowIndex && offset < memory.depth ? slots_[memory.slot + offset * memory.words] : 0;
          break;
        }
        case CodeOp::Select: {
          const Expr& e = *in->tree;
          const Variable& variable = p_.variables[in->target];
          int64_t position = static_cast<int64_t>(*top) + e.offset;
          int64_t bits = static_cast<int64_t>(e.value);
          uint64_t word = slots_[variable.slot];
          if (position >= int64_t(variable.width) || position <= -bits)
            *top = 0;
          else
            *top = (position >= 0 ? word >> position : word << -position) & maskOf(e.selfWidth);
          break;
        }
        case CodeOp::Negate: *top = (0 - *top) & in->mask; break;
        case CodeOp::BitNot: *top = ~*top & in->mask; break;
        case CodeOp::LogicalNot: *top = *top == 0; break;
        case CodeOp::ReduceAnd: *top = *top == in->mask; break;
        case CodeOp::ReduceNand: *top = *top != in->mask; break;
        case CodeOp::ReduceOr: *top = *top != 0; break;
        case CodeOp::ReduceXor: *top = std::popcount(*top) & 1; break;
        case CodeOp::ReduceXnor: *top = (std::popcount(*top) & 1) ^ 1; break;
        case CodeOp::Add: --top; *top = (top[0] + top[1]) & in->mask; break;
        case CodeOp::Sub: --top; *top = (top[0] - top[1]) & in->mask; break;
        case CodeOp::Mul: --top; *top = (top[0] * top[1]) & in->mask; break;
        case CodeOp::And: --top; *top = top[0] & top[1]; break;
        case CodeOp::Or: --top; *top = top[0] | top[1]; break;
        case CodeOp::Xor: --top; *top = top[0] ^ top[1]; break;
        case CodeOp::Xnor: --top; *top = ~(top[0] ^ top[1]) & in->mask; break;
        case CodeOp::ShiftLeft:
          --top;
          *top = top[1] >= in->width ? 0 : (top[0] << top[1]) & in->mask;
          break;
        case CodeOp::ShiftRight:
          --top;
          *top = top[1] >= in->width ? 0 : top[0] >> top[1];
          break;
        case CodeOp::ArithShiftRight: {
          --top;
          int64_t extended = static_cast<int64_t>(signExtend(top[0], in->width));
          if (top[1] >= in->width)
            *top = extended < 0 ? in->mask : 0;
          else
            *top = static_cast<uint64_t>(extended >> top[1]) & in->mask;
          break;
        }
        case CodeOp::SlotEquals: *++top = slots_[in->target] == in->mask; break;
        case CodeOp::SlotDiffers: *++top = slots_[in->target] != in->mask; break;
        case CodeOp::Equal: --top; *top = top[0] == top[1]; break;
        case CodeOp::NotEqual: --top; *top = top[0] != top[1]; break;
        case CodeOp::Less: --top; *top = top[0] < top[1]; break;
        case CodeOp::LessEqual: --top; *top = top[0] <= top[1]; break;
        case CodeOp::Greater: --top; *top = top[0] > top[1]; break;
        case CodeOp::GreaterEqual: --top; *top = top[0] >= top[1]; break;
        case CodeOp::SignedLess:
          --top;
          *top = signedOf(top[0], in->width) < signedOf(top[1], in->width);
          break;
        case CodeOp::SignedLessEqual:
          --top;
          *top = signedOf(top[0], in->width) <= signedOf(top[1], in->width);
          break;
        case CodeOp::SignedGreater:
          --top;
          *top = signedOf(top[0], in->width) > signedOf(top[1], in->width);
          break;
        case CodeOp::SignedGreaterEqual:
          --top;
          *top = signedOf(top[0], in->width) >= signedOf(top[1], in->width);
          break;
        case CodeOp::ShiftIn:
          --top;
          *top = (in->width >= 64 ? 0 : top[0] << in->width) | top[1];
          break;
        case CodeOp::Replicate:
          *top = replicated(*top, in->width, in->mask);
          break;
        case CodeOp::AndThen:
          if (*top == 0)
            in = code + in->target - 1;
          else
            --top;
          break;
        case CodeOp::OrElse:
          if (*top != 0) {
            *top = 1;
            in = code + in->target - 1;
          } else {
            --top;
          }
          break;
        case CodeOp::ToBool: *top = *top != 0; break;
        case CodeOp::JumpIfZero:
          if (*top-- == 0)
            in = code + in->target - 1;
          break;
        case CodeOp::Jump:
          in = code + in->target - 1;
          break;
        case CodeOp::Tree:
          *++top = eval(*in->tree);
          break;
        case CodeOp::Return:
          return *top;
        case CodeOp::Store: {
          uint64_t updated = *top-- & in->mask;
          if (slots_[in->target] != updated) {
            slots_[in->target] = updated;
            stamp(in->variable);
          }
          break;
        }
        case CodeOp::StoreArgument:
          slots_[in->target] = *top-- & in->mask;
          writtenAt_[in->variable] = epoch_;
          break;
        case CodeOp::StoreBits: {
          uint64_t& word = slots_[in->target];
          uint64_t updated = (word & ~in->mask) | ((*top-- << in->width) & in->mask);
          if (word != updated) {
            word = updated;
            stamp(in->variable);
          }
          break;
        }
        case CodeOp::StoreSelect:
          top -= 2;
          storeSelect(*in, top[1], top[2]);
          break;
        case CodeOp::StoreElement: {
          top -= 2;
          const Variable& memory = p_.variables[in->variable];
          int64_t position = static_cast<int64_t>(top[2]);
          uint64_t offset = static_cast<uint64_t>(position) - static_cast<uint64_t>(memory.lowIndex);
          if (position < memory.lowIndex || offset >= memory.depth)
            break;
          uint64_t& word = slots_[memory.slot + offset];
          uint64_t updated = top[1] & in->mask;
          if (word != updated) {
            word = updated;
            stamp(in->variable);
          }
          break;
        }
        case CodeOp::CaseEquals:
          if (*top == in->mask) {
            --top;
            in = code + in->target - 1;
          }
          break;
        case CodeOp::CaseMatches: {
          uint64_t care = in->width == 1 ? ~in->tree->highImpedance : ~in->tree->wildcard;
          if (((*top ^ in->mask) & care) == 0) {
            --top;
            in = code + in->target - 1;
          }
          break;
        }
        case CodeOp::Pop:
          --top;
          break;
        case CodeOp::Dispatch: {
          const DispatchCode& dispatch = p_.dispatches[in->target];
          uint64_t state = slots_[dispatch.stateSlot];
          uint32_t entry = slots_[dispatch.guardSlot] == 0 && state < dispatch.table.size() ? dispatch.table[state] : 0;
          in = code + (entry > in->width ? dispatch.bodies[entry - 1] : dispatch.end) - 1;
          break;
        }
        case CodeOp::Exec:
          execTree(*p_.treeStatements[in->target]);
          break;
        case CodeOp::Halt:
          return 0;
      }
    }
  }

  static int64_t signedOf(uint64_t value, uint32_t width) { return static_cast<int64_t>(signExtend(value, width)); }

  void stamp(uint32_t variable) {
    changed_ = true;
    writtenAt_[variable] = epoch_;
  }

  // StoreSelect: store()'s part-select path, the index already converted.
  void storeSelect(const Instr& in, uint64_t value, uint64_t index) {
    const Variable& variable = p_.variables[in.variable];
    int64_t position = static_cast<int64_t>(index) + static_cast<int64_t>(in.mask);
    uint64_t& word = slots_[in.target];
    std::optional<uint64_t> updated = withField(word, value, in.width, position, variable.width);
    if (updated && word != *updated) {
      word = *updated;
      stamp(in.variable);
    }
  }

  // A node whose operands all fit one word (or are reals).
  uint64_t evalNarrow(const Expr& e) {
    const std::vector<Expr>& ops = e.operands;
    uint64_t mask = maskOf(e.width);
    switch (e.op) {
      case ExprOp::Constant:
        return e.value;
      case ExprOp::Variable:
        return widen(e, slots_[p_.variables[e.target].slot]);
      case ExprOp::Element: {
        const uint64_t* word = element(p_.variables[e.target], ops[0]);
        return word ? widen(e, *word) : 0;
      }
      case ExprOp::Select: {
        const Variable& variable = p_.variables[e.target];
        uint64_t word = slots_[variable.slot];
        if (e.hasElement) {
          const uint64_t* found = element(variable, ops[1]);
          if (!found)
            return 0;
          word = *found;
        }
        int64_t position = indexValue(ops[0]) + e.offset;
        int64_t bits = static_cast<int64_t>(e.value);
        if (position >= int64_t(variable.width) || position <= -bits)
          return 0;
        uint64_t field = position >= 0 ? word >> position : word << -position;
        return widen(e, field & maskOf(e.selfWidth));
      }
      case ExprOp::Concat: {
        uint64_t value = 0;
        for (const Expr& operand : ops) value = (operand.width >= 64 ? 0 : value << operand.width) | eval(operand);
        return widen(e, value);
      }
      case ExprOp::Replicate:
        return widen(e, replicated(eval(ops[0]), ops[0].width, e.value));
      case ExprOp::Call:
        return widen(e, call(e));
      case ExprOp::Cast:
        return widen(e, eval(ops[0]));
      case ExprOp::Negate:
        return (0 - eval(ops[0])) & mask;
      case ExprOp::Identity:
        return eval(ops[0]);
      case ExprOp::BitNot:
        return ~eval(ops[0]) & mask;
      case ExprOp::LogicalNot:
        return eval(ops[0]) == 0;
      case ExprOp::ReduceAnd:
        return eval(ops[0]) == maskOf(ops[0].width);
      case ExprOp::ReduceOr:
        return eval(ops[0]) != 0;
      case ExprOp::ReduceXor:
        return std::popcount(eval(ops[0])) & 1;
      case ExprOp::ReduceNand:
        return eval(ops[0]) != maskOf(ops[0].width);
      case ExprOp::ReduceNor:
        return eval(ops[0]) == 0;
      case ExprOp::ReduceXnor:
        return (std::popcount(eval(ops[0])) & 1) ^ 1;
      case ExprOp::Add:
        return (eval(ops[0]) + eval(ops[1])) & mask;
      case ExprOp::Sub:
        return (eval(ops[0]) - eval(ops[1])) & mask;
      case ExprOp::Mul:
        return (eval(ops[0]) * eval(ops[1])) & mask;
      case ExprOp::Div:
      case ExprOp::Mod:
        return divide(e, eval(ops[0]), eval(ops[1]));
      case ExprOp::Pow:
        return power(e, eval(ops[0]), ops[1]);
      case ExprOp::And:
        return eval(ops[0]) & eval(ops[1]);
      case ExprOp::Or:
        return eval(ops[0]) | eval(ops[1]);
      case ExprOp::Xor:
        return eval(ops[0]) ^ eval(ops[1]);
      case ExprOp::Xnor:
        return ~(eval(ops[0]) ^ eval(ops[1])) & mask;
      case ExprOp::ShiftLeft: {
        uint64_t value = eval(ops[0]), amount = eval(ops[1]);
        return amount >= e.width ? 0 : (value << amount) & mask;
      }
      case ExprOp::ShiftRight:
      case ExprOp::ArithShiftRight: {
        uint64_t value = eval(ops[0]), amount = eval(ops[1]);
        bool arithmetic = e.op == ExprOp::ArithShiftRight && e.isSigned;
        int64_t extended = static_cast<int64_t>(signExtend(value, e.width));
        if (amount >= e.width)
          return arithmetic && extended < 0 ? mask : 0;
        return arithmetic ? static_cast<uint64_t>(extended >> amount) & mask : value >> amount;
      }
      case ExprOp::Less: case ExprOp::LessEqual: case ExprOp::Greater: case ExprOp::GreaterEqual:
      case ExprOp::Equal: case ExprOp::NotEqual:
        return compare(e.op, ops[0], eval(ops[0]), eval(ops[1]));
      case ExprOp::LogicalAnd:
        return eval(ops[0]) != 0 && eval(ops[1]) != 0;
      case ExprOp::LogicalOr:
        return eval(ops[0]) != 0 || eval(ops[1]) != 0;
      case ExprOp::Conditional:
        return truth(ops[0]) ? eval(ops[1]) : eval(ops[2]);
      case ExprOp::RealAdd:
        return bitsOf(real(ops[0]) + real(ops[1]));
      case ExprOp::RealSub:
        return bitsOf(real(ops[0]) - real(ops[1]));
      case ExprOp::RealMul:
        return bitsOf(real(ops[0]) * real(ops[1]));
      case ExprOp::RealDiv:
        return bitsOf(real(ops[0]) / real(ops[1]));
      case ExprOp::RealPow:
        return bitsOf(std::pow(real(ops[0]), real(ops[1])));
      case ExprOp::RealLess:
        return real(ops[0]) < real(ops[1]);
      case ExprOp::RealLessEqual:
        return real(ops[0]) <= real(ops[1]);
      case ExprOp::RealGreater:
        return real(ops[0]) > real(ops[1]);
      case ExprOp::RealGreaterEqual:
        return real(ops[0]) >= real(ops[1]);
      case ExprOp::RealEqual:
        return real(ops[0]) == real(ops[1]);
      case ExprOp::RealNotEqual:
        return real(ops[0]) != real(ops[1]);
      case ExprOp::IntegerToReal: {
        const Expr& operand = ops[0];
        if (operand.wide)
          return bitsOf(wordsToDouble(evalWide(operand), operand.width, operand.isSigned));
        uint64_t value = eval(operand);
        return bitsOf(operand.isSigned ? double(static_cast<int64_t>(signExtend(value, operand.width)))
                                       : double(value));
      }
      case ExprOp::RealToInteger:
        return widen(e, roundRealToInteger(real(ops[0])) & maskOf(e.selfWidth));
      case ExprOp::RealTruncate:
        return widen(e, truncateReal(real(ops[0])) & maskOf(e.selfWidth));
      case ExprOp::RealMath:
        return bitsOf(realFunction(static_cast<RealFunction>(e.target), real(ops[0]),
                                   ops.size() > 1 ? real(ops[1]) : 0.0));
    }
    return 0;
  }

  // Wide evaluation: the value at e.width, wordsFor(e.width) words.
  Words operandWords(const Expr& e) { return e.wide ? evalWide(e) : Words{eval(e)}; }

  // A leaf's self-determined words at its context width.
  static Words extendLeaf(const Expr& e, const Words& raw) {
    return resizeWords(raw, e.selfWidth, e.width, e.isSigned && e.width > e.selfWidth);
  }

  // `count` bits of a `width`-bit value in `words` words from bit `position`;
  // bits outside the value read as zero.
  static Words readField(const uint64_t* base, uint32_t words, int64_t position, uint32_t count) {
    Words field(wordsFor(count), 0);
    for (size_t k = 0; k < field.size(); ++k) {
      int64_t start = position + int64_t(k * 64);
      if (start >= 0)
        field[k] = extractWord(base, words, static_cast<uint64_t>(start));
      else if (start > -64)
        field[k] = extractWord(base, words, 0) << -start;
    }
    maskToWidth(field, count);
    return field;
  }

  static void placeBits(Words& into, uint32_t width, uint64_t position, const Words& part, uint32_t partWidth) {
    for (uint32_t done = 0; done < partWidth; done += 64)
      depositBits(into.data(), width, static_cast<int64_t>(position + done), part[done / 64],
                  std::min(64u, partWidth - done));
  }

  // A shift amount, saturated: anything past 2^64 shifts everything out.
  uint64_t shiftAmount(const Expr& e) {
    if (!e.wide)
      return eval(e);
    Words amount = evalWide(e);
    for (size_t k = 1; k < amount.size(); ++k)
      if (amount[k]) return ~uint64_t(0);
    return amount[0];
  }

  Words evalWide(const Expr& e) {
    const std::vector<Expr>& ops = e.operands;
    uint32_t width = e.width;
    auto bitwise = [&](auto combine) {
      Words a = operandWords(ops[0]), b = operandWords(ops[1]), result(wordsFor(width));
      for (size_t k = 0; k < result.size(); ++k)
        result[k] = combine(k < a.size() ? a[k] : 0, k < b.size() ? b[k] : 0);
      maskToWidth(result, width);
      return result;
    };
    switch (e.op) {
      case ExprOp::Constant:
        return width > kMaxWordWidth ? e.wideValue : Words{e.value};
      case ExprOp::Variable: {
        const Variable& variable = p_.variables[e.target];
        const uint64_t* base = &slots_[variable.slot];
        return extendLeaf(e, Words(base, base + variable.words));
      }
      case ExprOp::Element: {
        const Variable& variable = p_.variables[e.target];
        const uint64_t* base = element(variable, ops[0]);
        return base ? extendLeaf(e, Words(base, base + variable.words)) : Words(wordsFor(width), 0);
      }
      case ExprOp::Select: {
        const Variable& variable = p_.variables[e.target];
        const uint64_t* base = e.hasElement ? element(variable, ops[1]) : &slots_[variable.slot];
        int64_t position = indexValue(ops[0]) + e.offset;
        int64_t bits = static_cast<int64_t>(e.value);
        if (!base || position >= int64_t(variable.width) || position <= -bits)
          return Words(wordsFor(width), 0);
        return extendLeaf(e, readField(base, variable.words, position, static_cast<uint32_t>(e.value)));
      }
      case ExprOp::Concat: {
        Words value(wordsFor(e.selfWidth), 0);
        uint64_t position = e.selfWidth;
        for (const Expr& operand : ops) {
          position -= operand.width;
          placeBits(value, e.selfWidth, position, operandWords(operand), operand.width);
        }
        return extendLeaf(e, value);
      }
      case ExprOp::Replicate: {
        Words value(wordsFor(e.selfWidth), 0), part = operandWords(ops[0]);
        for (uint64_t k = 0; k < e.value; ++k) placeBits(value, e.selfWidth, k * ops[0].width, part, ops[0].width);
        return extendLeaf(e, value);
      }
      case ExprOp::Call:
        return extendLeaf(e, callWide(e));
      case ExprOp::Cast:
        return extendLeaf(e, operandWords(ops[0]));
      case ExprOp::Negate:
        return negateWords(operandWords(ops[0]), width);
      case ExprOp::Identity:
        return operandWords(ops[0]);
      case ExprOp::BitNot: {
        Words value = operandWords(ops[0]);
        value.resize(wordsFor(width), 0);
        for (uint64_t& word : value) word = ~word;
        maskToWidth(value, width);
        return value;
      }
      case ExprOp::LogicalNot:
        return {uint64_t(!truth(ops[0]))};
      case ExprOp::ReduceAnd:
      case ExprOp::ReduceNand: {
        Words value = operandWords(ops[0]);
        bool allOnes = compareWords(value, resizeWords({1}, 1, ops[0].width, true), ops[0].width, false) == 0;
        return {uint64_t(allOnes == (e.op == ExprOp::ReduceAnd))};
      }
      case ExprOp::ReduceOr:
        return {uint64_t(truth(ops[0]))};
      case ExprOp::ReduceNor:
        return {uint64_t(!truth(ops[0]))};
      case ExprOp::ReduceXor:
        return {populationCount(operandWords(ops[0])) & 1};
      case ExprOp::ReduceXnor:
        return {(populationCount(operandWords(ops[0])) & 1) ^ 1};
      case ExprOp::Add:
        return addWords(operandWords(ops[0]), operandWords(ops[1]), width);
      case ExprOp::Sub:
        return subtractWords(operandWords(ops[0]), operandWords(ops[1]), width);
      case ExprOp::Mul:
        return multiplyWords(operandWords(ops[0]), operandWords(ops[1]), width);
      case ExprOp::Div:
      case ExprOp::Mod:
        return divideWords(operandWords(ops[0]), operandWords(ops[1]), width, e.isSigned, e.op == ExprOp::Mod);
      case ExprOp::Pow:
        return powerWide(e);
      case ExprOp::And:
        return bitwise([](uint64_t a, uint64_t b) { return a & b; });
      case ExprOp::Or:
        return bitwise([](uint64_t a, uint64_t b) { return a | b; });
      case ExprOp::Xor:
        return bitwise([](uint64_t a, uint64_t b) { return a ^ b; });
      case ExprOp::Xnor:
        return bitwise([](uint64_t a, uint64_t b) { return ~(a ^ b); });
      case ExprOp::ShiftLeft:
        return shiftLeftWords(operandWords(ops[0]), shiftAmount(ops[1]), width);
      case ExprOp::ShiftRight:
      case ExprOp::ArithShiftRight:
        return shiftRightWords(operandWords(ops[0]), shiftAmount(ops[1]), width,
                               e.op == ExprOp::ArithShiftRight && e.isSigned);
      case ExprOp::Less: case ExprOp::LessEqual: case ExprOp::Greater: case ExprOp::GreaterEqual:
      case ExprOp::Equal: case ExprOp::NotEqual: {
        int order = compareWords(operandWords(ops[0]), operandWords(ops[1]), ops[0].width, ops[0].isSigned);
        bool result = e.op == ExprOp::Less ? order < 0 : e.op == ExprOp::LessEqual ? order <= 0
                    : e.op == ExprOp::Greater ? order > 0 : e.op == ExprOp::GreaterEqual ? order >= 0
                    : e.op == ExprOp::Equal ? order == 0 : order != 0;
        return {uint64_t(result)};
      }
      case ExprOp::LogicalAnd:
        return {uint64_t(truth(ops[0]) && truth(ops[1]))};
      case ExprOp::LogicalOr:
        return {uint64_t(truth(ops[0]) || truth(ops[1]))};
      case ExprOp::Conditional:
        return truth(ops[0]) ? operandWords(ops[1]) : operandWords(ops[2]);
      case ExprOp::RealToInteger:
        return extendLeaf(e, roundRealToWords(real(ops[0]), e.selfWidth));
      default:
        // The real operators: their values are one word, and they read
        // wide integers through IntegerToReal only.
        return {evalNarrow(e)};
    }
  }

  Words powerWide(const Expr& e) {
    uint32_t width = e.width;
    Words base = operandWords(e.operands[0]);
    const Expr& exponentExpr = e.operands[1];
    Words exponent = operandWords(exponentExpr);
    Words one = resizeWords({1}, 1, width, false);
    if (exponentExpr.isSigned && isNegativeWords(exponent, exponentExpr.width)) {
      if (compareWords(base, one, width, false) == 0)
        return one;
      Words minusOne = resizeWords({1}, 1, width, true);
      if (e.isSigned && compareWords(base, minusOne, width, false) == 0)
        return (exponent[0] & 1) ? minusOne : one;
      return Words(wordsFor(width), 0);
    }
    Words result = one;
    uint32_t exponentBits = exponentExpr.width;
    while (exponentBits > 0 && !((exponent[(exponentBits - 1) / 64] >> ((exponentBits - 1) % 64)) & 1))
      --exponentBits;
    for (uint32_t bit = 0; bit < exponentBits; ++bit) {
      if ((exponent[bit / 64] >> (bit % 64)) & 1)
        result = multiplyWords(result, base, width);
      if (bit + 1 < exponentBits)
        base = multiplyWords(base, base, width);
    }
    return result;
  }

  Words callWide(const Expr& e) {
    const Function& fn = p_.functions[e.target];
    std::vector<Words> values;
    values.reserve(e.operands.size());
    for (const Expr& operand : e.operands) values.push_back(operandWords(operand));
    for (size_t k = 0; k < values.size(); ++k) {
      const Variable& input = p_.variables[fn.inputs[k]];
      Words value = resizeWords(values[k], input.width, input.width, false);
      std::copy(value.begin(), value.end(), &slots_[input.slot]);
      writtenAt_[fn.inputs[k]] = epoch_;
    }
    exec(fn.body);
    const Variable& result = p_.variables[fn.result];
    const uint64_t* base = &slots_[result.slot];
    return Words(base, base + result.words);
  }

  void storeWide(const LValue& target, const Words& value, uint64_t from) {
    const Variable& variable = p_.variables[target.variable];
    uint64_t* base = &slots_[variable.slot];
    if (target.hasElement && !(base = element(variable, target.index.front())))
      return;
    int64_t position = target.hasBits ? indexValue(target.index.back()) + target.offset : 0;
    bool stored = false;
    for (uint32_t done = 0; done < target.width; done += 64)
      stored |= depositBits(base, variable.width, position + done, extractWord(value.data(), value.size(), from + done),
                            std::min(64u, target.width - done));
    if (stored) {
      changed_ = true;
      writtenAt_[target.variable] = epoch_;
    }
  }

  bool caseMatchesWide(const Stmt& st, const Words& subject, const Expr& label) {
    Words value = operandWords(label);
    uint32_t width = st.expr.width;
    // A wide label keeps its wildcards in words, a narrow one in word 0.
    const Words& wildcards = st.match == CaseMatch::WildcardZ ? label.wideHighImpedance : label.wideWildcard;
    for (size_t k = 0; k < wordsFor(width); ++k) {
      uint64_t care = ~uint64_t(0);
      if (st.match != CaseMatch::Exact) {
        if (k < wildcards.size())
          care = ~wildcards[k];
        else if (k == 0)
          care = st.match == CaseMatch::WildcardZ ? ~label.highImpedance : ~label.wildcard;
      }
      uint64_t x = k < subject.size() ? subject[k] : 0, y = k < value.size() ? value[k] : 0;
      if ((x ^ y) & care)
        return false;
    }
    return true;
  }

  static uint64_t compare(ExprOp op, const Expr& left, uint64_t a, uint64_t b) {
    if (op == ExprOp::Equal)
      return a == b;
    if (op == ExprOp::NotEqual)
      return a != b;
    bool less, equal = a == b;
    if (left.isSigned)
      less = static_cast<int64_t>(signExtend(a, left.width)) < static_cast<int64_t>(signExtend(b, left.width));
    else
      less = a < b;
    switch (op) {
      case ExprOp::Less: return less;
      case ExprOp::LessEqual: return less || equal;
      case ExprOp::Greater: return !less && !equal;
      default: return !less;
    }
  }

  // Division by zero gives 0, as in Verilator's 2-state model.
  static uint64_t divide(const Expr& e, uint64_t a, uint64_t b) {
    uint64_t mask = maskOf(e.width);
    if (b == 0)
      return 0;
    bool modulo = e.op == ExprOp::Mod;
    if (!e.isSigned)
      return modulo ? a % b : a / b;
    int64_t x = static_cast<int64_t>(signExtend(a, e.width)), y = static_cast<int64_t>(signExtend(b, e.width));
    if (y == -1)
      return modulo ? 0 : (0 - static_cast<uint64_t>(x)) & mask;
    return static_cast<uint64_t>(modulo ? x % y : x / y) & mask;
  }

  uint64_t power(const Expr& e, uint64_t base, const Expr& exponentExpr) {
    uint64_t mask = maskOf(e.width);
    uint64_t exponent = eval(exponentExpr);
    if (exponentExpr.isSigned && static_cast<int64_t>(signExtend(exponent, exponentExpr.width)) < 0) {
      int64_t signedBase = e.isSigned ? static_cast<int64_t>(signExtend(base, e.width)) : 0;
      if (base == 1)
        return 1;
      if (e.isSigned && signedBase == -1)
        return (exponent & 1) ? mask : 1;
      return 0;
    }
    uint64_t result = 1;
    for (; exponent; exponent >>= 1, base *= base)
      if (exponent & 1) result *= base;
    return result & mask;
  }

  uint64_t call(const Expr& e) {
    const Function& fn = p_.functions[e.target];
    uint64_t inline_[kMaxInlineArguments];
    std::vector<uint64_t> spilled;
    uint64_t* values = inline_;
    if (e.operands.size() > kMaxInlineArguments) {
      spilled.resize(e.operands.size());
      values = spilled.data();
    }
    for (size_t k = 0; k < e.operands.size(); ++k) values[k] = eval(e.operands[k]);
    for (size_t k = 0; k < e.operands.size(); ++k) {
      const Variable& input = p_.variables[fn.inputs[k]];
      slots_[input.slot] = values[k] & maskOf(input.width);
      writtenAt_[fn.inputs[k]] = epoch_;
    }
    exec(fn.body);
    return slots_[p_.variables[fn.result].slot];
  }

  void store(const LValue& target, uint64_t value) {
    const Variable& variable = p_.variables[target.variable];
    uint64_t* word = &slots_[variable.slot];
    if (target.hasElement && !(word = element(variable, target.index.front())))
      return;
    uint64_t updated = value & maskOf(variable.width);
    if (target.hasBits) {
      int64_t position = indexValue(target.index.back()) + target.offset;
      std::optional<uint64_t> placed = withField(*word, value, target.width, position, variable.width);
      if (!placed)
        return;
      updated = *placed;
    }
    if (*word != updated) {
      *word = updated;
      stamp(target.variable);
    }
  }

  void exec(const Stmt& st) {
    if (st.code)
      run(st.code - 1);
    else
      execTree(st);
  }

  // A statement that has no code, or one that code runs as a tree (Exec).
  void execTree(const Stmt& st) {
    switch (st.op) {
      case StmtOp::Empty:
        return;
      case StmtOp::Block:
        for (const Stmt& child : st.children) exec(child);
        return;
      case StmtOp::Assign: {
        if (st.wide) [[unlikely]] {
          Words value = operandWords(st.expr);
          uint64_t from = 0;
          for (size_t k = st.targets.size(); k-- > 0;) {
            storeWide(st.targets[k], value, from);
            from += st.targets[k].width;
          }
          return;
        }
        uint64_t value = eval(st.expr);
        if (st.storesWhole) {
          uint64_t updated = value & st.wholeMask;
          if (slots_[st.wholeSlot] != updated) {
            slots_[st.wholeSlot] = updated;
            changed_ = true;
            writtenAt_[st.wholeVariable] = epoch_;
          }
          return;
        }
        for (size_t k = st.targets.size(); k-- > 0;) {
          store(st.targets[k], value);
          value = st.targets[k].width >= 64 ? 0 : value >> st.targets[k].width;
        }
        return;
      }
      case StmtOp::If:
        exec(truth(st.expr) ? st.children[0] : st.children[1]);
        return;
      case StmtOp::Case: {
        if (st.wide) [[unlikely]] {
          Words subject = operandWords(st.expr);
          const CaseItem* chosen = nullptr;
          for (const CaseItem& item : st.items) {
            if (item.labels.empty())
              chosen = &item;
            for (const Expr& label : item.labels)
              if (caseMatchesWide(st, subject, label)) {
                exec(st.children[item.body]);
                return;
              }
          }
          if (chosen)
            exec(st.children[chosen->body]);
          return;
        }
        uint64_t subject = eval(st.expr);
        const CaseItem* fallback = nullptr;
        for (const CaseItem& item : st.items) {
          if (item.labels.empty()) {
            fallback = &item;
            continue;
          }
          for (const Expr& label : item.labels) {
            uint64_t care = st.match == CaseMatch::Exact       ? ~uint64_t(0)
                            : st.match == CaseMatch::WildcardZ ? ~label.highImpedance
                                                               : ~label.wildcard;
            if (((subject ^ eval(label)) & care) == 0) {
              exec(st.children[item.body]);
              return;
            }
          }
        }
        if (fallback)
          exec(st.children[fallback->body]);
        return;
      }
      case StmtOp::For:
        for (exec(st.children[0]); truth(st.expr); exec(st.children[1])) exec(st.children[2]);
        return;
      case StmtOp::While:
        while (truth(st.expr)) exec(st.children[0]);
        return;
      case StmtOp::Dispatch: {
        const uint64_t& guard = slots_[p_.variables[st.dispatchGuard].slot];
        const uint64_t& state = slots_[p_.variables[st.dispatchState].slot];
        for (uint32_t ran = 0; guard == 0 && state < st.dispatchTable.size();) {
          uint32_t entry = st.dispatchTable[state];
          if (entry <= ran)
            return;
          exec(st.children[entry - 1]);
          ran = entry;
        }
        return;
      }
    }
  }

  std::shared_ptr<const Program> program_;
  const Program& p_;
  std::vector<uint64_t> slots_;
  // The epoch of each variable's last write, and of each combinational
  // node's last settle (0: never settled).
  std::vector<uint64_t> writtenAt_, settledAt_;
  uint64_t epoch_ = 1;
  bool changed_ = false;
  bool unsettled_ = false;
};

// The statements inside code that still run as trees, by kind: what the
// code does not cover yet, and where the time may go.
void printCodeStats(const Program& program) {
  static const char* const kNames[] = {"empty", "block", "assign", "if", "case", "for", "while", "dispatch"};
  static_assert(std::size(kNames) == kStmtOpCount);
  std::fprintf(stderr, "synergy-software-code instructions=%zu tree-statements=%zu", program.code.size(),
               program.treeStatements.size());
  for (size_t k = 0; k < std::size(kNames); ++k)
    if (program.treeStatementCounts[k])
      std::fprintf(stderr, " %s=%u", kNames[k], program.treeStatementCounts[k]);
  std::fprintf(stderr, "\n");
}

Machine* machineOf(SynergyEngine* engine) { return reinterpret_cast<Machine*>(engine); }

const EngineEntryPoints kSoftwareEntryPoints = {
    [](SynergyEngine* engine) { delete machineOf(engine); },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word) {
      return machineOf(engine)->getState(id, index, word);
    },
    [](SynergyEngine* engine, uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
      machineOf(engine)->setState(id, index, word, data);
    },
    [](SynergyEngine* engine, uint64_t* edgeBudget) { return machineOf(engine)->evaluate(edgeBudget); },
    [](SynergyEngine* engine) { machineOf(engine)->resume(); },
    [](SynergyEngine* engine) { machineOf(engine)->update(); },
    [](SynergyEngine* engine) { return machineOf(engine)->thereAreUpdates(); },
    [](SynergyEngine* engine, uint32_t ticks, uint64_t edgesPerTick, uint32_t* ticksRun) {
      return machineOf(engine)->openLoop(ticks, edgesPerTick, ticksRun);
    },
};

}  // namespace

std::unique_ptr<EngineInstance> createSoftwareEngine(std::string_view verilog, EngineCallCounter& calls, std::string& refusal) {
  std::shared_ptr<const Program> program = compileSoftwareProgram(verilog, refusal);
  if (!program)
    return nullptr;
  if (const char* stats = std::getenv("SYNERGY_SOFTWARE_CODE_STATS"); stats && *stats == '1')
    printCodeStats(*program);
  return EngineInstance::adopt(
      [&] { return reinterpret_cast<SynergyEngine*>(new Machine(std::move(program))); }, kSoftwareEntryPoints,
      calls);
}

}  // namespace synergy::engine
