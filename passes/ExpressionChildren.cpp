//===- ExpressionChildren.cpp - child access over the Binaryen C API -------===//
//
// One case per expression class of binaryen 108 (wasm-delegations.def). Leaf
// classes have no children; optional children (a br's value, an if's else arm)
// are skipped when absent. GC instructions have no child accessors in the 108
// C API, so a walk that meets one fails instead of silently missing calls.
//
//===----------------------------------------------------------------------===//
#include "passes/ExpressionChildren.h"

namespace synergy::passes {

namespace {

using Rewrite = std::function<BinaryenExpressionRef(BinaryenExpressionRef)>;

// Applies the rewrite to one child slot, given its getter's value and a setter.
template <typename Setter>
bool rewriteSlot(BinaryenExpressionRef child, const Rewrite& rewrite, Setter set) {
  if (!child) return true;
  BinaryenExpressionRef replacement = rewrite(child);
  if (!replacement) return false;
  if (replacement != child) set(replacement);
  return true;
}

}  // namespace

#define SYNERGY_SLOT(Class, Field)                                                        \
  if (!rewriteSlot(Binaryen##Class##Get##Field(expr), rewrite,                            \
                   [&](BinaryenExpressionRef n) { Binaryen##Class##Set##Field(expr, n); })) \
    return false

#define SYNERGY_INDEXED_SLOTS(Class, Count, Field)                                 \
  for (BinaryenIndex i = 0, n = Binaryen##Class##GetNum##Count(expr); i < n; ++i) \
    if (!rewriteSlot(Binaryen##Class##Get##Field##At(expr, i), rewrite,            \
                     [&](BinaryenExpressionRef r) { Binaryen##Class##Set##Field##At(expr, i, r); })) \
      return false

bool rewriteChildren(BinaryenExpressionRef expr, const Rewrite& rewrite, std::string& error) {
  BinaryenExpressionId id = BinaryenExpressionGetId(expr);
  if (id == BinaryenNopId() || id == BinaryenLocalGetId() || id == BinaryenGlobalGetId() ||
      id == BinaryenConstId() || id == BinaryenMemorySizeId() || id == BinaryenUnreachableId() ||
      id == BinaryenPopId() || id == BinaryenRefNullId() || id == BinaryenRefFuncId() ||
      id == BinaryenTableSizeId() || id == BinaryenRethrowId() || id == BinaryenAtomicFenceId() ||
      id == BinaryenDataDropId() || id == BinaryenRttCanonId()) {
    return true;
  }
  if (id == BinaryenBlockId()) {
    SYNERGY_INDEXED_SLOTS(Block, Children, Child);
  } else if (id == BinaryenIfId()) {
    SYNERGY_SLOT(If, Condition);
    SYNERGY_SLOT(If, IfTrue);
    SYNERGY_SLOT(If, IfFalse);
  } else if (id == BinaryenLoopId()) {
    SYNERGY_SLOT(Loop, Body);
  } else if (id == BinaryenBreakId()) {
    SYNERGY_SLOT(Break, Value);
    SYNERGY_SLOT(Break, Condition);
  } else if (id == BinaryenSwitchId()) {
    SYNERGY_SLOT(Switch, Value);
    SYNERGY_SLOT(Switch, Condition);
  } else if (id == BinaryenCallId()) {
    SYNERGY_INDEXED_SLOTS(Call, Operands, Operand);
  } else if (id == BinaryenCallIndirectId()) {
    SYNERGY_INDEXED_SLOTS(CallIndirect, Operands, Operand);
    SYNERGY_SLOT(CallIndirect, Target);
  } else if (id == BinaryenLocalSetId()) {
    SYNERGY_SLOT(LocalSet, Value);
  } else if (id == BinaryenGlobalSetId()) {
    SYNERGY_SLOT(GlobalSet, Value);
  } else if (id == BinaryenLoadId()) {
    SYNERGY_SLOT(Load, Ptr);
  } else if (id == BinaryenStoreId()) {
    SYNERGY_SLOT(Store, Ptr);
    SYNERGY_SLOT(Store, Value);
  } else if (id == BinaryenAtomicRMWId()) {
    SYNERGY_SLOT(AtomicRMW, Ptr);
    SYNERGY_SLOT(AtomicRMW, Value);
  } else if (id == BinaryenAtomicCmpxchgId()) {
    SYNERGY_SLOT(AtomicCmpxchg, Ptr);
    SYNERGY_SLOT(AtomicCmpxchg, Expected);
    SYNERGY_SLOT(AtomicCmpxchg, Replacement);
  } else if (id == BinaryenAtomicWaitId()) {
    SYNERGY_SLOT(AtomicWait, Ptr);
    SYNERGY_SLOT(AtomicWait, Expected);
    SYNERGY_SLOT(AtomicWait, Timeout);
  } else if (id == BinaryenAtomicNotifyId()) {
    SYNERGY_SLOT(AtomicNotify, Ptr);
    SYNERGY_SLOT(AtomicNotify, NotifyCount);
  } else if (id == BinaryenSIMDExtractId()) {
    SYNERGY_SLOT(SIMDExtract, Vec);
  } else if (id == BinaryenSIMDReplaceId()) {
    SYNERGY_SLOT(SIMDReplace, Vec);
    SYNERGY_SLOT(SIMDReplace, Value);
  } else if (id == BinaryenSIMDShuffleId()) {
    SYNERGY_SLOT(SIMDShuffle, Left);
    SYNERGY_SLOT(SIMDShuffle, Right);
  } else if (id == BinaryenSIMDTernaryId()) {
    SYNERGY_SLOT(SIMDTernary, A);
    SYNERGY_SLOT(SIMDTernary, B);
    SYNERGY_SLOT(SIMDTernary, C);
  } else if (id == BinaryenSIMDShiftId()) {
    SYNERGY_SLOT(SIMDShift, Vec);
    SYNERGY_SLOT(SIMDShift, Shift);
  } else if (id == BinaryenSIMDLoadId()) {
    SYNERGY_SLOT(SIMDLoad, Ptr);
  } else if (id == BinaryenSIMDLoadStoreLaneId()) {
    SYNERGY_SLOT(SIMDLoadStoreLane, Ptr);
    SYNERGY_SLOT(SIMDLoadStoreLane, Vec);
  } else if (id == BinaryenMemoryInitId()) {
    SYNERGY_SLOT(MemoryInit, Dest);
    SYNERGY_SLOT(MemoryInit, Offset);
    SYNERGY_SLOT(MemoryInit, Size);
  } else if (id == BinaryenMemoryCopyId()) {
    SYNERGY_SLOT(MemoryCopy, Dest);
    SYNERGY_SLOT(MemoryCopy, Source);
    SYNERGY_SLOT(MemoryCopy, Size);
  } else if (id == BinaryenMemoryFillId()) {
    SYNERGY_SLOT(MemoryFill, Dest);
    SYNERGY_SLOT(MemoryFill, Value);
    SYNERGY_SLOT(MemoryFill, Size);
  } else if (id == BinaryenUnaryId()) {
    SYNERGY_SLOT(Unary, Value);
  } else if (id == BinaryenBinaryId()) {
    SYNERGY_SLOT(Binary, Left);
    SYNERGY_SLOT(Binary, Right);
  } else if (id == BinaryenSelectId()) {
    SYNERGY_SLOT(Select, IfTrue);
    SYNERGY_SLOT(Select, IfFalse);
    SYNERGY_SLOT(Select, Condition);
  } else if (id == BinaryenDropId()) {
    SYNERGY_SLOT(Drop, Value);
  } else if (id == BinaryenReturnId()) {
    SYNERGY_SLOT(Return, Value);
  } else if (id == BinaryenMemoryGrowId()) {
    SYNERGY_SLOT(MemoryGrow, Delta);
  } else if (id == BinaryenRefIsId()) {
    SYNERGY_SLOT(RefIs, Value);
  } else if (id == BinaryenRefEqId()) {
    SYNERGY_SLOT(RefEq, Left);
    SYNERGY_SLOT(RefEq, Right);
  } else if (id == BinaryenRefAsId()) {
    SYNERGY_SLOT(RefAs, Value);
  } else if (id == BinaryenTableGetId()) {
    SYNERGY_SLOT(TableGet, Index);
  } else if (id == BinaryenTableSetId()) {
    SYNERGY_SLOT(TableSet, Index);
    SYNERGY_SLOT(TableSet, Value);
  } else if (id == BinaryenTableGrowId()) {
    SYNERGY_SLOT(TableGrow, Value);
    SYNERGY_SLOT(TableGrow, Delta);
  } else if (id == BinaryenTryId()) {
    SYNERGY_SLOT(Try, Body);
    SYNERGY_INDEXED_SLOTS(Try, CatchBodies, CatchBody);
  } else if (id == BinaryenThrowId()) {
    SYNERGY_INDEXED_SLOTS(Throw, Operands, Operand);
  } else if (id == BinaryenTupleMakeId()) {
    SYNERGY_INDEXED_SLOTS(TupleMake, Operands, Operand);
  } else if (id == BinaryenTupleExtractId()) {
    SYNERGY_SLOT(TupleExtract, Tuple);
  } else if (id == BinaryenI31NewId()) {
    SYNERGY_SLOT(I31New, Value);
  } else if (id == BinaryenI31GetId()) {
    SYNERGY_SLOT(I31Get, I31);
  } else {
    error = "unsupported instruction (GC proposal, expression id " + std::to_string(id) + ")";
    return false;
  }
  return true;
}

#undef SYNERGY_SLOT
#undef SYNERGY_INDEXED_SLOTS

bool visitChildren(BinaryenExpressionRef expr, const std::function<bool(BinaryenExpressionRef)>& visit,
                   std::string& error) {
  return rewriteChildren(
      expr, [&](BinaryenExpressionRef child) { return visit(child) ? child : nullptr; }, error);
}

}  // namespace synergy::passes
