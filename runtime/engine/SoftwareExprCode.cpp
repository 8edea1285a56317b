//===- SoftwareExprCode.cpp - narrow expressions to stack-machine code -----===//
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
//===----------------------------------------------------------------------===//
#include "engine/SoftwareExprCode.h"

namespace synergy::engine::software {

namespace {

uint64_t maskOf(uint32_t width) { return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1; }

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
    if (st.op == StmtOp::Assign && !st.wide && st.targets.size() == 1) {
      const LValue& target = st.targets[0];
      const Variable& variable = program_.variables[target.variable];
      if (!target.hasElement && !target.hasBits && variable.depth == 0) {
        st.storesWhole = true;
        st.wholeVariable = target.variable;
        st.wholeSlot = static_cast<uint32_t>(variable.slot);
        st.wholeMask = maskOf(variable.width);
      }
    }
    for (CaseItem& item : st.items)
      for (Expr& label : item.labels) lower(label);
    for (Stmt& child : st.children) lower(child);
  }

 private:
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
    code_.push_back({op, width, target, mask, tree});
    return code_.size() - 1;
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
    emit(e);
    put(CodeOp::Index, e.width, e.isSigned ? 1 : 0);
  }

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
      case ExprOp::Element:
        index(ops[0]);
        put(CodeOp::Element, 0, 0, e.target);
        widen(e);
        return;
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
        put(CodeOp::Const, 0, 0);
        pushed();
        for (const Expr& operand : ops) {
          emit(operand);
          put(CodeOp::ShiftIn, operand.width);
          popped();
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
      default:
        tree(e);
        return;
    }
  }

  Program& program_;
  std::vector<Instr>& code_;
  uint32_t depth_ = 0, maxDepth_ = 0;
};

}  // namespace

void lowerExpressionsToCode(Program& program) {
  CodeEmitter emitter(program);
  for (Stmt& st : program.powerOn) emitter.lower(st);
  for (Stmt& st : program.combinational) emitter.lower(st);
  for (Stmt& st : program.stateRead) emitter.lower(st);
  for (Stmt& st : program.clocked) emitter.lower(st);
  for (Function& fn : program.functions) emitter.lower(fn.body);
}

}  // namespace synergy::engine::software
