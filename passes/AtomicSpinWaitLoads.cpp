//===- AtomicSpinWaitLoads.cpp - a loop waiting on memory reloads it -------===//
//
// Code older than C11 waits for another thread by spinning on a volatile
// flag: MPICH's threads/pt2pt/threaded_sr runs `while (sendok == -1) ;` on a
// `static volatile int`. Wasm has no volatile access, so the loop reaches the
// AOT compile as a plain load in a loop that writes nothing, and clang
// hoists the load: the loop never ends once the flag was unset on entry.
//
// Making every volatile access atomic (clang's -fms-volatile) fixed that but
// changed far more: every volatile access of a threaded build became a
// runtime call, so traps and time limits in them were reported in
// "<host function>", and under --dsm each volatile store synchronised the
// replicas as a lock would. This pass changes only the loads of spin waits,
// found in the wasm itself:
//
// A loop qualifies when nothing in it can write memory or leave the module:
// no store, atomic read-modify-write, wait or notify, bulk memory operation
// or memory.grow (only blocks, branches, locals, globals, loads, constants
// and arithmetic), and no call but of the module's own functions that are so
// too and set no global, followed at most kMaxCallDepth calls deep from a
// function not yet proved so (MPICH's harness yields with a function that
// returns 0; the AOT compile inlines it and hoists all the same). In such a
// loop, a load whose address is loop invariant (built from constants,
// locals and globals the loop does not set) and whose value decides a
// branch (it is in the condition of a br_if, if or br_table, or in the
// value of a local such a condition reads) can only change through another
// thread; clang would have hoisted it out of the loop unless it is
// volatile, built at -O0 or only conditionally run. It becomes an atomic
// load of the
// same width and offset (a signed narrow load an unsigned one, sign-extended
// after), which the lower-atomics pass then turns into a runtime call the AOT
// compiler cannot hoist. Loads that are not aligned to their width, and
// float loads, are left alone: wasm has no unaligned or float atomic load.
//
// Threaded modules only (a shared memory): without threads nothing else can
// change the word. A loop that stores, such as `for (;;) counter++` on a
// volatile counter, is left alone, as is a volatile store anywhere.
//
//===----------------------------------------------------------------------===//
#include <map>
#include <set>
#include <string>
#include <vector>

#include "passes/ExpressionChildren.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

// How deep calls are followed to find that a loop's callees have no effect;
// deeper ones count as having one (the module may be hostile, and a chain of
// calls must not exhaust the stack).
constexpr int kMaxCallDepth = 8;

// What a loop's subtree reads in its branch conditions and sets.
struct LoopScan {
  bool writesOrLeaves = false;
  std::set<BinaryenIndex> localsSet;
  std::set<std::string> globalsSet;
  std::vector<BinaryenExpressionRef> conditions;
  // local.set/tee nodes, to find the values of locals the conditions read.
  std::vector<BinaryenExpressionRef> localSets;
};

bool isAllowedInSpinLoop(BinaryenExpressionId id) {
  return id == BinaryenBlockId() || id == BinaryenIfId() || id == BinaryenLoopId() ||
         id == BinaryenBreakId() || id == BinaryenSwitchId() || id == BinaryenLocalGetId() ||
         id == BinaryenLocalSetId() || id == BinaryenGlobalGetId() || id == BinaryenGlobalSetId() ||
         id == BinaryenLoadId() || id == BinaryenConstId() || id == BinaryenUnaryId() ||
         id == BinaryenBinaryId() || id == BinaryenSelectId() || id == BinaryenDropId() ||
         id == BinaryenNopId() || id == BinaryenUnreachableId() || id == BinaryenReturnId() ||
         id == BinaryenMemorySizeId();
}

class SpinWaitFinder {
 public:
  explicit SpinWaitFinder(BinaryenModuleRef wasm) : wasm_(wasm) {}

  // Adds to `marked` the spin-wait loads of every loop under `expr`.
  bool findIn(BinaryenExpressionRef expr, std::set<BinaryenExpressionRef>& marked,
              std::string& error) {
    if (BinaryenExpressionGetId(expr) == BinaryenLoopId()) {
      LoopScan scan;
      if (!scanLoop(expr, scan, error)) return false;
      if (!scan.writesOrLeaves) markWaitLoads(scan, marked);
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) {
      return findIn(child, marked, error);
    }, error);
  }

 private:
  bool scanLoop(BinaryenExpressionRef expr, LoopScan& scan, std::string& error) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    const bool allowed =
        id == BinaryenCallId() ? isEffectFree(BinaryenCallGetTarget(expr), 0, error)
                               : isAllowedInSpinLoop(id) &&
                                     !(id == BinaryenLoadId() && BinaryenLoadIsAtomic(expr));
    if (!allowed) {
      scan.writesOrLeaves = true;
      return true;
    }
    if (id == BinaryenLocalSetId()) {
      scan.localsSet.insert(BinaryenLocalSetGetIndex(expr));
      scan.localSets.push_back(expr);
    } else if (id == BinaryenGlobalSetId()) {
      scan.globalsSet.insert(BinaryenGlobalSetGetName(expr));
    } else if (id == BinaryenBreakId() && BinaryenBreakGetCondition(expr)) {
      scan.conditions.push_back(BinaryenBreakGetCondition(expr));
    } else if (id == BinaryenIfId()) {
      scan.conditions.push_back(BinaryenIfGetCondition(expr));
    } else if (id == BinaryenSwitchId()) {
      scan.conditions.push_back(BinaryenSwitchGetCondition(expr));
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) {
      if (scan.writesOrLeaves) return true;
      return scanLoop(child, scan, error);
    }, error);
  }

  // A defined function whose body writes no memory and no global, leaves
  // the module nowhere, and calls only such functions. A function that
  // (indirectly) calls itself is taken as not effect-free, and so is one
  // reached `depth` > kMaxCallDepth calls deep (not remembered: a shallower
  // call may still prove it).
  bool isEffectFree(const std::string& name, int depth, std::string& error) {
    auto known = effectFree_.find(name);
    if (known != effectFree_.end()) return known->second;
    if (depth > kMaxCallDepth) return false;
    effectFree_[name] = false;
    BinaryenFunctionRef function = BinaryenGetFunction(wasm_, name.c_str());
    BinaryenExpressionRef body = function ? BinaryenFunctionGetBody(function) : nullptr;
    bool free = body && hasNoEffects(body, depth, error);
    effectFree_[name] = free;
    return free;
  }

  bool hasNoEffects(BinaryenExpressionRef expr, int depth, std::string& error) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenCallId()) {
      if (!isEffectFree(BinaryenCallGetTarget(expr), depth + 1, error)) return false;
    } else if (!isAllowedInSpinLoop(id) || id == BinaryenGlobalSetId() ||
               (id == BinaryenLoadId() && BinaryenLoadIsAtomic(expr))) {
      return false;
    }
    bool free = true;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      free = hasNoEffects(child, depth, error);
      return free;
    }, error);
    return free;
  }

  static void markWaitLoads(const LoopScan& scan, std::set<BinaryenExpressionRef>& marked) {
    std::set<BinaryenIndex> conditionLocals;
    for (BinaryenExpressionRef condition : scan.conditions) {
      collectLocalReads(condition, conditionLocals);
      markInvariantLoads(condition, scan, marked);
    }
    for (BinaryenExpressionRef set : scan.localSets)
      if (conditionLocals.count(BinaryenLocalSetGetIndex(set)))
        markInvariantLoads(BinaryenLocalSetGetValue(set), scan, marked);
  }

  static void collectLocalReads(BinaryenExpressionRef expr, std::set<BinaryenIndex>& locals) {
    if (BinaryenExpressionGetId(expr) == BinaryenLocalGetId())
      locals.insert(BinaryenLocalGetGetIndex(expr));
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      collectLocalReads(child, locals);
      return true;
    }, ignored);
  }

  static void markInvariantLoads(BinaryenExpressionRef expr, const LoopScan& scan,
                                 std::set<BinaryenExpressionRef>& marked) {
    if (BinaryenExpressionGetId(expr) == BinaryenLoadId() && canBeAtomic(expr) &&
        isInvariant(BinaryenLoadGetPtr(expr), scan))
      marked.insert(expr);
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      markInvariantLoads(child, scan, marked);
      return true;
    }, ignored);
  }

  static bool canBeAtomic(BinaryenExpressionRef load) {
    BinaryenType type = BinaryenExpressionGetType(load);
    if (type != BinaryenTypeInt32() && type != BinaryenTypeInt64()) return false;
    uint32_t bytes = BinaryenLoadGetBytes(load);
    return BinaryenLoadGetAlign(load) == bytes;
  }

  // Constants, locals and globals the loop does not set, and pure arithmetic
  // of them.
  static bool isInvariant(BinaryenExpressionRef expr, const LoopScan& scan) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenConstId()) return true;
    if (id == BinaryenLocalGetId()) return !scan.localsSet.count(BinaryenLocalGetGetIndex(expr));
    if (id == BinaryenGlobalGetId()) return !scan.globalsSet.count(BinaryenGlobalGetGetName(expr));
    if (id == BinaryenUnaryId()) return isInvariant(BinaryenUnaryGetValue(expr), scan);
    if (id == BinaryenBinaryId())
      return isInvariant(BinaryenBinaryGetLeft(expr), scan) &&
             isInvariant(BinaryenBinaryGetRight(expr), scan);
    return false;
  }

  BinaryenModuleRef wasm_;
  std::map<std::string, bool> effectFree_;
};

class AtomicLoadMaker {
 public:
  AtomicLoadMaker(BinaryenModuleRef wasm, const std::set<BinaryenExpressionRef>& marked)
      : wasm_(wasm), marked_(marked) {}

  BinaryenExpressionRef apply(BinaryenExpressionRef expr, std::string& error) {
    if (!rewriteChildren(expr, [&](BinaryenExpressionRef child) { return apply(child, error); },
                         error))
      return nullptr;
    if (!marked_.count(expr)) return expr;
    const bool extendsSign = BinaryenLoadIsSigned(expr);
    BinaryenType type = BinaryenExpressionGetType(expr);
    uint32_t bytes = BinaryenLoadGetBytes(expr);
    BinaryenLoadSetAtomic(expr, true);
    BinaryenLoadSetSigned(expr, false);
    if (!extendsSign || bytes == (type == BinaryenTypeInt64() ? 8u : 4u)) return expr;
    BinaryenOp extend;
    if (type == BinaryenTypeInt32())
      extend = bytes == 1 ? BinaryenExtendS8Int32() : BinaryenExtendS16Int32();
    else
      extend = bytes == 1   ? BinaryenExtendS8Int64()
               : bytes == 2 ? BinaryenExtendS16Int64()
                            : BinaryenExtendS32Int64();
    return BinaryenUnary(wasm_, extend, expr);
  }

 private:
  BinaryenModuleRef wasm_;
  const std::set<BinaryenExpressionRef>& marked_;
};

class AtomicSpinWaitLoadsPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    if (!module.facts.memory.shared) return true;
    SpinWaitFinder finder(module.binaryen);
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(module.binaryen); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module.binaryen, i);
      BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
      if (!body) continue;
      std::set<BinaryenExpressionRef> marked;
      if (!finder.findIn(body, marked, error)) return false;
      if (marked.empty()) continue;
      AtomicLoadMaker maker(module.binaryen, marked);
      BinaryenExpressionRef rewritten = maker.apply(body, error);
      if (!rewritten) {
        error = "in function " + std::string(BinaryenFunctionGetName(function)) + ": " + error;
        return false;
      }
      if (rewritten != body) BinaryenFunctionSetBody(function, rewritten);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createAtomicSpinWaitLoadsPass() {
  return std::make_unique<AtomicSpinWaitLoadsPass>();
}

}  // namespace synergy::passes
