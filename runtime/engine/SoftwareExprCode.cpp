//===- SoftwareExprCode.cpp - expressions and statements to code ----------===//
//
// This file implements lowerExpressionsToCode. Each node becomes the code
// of its operands followed by its operator, computing exactly what
// SoftwareEngine's tree evaluation computes for it: the same masks, the
// same sign extension of a leaf to its context (Widen), the same index
// conversion and bounds, the same short-circuits (&&, || and ?: jump, so a
// call on the side not taken is not made). The stack depth is tracked as
// code is emitted; an expression that would need more than kMaxCodeStack
// words stays a tree.
//
// A statement's code leaves the stack as it found it: a case subject is the
// only value kept across instructions that are not an expression's, and
// every way out of the case pops it.
//
//===----------------------------------------------------------------------===//
#include "engine/SoftwareExprCode.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

namespace synergy::engine::software {

namespace {

// A call inlined into more instructions than this is evaluated as a tree,
// and so is every call once the inlined code of the program reached the total.
constexpr size_t kMaxInlinedCode = 512;
constexpr size_t kMaxInlinedCodeTotal = size_t(1) << 20;

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

uint64_t signExtend(uint64_t value, uint32_t width) {
  if (width >= 64)
    return value;
  uint64_t sign = uint64_t(1) << (width - 1);
  return (value ^ sign) - sign;
}

class CodeEmitter {
 public:
  explicit CodeEmitter(Program& program) : program_(program), code_(program.code) {}

  void lower(Stmt& st) {
    switch (st.op) {
      case StmtOp::Assign: case StmtOp::If: case StmtOp::Case: case StmtOp::For: case StmtOp::While:
        lower(st.expr);
        break;
      default:
        break;
    }
    for (LValue& target : st.targets)
      for (Expr& index : target.index) lower(index);
    resolveWholeStore(st);
    for (CaseItem& item : st.items)
      for (Expr& label : item.labels) lower(label);
    for (Stmt& child : st.children) lower(child);
  }

  // Sets storesWhole on every assignment in `st` to one whole narrow
  // scalar. Function bodies get it before any code is emitted, because a
  // call is inlined into the code of statements lowered before them.
  void resolveWholeStores(Stmt& st) {
    resolveWholeStore(st);
    for (Stmt& child : st.children) resolveWholeStores(child);
  }

  // Gives the top-level statement `st` code of its own, its expressions
  // inline; what the code does not cover inside it runs as a tree (Exec).
  void lowerStatement(Stmt& st) {
    lower(st);
    size_t start = code_.size(), dispatches = program_.dispatches.size(), trees = program_.treeStatements.size();
    auto counts = std::to_array(program_.treeStatementCounts);
    depth_ = maxDepth_ = 0;
    statement(st);
    put(CodeOp::Halt);
    // Code that would only run the whole statement as a tree is not kept.
    bool wholeTree = program_.treeStatements.size() > trees && program_.treeStatements.back() == &st;
    if (maxDepth_ > kMaxCodeStack || wholeTree) {
      code_.resize(start);
      program_.dispatches.resize(dispatches);
      program_.treeStatements.resize(trees);
      std::copy(counts.begin(), counts.end(), program_.treeStatementCounts);
      return;
    }
    st.code = static_cast<uint32_t>(start + 1);
  }

 private:
  void statement(const Stmt& st) {
    switch (st.op) {
      case StmtOp::Empty:
        return;
      case StmtOp::Block:
        for (const Stmt& child : st.children) statement(child);
        return;
      case StmtOp::Assign:
        if (assignment(st))
          return;
        break;
      case StmtOp::If: {
        if (st.expr.wide)
          break;
        emit(st.expr);
        size_t otherwise = put(CodeOp::JumpIfZero);
        popped();
        statement(st.children[0]);
        if (st.children[1].op == StmtOp::Empty) {
          jumpTo(otherwise);
          return;
        }
        size_t end = put(CodeOp::Jump);
        jumpTo(otherwise);
        statement(st.children[1]);
        jumpTo(end);
        return;
      }
      case StmtOp::Case:
        if (caseStatement(st))
          return;
        break;
      case StmtOp::For:
      case StmtOp::While: {
        if (st.expr.wide)
          break;
        bool isFor = st.op == StmtOp::For;
        if (isFor)
          statement(st.children[0]);
        uint32_t loop = static_cast<uint32_t>(code_.size());
        emit(st.expr);
        size_t exit = put(CodeOp::JumpIfZero);
        popped();
        if (isFor) {
          statement(st.children[2]);
          statement(st.children[1]);
        } else {
          statement(st.children[0]);
        }
        put(CodeOp::Jump, 0, 0, loop);
        jumpTo(exit);
        return;
      }
      case StmtOp::Dispatch:
        dispatch(st);
        return;
    }
    put(CodeOp::Exec, 0, 0, static_cast<uint32_t>(program_.treeStatements.size()));
    program_.treeStatements.push_back(&st);
    ++program_.treeStatementCounts[static_cast<size_t>(st.op)];
  }

  void resolveWholeStore(Stmt& st) {
    if (st.op != StmtOp::Assign || st.wide || st.targets.size() != 1)
      return;
    const LValue& target = st.targets[0];
    const Variable& variable = program_.variables[target.variable];
    if (!target.hasElement && !target.hasBits && variable.depth == 0) {
      st.storesWhole = true;
      st.wholeVariable = target.variable;
      st.wholeSlot = static_cast<uint32_t>(variable.slot);
      st.wholeMask = maskOf(variable.width);
    }
  }

  // An assignment to one narrow target whose indices are narrow: the value,
  // then the index if any, then the store, as SoftwareEngine's store() does.
  bool assignment(const Stmt& st) {
    if (st.targets.size() > 1)
      return concatenationAssignment(st);
    if (st.wide)
      return false;
    const LValue& target = st.targets[0];
    const Variable& variable = program_.variables[target.variable];
    for (const Expr& index : target.index)
      if (index.wide)
        return false;
    if (st.storesWhole) {
      emit(st.expr);
      putStore(CodeOp::Store, st.wholeVariable, 0, st.wholeMask);
      popped();
      return true;
    }
    if (variable.width > kMaxWordWidth || target.hasElement == target.hasBits)
      return false;
    if (target.hasElement) {
      emit(st.expr);
      index(target.index.front());
      putStore(CodeOp::StoreElement, target.variable, 0, maskOf(variable.width));
      popped();
      popped();
      return true;
    }
    if (variable.depth != 0)
      return false;
    const Expr& at = target.index.back();
    if (at.op == ExprOp::Constant) {
      uint64_t raw = at.value;
      int64_t position = static_cast<int64_t>(at.isSigned ? signExtend(raw, at.width) : raw) + target.offset;
      if (position < 0 || position >= int64_t(variable.width))
        return false;
      emit(st.expr);
      putStore(CodeOp::StoreBits, target.variable, static_cast<uint32_t>(position),
               (maskOf(target.width) << position) & maskOf(variable.width));
      popped();
      return true;
    }
    emit(st.expr);
    index(at);
    putStore(CodeOp::StoreSelect, target.variable, target.width, static_cast<uint64_t>(target.offset));
    popped();
    popped();
    return true;
  }

  // `{a, b, ...} = {x, y, ...}` where each target is a whole narrow scalar
  // as wide as its part: every part is computed before anything is stored
  // (they are all on the stack), then the parts are stored last first, the
  // order in which the tree path splits the value, so that a target named
  // twice ends with the same part. A swap or a shift register of words
  // (`{a, b} = {b, a}`) then costs no wide temporary.
  bool concatenationAssignment(const Stmt& st) {
    const Expr& value = st.expr;
    if (value.op != ExprOp::Concat || value.operands.size() != st.targets.size() || value.width != value.selfWidth)
      return false;
    for (size_t k = 0; k < st.targets.size(); ++k) {
      const LValue& target = st.targets[k];
      const Variable& variable = program_.variables[target.variable];
      const Expr& part = value.operands[k];
      if (target.hasElement || target.hasBits || variable.depth != 0 || variable.isReal ||
          variable.width > kMaxWordWidth || part.wide || part.isReal || part.width != variable.width)
        return false;
    }
    for (const Expr& part : value.operands) emit(part);
    for (size_t k = st.targets.size(); k-- > 0;) {
      const Variable& variable = program_.variables[st.targets[k].variable];
      putStore(CodeOp::Store, st.targets[k].variable, 0, maskOf(variable.width));
      popped();
    }
    return true;
  }

  // A call of a function whose inputs and result are narrow integers, in
  // line: the arguments, all computed before any is bound (a call in an
  // argument may be of the same function), bound as call() binds them, then
  // the body's code, then its result. Functions are never recursive (the
  // compiler refuses that), so inlining ends. A call whose code, with the
  // calls inlined into it, would exceed kMaxInlinedCode instructions stays a
  // tree, and so does every call once the program's inlined code reached
  // kMaxInlinedCodeTotal: the code grows at most linearly with the input.
  // A function found too large once is not tried again, so no body is
  // emitted and thrown away more than once.
  bool inlineCall(const Expr& e) {
    const Function& fn = program_.functions[e.target];
    if (tooLargeToInline_.empty())
      tooLargeToInline_.assign(program_.functions.size(), false);
    if (tooLargeToInline_[e.target])
      return false;
    auto narrowInteger = [&](uint32_t id) {
      const Variable& variable = program_.variables[id];
      return variable.depth == 0 && !variable.isReal && variable.width <= kMaxWordWidth;
    };
    if (!narrowInteger(fn.result) || fn.inputs.size() != e.operands.size() ||
        !std::all_of(fn.inputs.begin(), fn.inputs.end(), narrowInteger))
      return false;
    bool outermost = !inlining_;
    if (outermost) {
      if (inlinedTotal_ >= kMaxInlinedCodeTotal)
        return false;
      inlining_ = true;
      inlineStart_ = code_.size();
    } else if (code_.size() - inlineStart_ > kMaxInlinedCode) {
      return false;
    }
    size_t start = code_.size(), trees = program_.treeStatements.size();
    auto counts = std::to_array(program_.treeStatementCounts);
    uint32_t depth = depth_;
    for (const Expr& argument : e.operands) emit(argument);
    for (size_t k = fn.inputs.size(); k-- > 0;) {
      const Variable& input = program_.variables[fn.inputs[k]];
      code_.push_back({CodeOp::StoreArgument, 0, static_cast<uint32_t>(input.slot), fn.inputs[k], maskOf(input.width), nullptr});
      popped();
    }
    statement(fn.body);
    put(CodeOp::Load, 0, 0, static_cast<uint32_t>(program_.variables[fn.result].slot));
    pushed();
    widen(e);
    if (code_.size() - start > kMaxInlinedCode)
      tooLargeToInline_[e.target] = true;
    if (outermost)
      inlining_ = false;
    if (!outermost || code_.size() - start <= kMaxInlinedCode) {
      if (outermost)
        inlinedTotal_ += code_.size() - start;
      return true;
    }
    code_.resize(start);
    program_.treeStatements.resize(trees);
    std::copy(counts.begin(), counts.end(), program_.treeStatementCounts);
    depth_ = depth;
    return false;
  }

  // The subject stays on the stack while the labels, all constants, are
  // compared in order; the first that matches pops it and jumps to its
  // body, and none matching pops it and runs the default.
  bool caseStatement(const Stmt& st) {
    if (st.wide)
      return false;
    for (const CaseItem& item : st.items)
      for (const Expr& label : item.labels)
        if (label.op != ExprOp::Constant || label.wide)
          return false;
    emit(st.expr);
    std::vector<std::pair<size_t, uint32_t>> labelJumps;
    const CaseItem* fallback = nullptr;
    for (const CaseItem& item : st.items) {
      if (item.labels.empty())
        fallback = &item;
      for (const Expr& label : item.labels) {
        size_t at = st.match == CaseMatch::Exact
                        ? put(CodeOp::CaseEquals, 0, label.value)
                        : put(CodeOp::CaseMatches, st.match == CaseMatch::WildcardZ ? 1 : 2, label.value, 0, &label);
        labelJumps.push_back({at, item.body});
      }
    }
    put(CodeOp::Pop);
    popped();
    if (fallback)
      statement(st.children[fallback->body]);
    std::vector<size_t> ends{put(CodeOp::Jump)};
    std::vector<uint32_t> bodyStart(st.children.size(), 0);
    std::vector<bool> placed(st.children.size(), false);
    for (const auto& [at, body] : labelJumps) {
      if (!placed[body]) {
        placed[body] = true;
        bodyStart[body] = static_cast<uint32_t>(code_.size());
        statement(st.children[body]);
        ends.push_back(put(CodeOp::Jump));
      }
      code_[at].target = bodyStart[body];
    }
    for (size_t end : ends) jumpTo(end);
    return true;
  }

  // Each body ends in a Dispatch that finds the next one, as
  // SoftwareEngine's tree loop does.
  void dispatch(const Stmt& st) {
    uint32_t which = static_cast<uint32_t>(program_.dispatches.size());
    DispatchCode table;
    table.guardSlot = static_cast<uint32_t>(program_.variables[st.dispatchGuard].slot);
    table.stateSlot = static_cast<uint32_t>(program_.variables[st.dispatchState].slot);
    table.table = st.dispatchTable;
    program_.dispatches.push_back(std::move(table));
    put(CodeOp::Dispatch, 0, 0, which);
    std::vector<uint32_t> bodies;
    for (size_t k = 0; k < st.children.size(); ++k) {
      bodies.push_back(static_cast<uint32_t>(code_.size()));
      statement(st.children[k]);
      put(CodeOp::Dispatch, static_cast<uint32_t>(k + 1), 0, which);
    }
    program_.dispatches[which].bodies = std::move(bodies);
    program_.dispatches[which].end = static_cast<uint32_t>(code_.size());
  }

  // Gives `e` code when it is narrow and more than a constant.
  void lower(Expr& e) {
    if (e.wide || e.isReal || e.op == ExprOp::Constant)
      return;
    size_t start = code_.size();
    depth_ = maxDepth_ = 0;
    emit(e);
    put(CodeOp::Return);
    if (maxDepth_ > kMaxCodeStack || code_[start].op == CodeOp::Tree) {
      code_.resize(start);
      return;
    }
    e.code = static_cast<uint32_t>(start + 1);
  }

  size_t put(CodeOp op, uint32_t width = 0, uint64_t mask = 0, uint32_t target = 0, const Expr* tree = nullptr) {
    code_.push_back({op, width, target, 0, mask, tree});
    return code_.size() - 1;
  }

  // A store of the popped word into `variable`.
  void putStore(CodeOp op, uint32_t variable, uint32_t width, uint64_t mask) {
    code_.push_back({op, width, static_cast<uint32_t>(program_.variables[variable].slot), variable, mask, nullptr});
  }

  void pushed() {
    if (++depth_ > maxDepth_)
      maxDepth_ = depth_;
  }

  void popped() { --depth_; }

  void tree(const Expr& e) {
    put(CodeOp::Tree, 0, 0, 0, &e);
    pushed();
  }

  // The leaf's self-determined value is on top: extend it to its context.
  void widen(const Expr& e) {
    if (e.isSigned && e.width > e.selfWidth)
      put(CodeOp::Widen, e.selfWidth, maskOf(e.width));
  }

  void index(const Expr& e) {
    if (e.op == ExprOp::Constant) {
      put(CodeOp::Const, 0, indexConstant(e));
      pushed();
      return;
    }
    emit(e);
    put(CodeOp::Index, e.width, e.isSigned ? 1 : 0);
  }

  // The constant `e` is, seen through braces around one part ({{c}}), or null.
  static const Expr* constantPart(const Expr& e) {
    if (e.op == ExprOp::Concat && e.operands.size() == 1 && e.width == e.selfWidth)
      return constantPart(e.operands[0]);
    return e.op == ExprOp::Constant && e.width == e.selfWidth ? &e : nullptr;
  }

  // What Index makes of a constant index.
  static uint64_t indexConstant(const Expr& e) { return e.isSigned ? signExtend(e.value, e.width) : e.value; }

  void unary(CodeOp op, const Expr& operand, uint64_t mask = 0) {
    emit(operand);
    put(op, 0, mask);
  }

  void binary(CodeOp op, const Expr& e, uint32_t width = 0) {
    emit(e.operands[0]);
    emit(e.operands[1]);
    put(op, width, maskOf(e.width));
    popped();
  }

  // `variable == constant` where the variable's value is its stored word:
  // the state machine's every guard.
  static bool comparesSlotToConstant(const Expr& e) {
    const Expr& left = e.operands[0];
    return left.op == ExprOp::Variable && !(left.isSigned && left.width > left.selfWidth) &&
           e.operands[1].op == ExprOp::Constant;
  }

  void jumpTo(size_t instruction) { code_[instruction].target = static_cast<uint32_t>(code_.size()); }

  void emit(const Expr& e) {
    const std::vector<Expr>& ops = e.operands;
    for (const Expr& operand : ops)
      if (operand.wide || operand.isReal) {
        tree(e);
        return;
      }
    if (e.wide || e.isReal) {
      tree(e);
      return;
    }
    uint64_t mask = maskOf(e.width);
    switch (e.op) {
      case ExprOp::Constant:
        put(CodeOp::Const, 0, e.value);
        pushed();
        return;
      case ExprOp::Variable:
        put(CodeOp::Load, 0, 0, static_cast<uint32_t>(program_.variables[e.target].slot));
        pushed();
        widen(e);
        return;
      case ExprOp::Element: {
        // A constant index names one word, or none (0), when compiled.
        const Variable& memory = program_.variables[e.target];
        if (ops[0].op == ExprOp::Constant && memory.words == 1) {
          int64_t position = static_cast<int64_t>(indexConstant(ops[0]));
          uint64_t offset = static_cast<uint64_t>(position) - static_cast<uint64_t>(memory.lowIndex);
          if (position >= memory.lowIndex && offset < memory.depth)
            put(CodeOp::Load, 0, 0, static_cast<uint32_t>(memory.slot + offset));
          else
            put(CodeOp::Const, 0, 0);
          pushed();
        } else {
          index(ops[0]);
          put(CodeOp::Element, 0, 0, e.target);
        }
        widen(e);
        return;
      }
      case ExprOp::Select:
        if (e.hasElement) {
          tree(e);
          return;
        }
        index(ops[0]);
        put(CodeOp::Select, 0, 0, e.target, &e);
        widen(e);
        return;
      case ExprOp::Concat:
        // The first part is the value so far: ((0 << w) | first) is first.
        emit(ops[0]);
        for (size_t k = 1; k < ops.size(); ++k) {
          emit(ops[k]);
          put(CodeOp::ShiftIn, ops[k].width);
          popped();
        }
        widen(e);
        return;
      case ExprOp::Replicate:
        // At most 64 bits in all, so the count is at most 64.
        if (e.value > kMaxWordWidth) {
          tree(e);
          return;
        }
        if (const Expr* part = constantPart(ops[0])) {
          put(CodeOp::Const, 0, replicated(part->value, ops[0].width, e.value));
          pushed();
        } else {
          emit(ops[0]);
          put(CodeOp::Replicate, ops[0].width, e.value);
        }
        widen(e);
        return;
      case ExprOp::Cast:
        emit(ops[0]);
        widen(e);
        return;
      case ExprOp::Identity:
        emit(ops[0]);
        return;
      case ExprOp::Negate: return unary(CodeOp::Negate, ops[0], mask);
      case ExprOp::BitNot: return unary(CodeOp::BitNot, ops[0], mask);
      case ExprOp::LogicalNot: case ExprOp::ReduceNor: return unary(CodeOp::LogicalNot, ops[0]);
      case ExprOp::ReduceAnd: return unary(CodeOp::ReduceAnd, ops[0], maskOf(ops[0].width));
      case ExprOp::ReduceNand: return unary(CodeOp::ReduceNand, ops[0], maskOf(ops[0].width));
      case ExprOp::ReduceOr: return unary(CodeOp::ReduceOr, ops[0]);
      case ExprOp::ReduceXor: return unary(CodeOp::ReduceXor, ops[0]);
      case ExprOp::ReduceXnor: return unary(CodeOp::ReduceXnor, ops[0]);
      case ExprOp::Add: return binary(CodeOp::Add, e);
      case ExprOp::Sub: return binary(CodeOp::Sub, e);
      case ExprOp::Mul: return binary(CodeOp::Mul, e);
      case ExprOp::And: return binary(CodeOp::And, e);
      case ExprOp::Or: return binary(CodeOp::Or, e);
      case ExprOp::Xor: return binary(CodeOp::Xor, e);
      case ExprOp::Xnor: return binary(CodeOp::Xnor, e);
      case ExprOp::ShiftLeft: return binary(CodeOp::ShiftLeft, e, e.width);
      case ExprOp::ShiftRight: return binary(CodeOp::ShiftRight, e, e.width);
      case ExprOp::ArithShiftRight:
        return binary(e.isSigned ? CodeOp::ArithShiftRight : CodeOp::ShiftRight, e, e.width);
      case ExprOp::Equal:
      case ExprOp::NotEqual:
        if (comparesSlotToConstant(e)) {
          put(e.op == ExprOp::Equal ? CodeOp::SlotEquals : CodeOp::SlotDiffers, 0, ops[1].value,
              static_cast<uint32_t>(program_.variables[ops[0].target].slot));
          pushed();
          return;
        }
        return binary(e.op == ExprOp::Equal ? CodeOp::Equal : CodeOp::NotEqual, e);
      case ExprOp::Less:
        return binary(ops[0].isSigned ? CodeOp::SignedLess : CodeOp::Less, e, ops[0].width);
      case ExprOp::LessEqual:
        return binary(ops[0].isSigned ? CodeOp::SignedLessEqual : CodeOp::LessEqual, e, ops[0].width);
      case ExprOp::Greater:
        return binary(ops[0].isSigned ? CodeOp::SignedGreater : CodeOp::Greater, e, ops[0].width);
      case ExprOp::GreaterEqual:
        return binary(ops[0].isSigned ? CodeOp::SignedGreaterEqual : CodeOp::GreaterEqual, e, ops[0].width);
      case ExprOp::LogicalAnd:
      case ExprOp::LogicalOr: {
        emit(ops[0]);
        size_t skip = put(e.op == ExprOp::LogicalAnd ? CodeOp::AndThen : CodeOp::OrElse);
        popped();
        emit(ops[1]);
        put(CodeOp::ToBool);
        jumpTo(skip);
        return;
      }
      case ExprOp::Conditional: {
        emit(ops[0]);
        size_t otherwise = put(CodeOp::JumpIfZero);
        popped();
        emit(ops[1]);
        size_t end = put(CodeOp::Jump);
        popped();
        jumpTo(otherwise);
        emit(ops[2]);
        jumpTo(end);
        return;
      }
      case ExprOp::Call:
        if (!inlineCall(e))
          tree(e);
        return;
      default:
        tree(e);
        return;
    }
  }

  Program& program_;
  std::vector<Instr>& code_;
  uint32_t depth_ = 0, maxDepth_ = 0;
  // Inlining a call (inlineCall): whether one is under way, where the
  // outermost one's code starts, and how much inlined code was kept.
  bool inlining_ = false;
  size_t inlineStart_ = 0, inlinedTotal_ = 0;
  std::vector<bool> tooLargeToInline_;  // by function
};

}  // namespace

void lowerExpressionsToCode(Program& program) {
  CodeEmitter emitter(program);
  for (Function& fn : program.functions) emitter.resolveWholeStores(fn.body);
  for (Stmt& st : program.powerOn) emitter.lowerStatement(st);
  for (Stmt& st : program.combinational) emitter.lowerStatement(st);
  for (Stmt& st : program.stateRead) emitter.lowerStatement(st);
  for (Stmt& st : program.clocked) emitter.lowerStatement(st);
  for (Function& fn : program.functions) emitter.lowerStatement(fn.body);
}

}  // namespace synergy::engine::software
