//===- SoftwareEngine.cpp - run an engine without Verilator ----------------===//
//
// This file implements the software engine: a machine over 64-bit words that
// executes a SoftwareProgram with Verilator's 2-state semantics, and the
// engine ABI's entry points over it. Each entry point follows the cycle
// protocol of hwlower/EngineManifest.h exactly as wrapper/EngineWrapper.cpp
// does over the Verilator model: one edge runs the `always @(posedge __clk)`
// blocks, then settles the continuous logic in its levelized order; the
// state-read logic runs only when the host reads state.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareEngine.h"

#include <bit>

#include "engine/SoftwareCompiler.h"

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

uint64_t signExtend(uint64_t value, uint32_t width) {
  if (width >= 64)
    return value;
  uint64_t sign = uint64_t(1) << (width - 1);
  return (value ^ sign) - sign;
}

class Machine {
 public:
  explicit Machine(std::shared_ptr<const Program> program)
      : program_(std::move(program)), p_(*program_), slots_(p_.slotCount, 0) {
    for (const Stmt& st : p_.powerOn) exec(st);
    settle();
  }

  uint64_t getState(uint32_t id, uint32_t index, uint32_t word) {
    port(p_.clk) = 0;
    port(p_.saId) = id & 0xffff;
    port(p_.saIndex) = index;
    port(p_.saWord) = word & 0xffff;
    for (const Stmt& st : p_.stateRead) exec(st);
    return port(p_.saRdata);
  }

  void setState(uint32_t id, uint32_t index, uint32_t word, uint64_t data) {
    port(p_.saId) = id & 0xffff;
    port(p_.saIndex) = index;
    port(p_.saWord) = word & 0xffff;
    port(p_.saWdata) = data;
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
    port(p_.openLoopN) = ticks;
    port(p_.cont) = port(p_.task) != 0;
    edgeWith(p_.openLoop);
    port(p_.cont) = 0;
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
  uint64_t& port(uint32_t variable) { return slots_[p_.variables[variable].slot]; }

  void edge() {
    for (const Stmt& st : p_.clocked) exec(st);
    settle();
  }

  void edgeWith(uint32_t control) {
    port(control) = 1;
    edge();
    port(control) = 0;
  }

  void settle() {
    if (!p_.combinationalCycle) {
      for (const Stmt& st : p_.combinational) exec(st);
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

  // The self-determined result of a leaf, extended to its context.
  static uint64_t widen(const Expr& e, uint64_t raw) {
    if (e.isSigned && e.width > e.selfWidth)
      return signExtend(raw, e.selfWidth) & maskOf(e.width);
    return raw;
  }

  // An index as a signed number; unsigned ones past 2^63 fall out of range.
  int64_t indexValue(const Expr& e) {
    uint64_t raw = eval(e);
    return static_cast<int64_t>(e.isSigned ? signExtend(raw, e.width) : raw);
  }

  // The element `index` (a Verilog index) of a memory, or nullptr outside it.
  uint64_t* element(const Variable& memory, const Expr& index) {
    int64_t position = indexValue(index);
    if (position < memory.lowIndex)
      return nullptr;
    uint64_t offset = static_cast<uint64_t>(position) - static_cast<uint64_t>(memory.lowIndex);
    return offset < memory.depth ? &slots_[memory.slot + offset] : nullptr;
  }

  uint64_t eval(const Expr& e) {
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
      case ExprOp::Replicate: {
        uint64_t part = eval(ops[0]), value = 0;
        for (uint64_t k = 0; k < e.value; ++k) value = (ops[0].width >= 64 ? 0 : value << ops[0].width) | part;
        return widen(e, value);
      }
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
        return eval(ops[0]) ? eval(ops[1]) : eval(ops[2]);
    }
    return 0;
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
    }
    exec(fn.body);
    return slots_[p_.variables[fn.result].slot];
  }

  void store(const LValue& target, uint64_t value) {
    const Variable& variable = p_.variables[target.variable];
    uint64_t* word = &slots_[variable.slot];
    if (target.hasElement && !(word = element(variable, target.index.front())))
      return;
    uint64_t updated;
    uint64_t variableMask = maskOf(variable.width);
    if (!target.hasBits) {
      updated = value & variableMask;
    } else {
      int64_t position = indexValue(target.index.back()) + target.offset;
      int64_t bits = static_cast<int64_t>(target.width);
      if (position >= int64_t(variable.width) || position <= -bits)
        return;
      uint64_t field = maskOf(target.width) & value;
      uint64_t fieldMask = maskOf(target.width);
      if (position >= 0) {
        field <<= position;
        fieldMask <<= position;
      } else {
        field >>= -position;
        fieldMask >>= -position;
      }
      fieldMask &= variableMask;
      updated = (*word & ~fieldMask) | (field & fieldMask);
    }
    if (*word != updated) {
      *word = updated;
      changed_ = true;
    }
  }

  void exec(const Stmt& st) {
    switch (st.op) {
      case StmtOp::Empty:
        return;
      case StmtOp::Block:
        for (const Stmt& child : st.children) exec(child);
        return;
      case StmtOp::Assign: {
        uint64_t value = eval(st.expr);
        for (size_t k = st.targets.size(); k-- > 0;) {
          store(st.targets[k], value);
          value = st.targets[k].width >= 64 ? 0 : value >> st.targets[k].width;
        }
        return;
      }
      case StmtOp::If:
        exec(eval(st.expr) ? st.children[0] : st.children[1]);
        return;
      case StmtOp::Case: {
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
        for (exec(st.children[0]); eval(st.expr); exec(st.children[1])) exec(st.children[2]);
        return;
      case StmtOp::While:
        while (eval(st.expr)) exec(st.children[0]);
        return;
    }
  }

  std::shared_ptr<const Program> program_;
  const Program& p_;
  std::vector<uint64_t> slots_;
  bool changed_ = false;
  bool unsettled_ = false;
};

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
  return EngineInstance::adopt(
      [&] { return reinterpret_cast<SynergyEngine*>(new Machine(std::move(program))); }, kSoftwareEntryPoints,
      calls);
}

}  // namespace synergy::engine
