//===- ForwardLoopCarriedStores.cpp - keep a recurrence's value in a local -===//
//
// A backward recurrence such as `x[k] = a[k] * x[k + 1] + b[k]` for falling k
// stores x[k] in one iteration and loads the same word in the next. Natively,
// clang's LoopLoadElimination keeps that value in a register. For wasm32
// clang-19 does not when the stride is negative: with opt-19, the same loop
// is forwarded once the data layout's pointers are 64-bit, and a rising
// loop is forwarded at 32 bits (the 32-bit address distance seems to be
// compared, zero-extended, with a negative 64-bit stride times size). The
// load then waits on the previous iteration's store, through memory, on
// every step of the loop's critical path: the bench's adi kernel, whose row
// sweeps back-substitute so, ran 1.3x native, and about 1.0x with this
// pass. The AOT compile cannot repair it: guest addresses are wrapping
// 32-bit sums there, which scalar evolution cannot follow across iterations.
//
// This pass forwards the stored value itself, where the loop alone proves it
// safe. A loop qualifies when its body is a straight-line block ending in the
// `br_if` back to the loop, without calls, branches, nested control flow or
// anything else that could trap or write memory besides its loads and one
// full-width store S, addressed as `$a + c1`; the local $a is set once per
// iteration, after S, to `$a + d`; and a load L of S's width and type, at the
// same offset and address `$a + c2` with d + c2 = c1 (mod 2^32), runs before
// S in the iteration. L then reads in iteration i + 1 exactly the word S
// wrote in iteration i, and nothing writes memory in between. The pass
// stores S's value into a new local as well (`local.tee`), reads L from that
// local, and does L's first load once before the loop: iteration one runs
// nothing with an effect before L, so the load moves without changing what
// it reads or whether and how the granule traps.
//
// Adding a local takes recreating the function (the 108 C API has no
// BinaryenFunctionAddVar); its name, signature, locals and local names stay.
//
// Runs before asyncify-control-points: a loop it changes calls nothing, so
// Asyncify never instruments it either way.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <string>
#include <vector>

#include "passes/ExpressionChildren.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

// `local.get $a`, `i32.add` of it and an i32 constant either way round, or
// `i32.sub` of a constant from it.
struct LocalPlusConstant {
  BinaryenIndex local = 0;
  uint32_t constant = 0;
};

bool isI32Const(BinaryenExpressionRef expr) {
  return BinaryenExpressionGetId(expr) == BinaryenConstId() &&
         BinaryenExpressionGetType(expr) == BinaryenTypeInt32();
}

bool matchLocalPlusConstant(BinaryenExpressionRef expr, LocalPlusConstant& out) {
  BinaryenExpressionId id = BinaryenExpressionGetId(expr);
  if (id == BinaryenLocalGetId() && BinaryenExpressionGetType(expr) == BinaryenTypeInt32()) {
    out = {BinaryenLocalGetGetIndex(expr), 0};
    return true;
  }
  if (id != BinaryenBinaryId()) return false;
  const bool subtracts = BinaryenBinaryGetOp(expr) == BinaryenSubInt32();
  if (!subtracts && BinaryenBinaryGetOp(expr) != BinaryenAddInt32()) return false;
  BinaryenExpressionRef left = BinaryenBinaryGetLeft(expr), right = BinaryenBinaryGetRight(expr);
  if (!subtracts && isI32Const(left)) std::swap(left, right);
  if (BinaryenExpressionGetId(left) != BinaryenLocalGetId() || !isI32Const(right)) return false;
  const uint32_t constant = uint32_t(BinaryenConstGetValueI32(right));
  out = {BinaryenLocalGetGetIndex(left), subtracts ? 0u - constant : constant};
  return true;
}

// Whether a load or store of `bytes` moves its whole value type.
bool isFullWidth(uint32_t bytes, BinaryenType type) {
  if (type == BinaryenTypeInt32() || type == BinaryenTypeFloat32()) return bytes == 4;
  if (type == BinaryenTypeInt64() || type == BinaryenTypeFloat64()) return bytes == 8;
  return false;
}

bool isTrappingUnary(BinaryenOp op) {
  for (BinaryenOp trapping :
       {BinaryenTruncSFloat32ToInt32(), BinaryenTruncSFloat32ToInt64(),
        BinaryenTruncUFloat32ToInt32(), BinaryenTruncUFloat32ToInt64(),
        BinaryenTruncSFloat64ToInt32(), BinaryenTruncSFloat64ToInt64(),
        BinaryenTruncUFloat64ToInt32(), BinaryenTruncUFloat64ToInt64()})
    if (op == trapping) return true;
  return false;
}

bool isTrappingBinary(BinaryenOp op) {
  for (BinaryenOp trapping :
       {BinaryenDivSInt32(), BinaryenDivUInt32(), BinaryenRemSInt32(), BinaryenRemUInt32(),
        BinaryenDivSInt64(), BinaryenDivUInt64(), BinaryenRemSInt64(), BinaryenRemUInt64()})
    if (op == trapping) return true;
  return false;
}

// What one straight-line loop body holds, in evaluation order.
struct LoopBodyFacts {
  std::vector<BinaryenExpressionRef> loads;  // in evaluation order
  std::vector<size_t> loadStatement;         // top-level statement of each load
  BinaryenExpressionRef store = nullptr;
  size_t storeStatement = 0;
  size_t storeCount = 0;
  std::vector<BinaryenExpressionRef> localSets;  // every set and tee
  std::vector<size_t> localSetStatement;
};

// Collects the facts of `expr` (inside top-level statement `statement`);
// false when it holds anything but plain, non-trapping, effect-free
// arithmetic, local access, non-atomic loads and stores.
bool collectStraightLine(BinaryenExpressionRef expr, size_t statement, LoopBodyFacts& facts) {
  BinaryenExpressionId id = BinaryenExpressionGetId(expr);
  bool allowed = id == BinaryenLocalGetId() || id == BinaryenLocalSetId() ||
                 id == BinaryenConstId() || id == BinaryenSelectId() || id == BinaryenDropId() ||
                 id == BinaryenNopId() || id == BinaryenGlobalGetId() ||
                 (id == BinaryenUnaryId() && !isTrappingUnary(BinaryenUnaryGetOp(expr))) ||
                 (id == BinaryenBinaryId() && !isTrappingBinary(BinaryenBinaryGetOp(expr))) ||
                 (id == BinaryenLoadId() && !BinaryenLoadIsAtomic(expr)) ||
                 (id == BinaryenStoreId() && !BinaryenStoreIsAtomic(expr));
  if (!allowed) return false;
  std::string error;
  bool childrenAllowed = visitChildren(
      expr,
      [&](BinaryenExpressionRef child) { return collectStraightLine(child, statement, facts); },
      error);
  if (!childrenAllowed) return false;
  // Children first: that is evaluation order, and a store's own write
  // happens after its operands.
  if (id == BinaryenLoadId()) {
    facts.loads.push_back(expr);
    facts.loadStatement.push_back(statement);
  } else if (id == BinaryenStoreId()) {
    facts.store = expr;
    facts.storeStatement = statement;
    ++facts.storeCount;
  } else if (id == BinaryenLocalSetId()) {
    facts.localSets.push_back(expr);
    facts.localSetStatement.push_back(statement);
  }
  return true;
}

// One loop the pass rewrites: which loads read the previous iteration's store.
struct Forwarding {
  BinaryenExpressionRef loop = nullptr;
  BinaryenExpressionRef store = nullptr;
  std::vector<BinaryenExpressionRef> loads;
  BinaryenType type = BinaryenTypeNone();
  BinaryenIndex carriedLocal = 0;
};

// Whether `loop` qualifies (see the file comment); fills `forwarding`.
bool analyseLoop(BinaryenExpressionRef loop, Forwarding& forwarding) {
  const char* label = BinaryenLoopGetName(loop);
  BinaryenExpressionRef body = BinaryenLoopGetBody(loop);
  if (!label || BinaryenExpressionGetId(body) != BinaryenBlockId()) return false;
  BinaryenIndex count = BinaryenBlockGetNumChildren(body);
  if (count < 2) return false;
  // The block's own label could only be reached by a br, and there is none.
  BinaryenExpressionRef backEdge = BinaryenBlockGetChildAt(body, count - 1);
  if (BinaryenExpressionGetId(backEdge) != BinaryenBreakId() ||
      !BinaryenBreakGetCondition(backEdge) || BinaryenBreakGetValue(backEdge) ||
      std::string(BinaryenBreakGetName(backEdge)) != label)
    return false;

  LoopBodyFacts facts;
  for (BinaryenIndex i = 0; i < count; ++i) {
    BinaryenExpressionRef statement =
        i + 1 == count ? BinaryenBreakGetCondition(backEdge) : BinaryenBlockGetChildAt(body, i);
    if (!collectStraightLine(statement, i, facts)) return false;
  }
  if (facts.storeCount != 1) return false;
  BinaryenExpressionRef store = facts.store;
  BinaryenType type = BinaryenStoreGetValueType(store);
  LocalPlusConstant stored;
  if (!isFullWidth(BinaryenStoreGetBytes(store), type) ||
      !matchLocalPlusConstant(BinaryenStoreGetPtr(store), stored))
    return false;

  // $a is set exactly once, by a top-level `local.set $a ($a + d)` after S.
  BinaryenExpressionRef step = nullptr;
  size_t stepStatement = 0;
  for (size_t i = 0; i < facts.localSets.size(); ++i) {
    if (BinaryenLocalSetGetIndex(facts.localSets[i]) != stored.local) continue;
    if (step) return false;
    step = facts.localSets[i];
    stepStatement = facts.localSetStatement[i];
  }
  LocalPlusConstant stepped;
  if (!step || BinaryenLocalSetIsTee(step) ||
      BinaryenBlockGetChildAt(body, BinaryenIndex(stepStatement)) != step ||
      stepStatement <= facts.storeStatement ||
      !matchLocalPlusConstant(BinaryenLocalSetGetValue(step), stepped) ||
      stepped.local != stored.local)
    return false;
  const uint32_t delta = stepped.constant;

  // The loads before S that read, one iteration on, the word S wrote.
  for (size_t i = 0; i < facts.loads.size(); ++i) {
    BinaryenExpressionRef load = facts.loads[i];
    LocalPlusConstant loaded;
    if (facts.loadStatement[i] > facts.storeStatement) break;
    if (BinaryenExpressionGetType(load) != type ||
        BinaryenLoadGetBytes(load) != BinaryenStoreGetBytes(store) ||
        BinaryenLoadGetOffset(load) != BinaryenStoreGetOffset(store) ||
        !matchLocalPlusConstant(BinaryenLoadGetPtr(load), loaded) ||
        loaded.local != stored.local || uint32_t(delta + loaded.constant) != stored.constant)
      continue;
    forwarding.loads.push_back(load);
  }
  if (forwarding.loads.empty()) return false;
  forwarding.loop = loop;
  forwarding.store = store;
  forwarding.type = type;
  return true;
}

class LoopCarriedStoreForwarder {
 public:
  explicit LoopCarriedStoreForwarder(BinaryenModuleRef wasm) : wasm_(wasm) {}

  // Rewrites every qualifying loop of `function`; recreates it when any did.
  bool forwardInFunction(BinaryenFunctionRef function, std::string& error) {
    forwardings_.clear();
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    if (!findLoops(body, error)) return false;
    if (forwardings_.empty()) return true;

    const BinaryenIndex firstNewLocal = BinaryenFunctionGetNumLocals(function);
    for (size_t i = 0; i < forwardings_.size(); ++i)
      forwardings_[i].carriedLocal = firstNewLocal + BinaryenIndex(i);
    BinaryenExpressionRef rewritten = rewrite(body, error);
    if (!rewritten) return false;
    recreateWithLocals(function, rewritten);
    return true;
  }

 private:
  bool findLoops(BinaryenExpressionRef expr, std::string& error) {
    if (BinaryenExpressionGetId(expr) == BinaryenLoopId()) {
      Forwarding forwarding;
      if (analyseLoop(expr, forwarding)) {
        forwardings_.push_back(forwarding);
        return true;  // a qualifying loop holds no nested loop
      }
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) { return findLoops(child, error); },
                         error);
  }

  const Forwarding* forwardingOfLoop(BinaryenExpressionRef loop) const {
    for (const Forwarding& forwarding : forwardings_)
      if (forwarding.loop == loop) return &forwarding;
    return nullptr;
  }

  // Rewrites the qualifying loops under `expr`. A loop in a block gets its
  // first load as the statement before it; anywhere else, a block of the two
  // takes the loop's place.
  BinaryenExpressionRef rewrite(BinaryenExpressionRef expr, std::string& error) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenLoopId()) {
      if (const Forwarding* forwarding = forwardingOfLoop(expr)) {
        BinaryenExpressionRef sequence[] = {forwardLoop(expr, *forwarding, error), expr};
        if (!sequence[0]) return nullptr;
        return BinaryenBlock(wasm_, nullptr, sequence, 2, BinaryenExpressionGetType(expr));
      }
    }
    if (id != BinaryenBlockId()) {
      if (!rewriteChildren(expr, [&](BinaryenExpressionRef child) { return rewrite(child, error); },
                           error))
        return nullptr;
      return expr;
    }
    for (BinaryenIndex i = 0; i < BinaryenBlockGetNumChildren(expr); ++i) {
      BinaryenExpressionRef child = BinaryenBlockGetChildAt(expr, i);
      const Forwarding* forwarding =
          BinaryenExpressionGetId(child) == BinaryenLoopId() ? forwardingOfLoop(child) : nullptr;
      if (forwarding) {
        BinaryenExpressionRef preload = forwardLoop(child, *forwarding, error);
        if (!preload) return nullptr;
        BinaryenBlockInsertChildAt(expr, i++, preload);
        continue;
      }
      BinaryenExpressionRef rewritten = rewrite(child, error);
      if (!rewritten) return nullptr;
      if (rewritten != child) BinaryenBlockSetChildAt(expr, i, rewritten);
    }
    return expr;
  }

  // Rewrites the inside of a qualifying loop; returns the statement that
  // loads iteration one's value, to run before it.
  BinaryenExpressionRef forwardLoop(BinaryenExpressionRef loop, const Forwarding& forwarding,
                                    std::string& error) {
    // Copied before the load is replaced; it reads $a as the loop finds it.
    BinaryenExpressionRef firstLoad = BinaryenExpressionCopy(forwarding.loads.front(), wasm_);
    if (!rewriteChildren(
            loop,
            [&](BinaryenExpressionRef child) { return forwardInLoop(child, forwarding, error); },
            error))
      return nullptr;
    BinaryenStoreSetValue(forwarding.store,
                          BinaryenLocalTee(wasm_, forwarding.carriedLocal,
                                           BinaryenStoreGetValue(forwarding.store),
                                           forwarding.type));
    return BinaryenLocalSet(wasm_, forwarding.carriedLocal, firstLoad);
  }

  // Replaces the forwarded loads inside a qualifying loop by the local.
  BinaryenExpressionRef forwardInLoop(BinaryenExpressionRef expr, const Forwarding& forwarding,
                                      std::string& error) {
    for (BinaryenExpressionRef load : forwarding.loads)
      if (expr == load) return BinaryenLocalGet(wasm_, forwarding.carriedLocal, forwarding.type);
    if (!rewriteChildren(
            expr,
            [&](BinaryenExpressionRef child) { return forwardInLoop(child, forwarding, error); },
            error))
      return nullptr;
    return expr;
  }

  void recreateWithLocals(BinaryenFunctionRef function, BinaryenExpressionRef body) {
    const std::string name = BinaryenFunctionGetName(function);
    const BinaryenType params = BinaryenFunctionGetParams(function);
    const BinaryenType results = BinaryenFunctionGetResults(function);
    const BinaryenIndex localCount = BinaryenFunctionGetNumLocals(function);
    std::vector<BinaryenType> vars;
    for (BinaryenIndex v = 0, n = BinaryenFunctionGetNumVars(function); v < n; ++v)
      vars.push_back(BinaryenFunctionGetVar(function, v));
    for (const Forwarding& forwarding : forwardings_) vars.push_back(forwarding.type);
    std::vector<std::pair<BinaryenIndex, std::string>> localNames;
    for (BinaryenIndex i = 0; i < localCount; ++i)
      if (BinaryenFunctionHasLocalName(function, i))
        localNames.emplace_back(i, BinaryenFunctionGetLocalName(function, i));

    BinaryenRemoveFunction(wasm_, name.c_str());
    BinaryenFunctionRef recreated = BinaryenAddFunction(
        wasm_, name.c_str(), params, results, vars.data(), BinaryenIndex(vars.size()), body);
    for (const auto& [index, localName] : localNames)
      BinaryenFunctionSetLocalName(recreated, index, localName.c_str());
    for (const Forwarding& forwarding : forwardings_)
      BinaryenFunctionSetLocalName(
          recreated, forwarding.carriedLocal,
          ("forwarded." + std::to_string(forwarding.carriedLocal - localCount)).c_str());
  }

  BinaryenModuleRef wasm_;
  std::vector<Forwarding> forwardings_;
};

class ForwardLoopCarriedStoresPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    BinaryenModuleRef wasm = module.binaryen;
    // By name: recreating a function moves it to the end of the list.
    std::vector<std::string> definedFunctions;
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(wasm); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(wasm, i);
      if (BinaryenFunctionGetBody(function))
        definedFunctions.push_back(BinaryenFunctionGetName(function));
    }
    LoopCarriedStoreForwarder forwarder(wasm);
    for (const std::string& name : definedFunctions) {
      if (!forwarder.forwardInFunction(BinaryenGetFunction(wasm, name.c_str()), error)) {
        error = "in function " + name + ": " + error;
        return false;
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createForwardLoopCarriedStoresPass() {
  return std::make_unique<ForwardLoopCarriedStoresPass>();
}

}  // namespace synergy::passes
