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
// A loop qualifies when nothing in it can leave the module or write memory
// but plain stores: no atomic access, wait or notify, bulk memory operation
// or memory.grow (only blocks, branches, locals, globals, loads, stores,
// constants and arithmetic), and no call but of the module's own functions
// that store nothing and set no global, followed at most kMaxCallDepth calls
// deep from a function not yet proved so (MPICH's harness yields with a
// function that returns 0; the AOT compile inlines it and hoists all the
// same). In such a loop, a load whose address is loop invariant (built from
// constants, locals and globals the loop does not set) and whose value
// decides a branch (it is in the condition of a br_if, if or br_table, or in
// the value of a local such a condition reads) can only change through
// another thread, provided no store of the loop can write any of its bytes;
// clang would have hoisted it out of the loop unless it is volatile, built
// at -O0 or only conditionally run. It becomes an atomic load of the same
// width and offset (a signed narrow load an unsigned one, sign-extended
// after), which the lower-atomics pass then turns into a runtime call the
// AOT compiler cannot hoist. Loads that are not aligned to their width, and
// float loads, are left alone: wasm has no unaligned or float atomic load.
//
// Stores: `while (!flag) spins++;` on a volatile counter (or any counter at
// -O0) stores in every iteration, and the AOT compile, which sees both
// addresses as constants from one memory base, hoists the flag's load all
// the same and spins forever; so does a store to another field of the
// flag's struct, or to an element of a small array the index of which is
// masked. A store counts as unable to reach the load when both addresses
// are the same invariant expression plus different constants, with the
// bytes apart modulo 2^32 (a non-trapping access never wraps past the end
// of a 32-bit memory), or when the ranges of bytes the two can touch,
// bounded from constants, masks, shifts, small sums and the values every
// local.set of a local gives it (and its initial value, unless the read
// comes after a set in the same block), do not overlap. A local that can
// hold one value only counts as invariant, and a condition's locals are
// followed through the locals their values read: -O0 code sets a local to
// the flag's address and passes the loaded value through several locals in
// every iteration. A parameter holds what the direct calls pass, unless
// the function is exported or in a table, or named by ref.func: a loop
// that waits on one pointer parameter and stores through another hangs once
// the AOT compile inlines it into a caller that passes two constant
// addresses. Any other store counts as one that may write the flag. Calls
// that store were tried and do not hang (test/lit/run/spin-wait-stores.c):
// an import and a runtime call are opaque to clang, and an inlined callee
// of the module reloads the memory base after its store, which clang
// cannot tell apart from the caller's, so those loops are still left alone.
//
// Threaded modules only (a shared memory): without threads nothing else can
// change the word. A volatile store stays a plain store anywhere.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// How deep address expressions and the local.sets behind them are followed
// when bounding an address; deeper ones may hold any value.
constexpr int kMaxAddressDepth = 16;
// How many expressions bounding one address may look at.
constexpr int kAddressBudget = 256;
// How many of a local's statement sets have their later reads looked for,
// and how many expressions a function's search may visit in all.
constexpr int kMaxSetsTried = 4;
constexpr long kSearchBudget = 1 << 20;

// What a loop's subtree reads in its branch conditions and sets.
struct LoopScan {
  bool writesOrLeaves = false;
  std::set<BinaryenIndex> localsSet;
  std::set<std::string> globalsSet;
  std::vector<BinaryenExpressionRef> conditions;
  // local.set/tee nodes, to find the values of locals the conditions read.
  std::vector<BinaryenExpressionRef> localSets;
  // Plain (not atomic) stores, which a wait load must be proved apart from.
  std::vector<BinaryenExpressionRef> stores;
};

// The bytes an access at `ptr` + `offset` of `bytes` bytes touches.
struct MemoryAccess {
  BinaryenExpressionRef ptr;
  uint32_t offset;
  uint32_t bytes;
};

// Unsigned bounds of an i32 value, both inclusive.
struct ValueRange {
  uint64_t low = 0;
  uint64_t high = UINT32_MAX;
  static ValueRange exactly(uint64_t value) { return {value, value}; }
  static ValueRange any() { return {}; }
  ValueRange unionWith(const ValueRange& other) const {
    return {std::min(low, other.low), std::max(high, other.high)};
  }
};

class AccessSeparation;

// The direct calls of each of the module's functions, for the values its
// parameters can take: a function only these calls reach gets in each
// parameter one of the values its callers pass. One that is exported, in a
// table or named by ref.func may be called with anything.
class CallSites {
 public:
  using Call = std::pair<BinaryenFunctionRef, BinaryenExpressionRef>;  // caller, call

  explicit CallSites(BinaryenModuleRef wasm) {
    for (BinaryenIndex i = 0, n = BinaryenGetNumExports(wasm); i < n; ++i) {
      BinaryenExportRef entry = BinaryenGetExportByIndex(wasm, i);
      if (BinaryenExportGetKind(entry) == BinaryenExternalFunction())
        reachedOtherwise_.insert(BinaryenExportGetValue(entry));
    }
    for (BinaryenIndex i = 0, n = BinaryenGetNumElementSegments(wasm); i < n; ++i) {
      BinaryenElementSegmentRef segment = BinaryenGetElementSegmentByIndex(wasm, i);
      for (BinaryenIndex j = 0, m = BinaryenElementSegmentGetLength(segment); j < m; ++j)
        reachedOtherwise_.insert(BinaryenElementSegmentGetData(segment, j));
    }
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(wasm); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(wasm, i);
      if (BinaryenExpressionRef body = BinaryenFunctionGetBody(function)) collect(function, body);
    }
  }

  // nullptr when the function may be called otherwise.
  const std::vector<Call>* callsOf(const std::string& name) const {
    if (reachedOtherwise_.count(name)) return nullptr;
    static const std::vector<Call> kNone;
    auto calls = calls_.find(name);
    return calls == calls_.end() ? &kNone : &calls->second;
  }

 private:
  void collect(BinaryenFunctionRef caller, BinaryenExpressionRef expr) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenCallId()) calls_[BinaryenCallGetTarget(expr)].push_back({caller, expr});
    if (id == BinaryenRefFuncId()) reachedOtherwise_.insert(BinaryenRefFuncGetFunc(expr));
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      collect(caller, child);
      return true;
    }, ignored);
  }

  std::set<std::string> reachedOtherwise_;
  std::map<std::string, std::vector<Call>> calls_;
};

// Proves two accesses of one function's memory touch no common byte. The
// ranges follow every local.set of a local in the function, whatever runs
// between them, so they hold at any point; the common-base rule needs the
// caller to know the base has one value at both accesses.
class AccessSeparation {
 public:
  using OfFunction = std::function<const AccessSeparation&(BinaryenFunctionRef)>;

  AccessSeparation(BinaryenFunctionRef function, const CallSites& calls, OfFunction ofFunction)
      : name_(BinaryenFunctionGetName(function)),
        params_(BinaryenTypeArity(BinaryenFunctionGetParams(function))),
        calls_(calls),
        ofFunction_(std::move(ofFunction)) {
    if (BinaryenExpressionRef body = BinaryenFunctionGetBody(function)) collectSets(body);
  }

  // `sharedBaseIsFixed` says whether an expression has one value wherever
  // it is evaluated while both accesses may run; two such reads of the
  // same locals and globals (a local's one value being the union of its
  // sets, and perhaps its initial value) have the same one.
  bool apart(const MemoryAccess& a, const MemoryAccess& b,
             const std::function<bool(BinaryenExpressionRef)>& sharedBaseIsFixed) const {
    if (BinaryenExpressionGetType(a.ptr) != BinaryenTypeInt32() ||
        BinaryenExpressionGetType(b.ptr) != BinaryenTypeInt32())
      return false;
    uint32_t aPlus = a.offset, bPlus = b.offset;
    BinaryenExpressionRef aBase = peelConstants(a.ptr, aPlus);
    BinaryenExpressionRef bBase = peelConstants(b.ptr, bPlus);
    if (aBase && bBase && sameValue(aBase, bBase, 0) && sharedBaseIsFixed(aBase) &&
        sharedBaseIsFixed(bBase)) {
      // Non-trapping accesses lie below 2^32 and sit at base + plus modulo
      // 2^32, so their distance modulo 2^32 is that of the constants.
      return uint32_t(bPlus - aPlus) >= a.bytes && uint32_t(aPlus - bPlus) >= b.bytes;
    }
    int budget = kAddressBudget;
    ValueRange aRange = rangeOf(a.ptr, 0, budget);
    budget = kAddressBudget;
    ValueRange bRange = rangeOf(b.ptr, 0, budget);
    uint64_t aEnd = aRange.high + a.offset + a.bytes, bEnd = bRange.high + b.offset + b.bytes;
    return aEnd <= bRange.low + b.offset || bEnd <= aRange.low + a.offset;
  }

  // Whether every evaluation of `read`, a local.get, gives the same value.
  bool hasOneValue(BinaryenExpressionRef read) const {
    int budget = kAddressBudget;
    ValueRange range = rangeOf(read, 0, budget);
    return range.low == range.high;
  }

 private:
  void collectSets(BinaryenExpressionRef expr) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenLocalSetId()) {
      sets_[BinaryenLocalSetGetIndex(expr)].push_back(BinaryenLocalSetGetValue(expr));
    } else if (id == BinaryenBlockId()) {
      for (BinaryenIndex i = 0, n = BinaryenBlockGetNumChildren(expr); i < n; ++i) {
        BinaryenExpressionRef child = BinaryenBlockGetChildAt(expr, i);
        if (BinaryenExpressionGetId(child) == BinaryenLocalSetId() &&
            !BinaryenLocalSetIsTee(child))
          statementSets_[BinaryenLocalSetGetIndex(child)].push_back({expr, i});
      }
    }
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      collectSets(child);
      return true;
    }, ignored);
  }

  // Notes the reads of local `index` that cannot see its initial value:
  // those in later statements of a block one of whose statements sets it.
  // Control enters a block only at its start, so a later statement runs
  // only after the set did, in the same entry.
  void findReadsAfterSets(BinaryenIndex index) const {
    if (!localsSearched_.insert(index).second) return;
    auto candidates = statementSets_.find(index);
    if (candidates == statementSets_.end()) return;
    int tried = 0;
    for (auto [block, position] : candidates->second) {
      if (++tried > kMaxSetsTried) break;
      for (BinaryenIndex i = position + 1, n = BinaryenBlockGetNumChildren(block); i < n; ++i)
        noteReads(BinaryenBlockGetChildAt(block, i), index);
    }
  }

  void noteReads(BinaryenExpressionRef expr, BinaryenIndex index) const {
    if (--searchBudget_ < 0) return;
    if (BinaryenExpressionGetId(expr) == BinaryenLocalGetId() &&
        BinaryenLocalGetGetIndex(expr) == index)
      readsAfterSets_.insert(expr);
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      noteReads(child, index);
      return searchBudget_ >= 0;
    }, ignored);
  }

  // Strips `+ constant` (and `- constant`) off `ptr`, adding the constants
  // to `plus` modulo 2^32; returns the rest, or nullptr if it is a constant.
  static BinaryenExpressionRef peelConstants(BinaryenExpressionRef ptr, uint32_t& plus) {
    for (int depth = 0; depth < kMaxAddressDepth; ++depth) {
      BinaryenExpressionId id = BinaryenExpressionGetId(ptr);
      if (id == BinaryenConstId()) {
        plus += uint32_t(BinaryenConstGetValueI32(ptr));
        return nullptr;
      }
      if (id != BinaryenBinaryId()) return ptr;
      BinaryenOp op = BinaryenBinaryGetOp(ptr);
      BinaryenExpressionRef left = BinaryenBinaryGetLeft(ptr), right = BinaryenBinaryGetRight(ptr);
      if (op == BinaryenAddInt32() && BinaryenExpressionGetId(left) == BinaryenConstId()) {
        plus += uint32_t(BinaryenConstGetValueI32(left));
        ptr = right;
      } else if ((op == BinaryenAddInt32() || op == BinaryenSubInt32()) &&
                 BinaryenExpressionGetId(right) == BinaryenConstId()) {
        uint32_t value = uint32_t(BinaryenConstGetValueI32(right));
        plus += op == BinaryenAddInt32() ? value : 0u - value;
        ptr = left;
      } else {
        return ptr;
      }
    }
    return ptr;
  }

  // Structurally equal reads of locals and globals, constants and
  // arithmetic: equal values when evaluated with the same locals and globals.
  static bool sameValue(BinaryenExpressionRef a, BinaryenExpressionRef b, int depth) {
    BinaryenExpressionId id = BinaryenExpressionGetId(a);
    if (depth > kMaxAddressDepth || id != BinaryenExpressionGetId(b) ||
        BinaryenExpressionGetType(a) != BinaryenExpressionGetType(b))
      return false;
    if (id == BinaryenConstId())
      return BinaryenExpressionGetType(a) == BinaryenTypeInt32() &&
             BinaryenConstGetValueI32(a) == BinaryenConstGetValueI32(b);
    if (id == BinaryenLocalGetId())
      return BinaryenLocalGetGetIndex(a) == BinaryenLocalGetGetIndex(b);
    if (id == BinaryenGlobalGetId())
      return std::string(BinaryenGlobalGetGetName(a)) == BinaryenGlobalGetGetName(b);
    if (id == BinaryenUnaryId())
      return BinaryenUnaryGetOp(a) == BinaryenUnaryGetOp(b) &&
             sameValue(BinaryenUnaryGetValue(a), BinaryenUnaryGetValue(b), depth + 1);
    if (id == BinaryenBinaryId())
      return BinaryenBinaryGetOp(a) == BinaryenBinaryGetOp(b) &&
             sameValue(BinaryenBinaryGetLeft(a), BinaryenBinaryGetLeft(b), depth + 1) &&
             sameValue(BinaryenBinaryGetRight(a), BinaryenBinaryGetRight(b), depth + 1);
    return false;
  }

  // `budget` bounds the expressions looked at in one query: a hostile
  // function may give a local many sets, each reading more locals.
  ValueRange rangeOf(BinaryenExpressionRef expr, int depth, int& budget) const {
    if (depth > kMaxAddressDepth || --budget < 0 ||
        BinaryenExpressionGetType(expr) != BinaryenTypeInt32())
      return ValueRange::any();
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenConstId())
      return ValueRange::exactly(uint32_t(BinaryenConstGetValueI32(expr)));
    if (id == BinaryenLocalGetId()) return rangeOfRead(expr, depth, budget);
    if (id == BinaryenLocalSetId())  // a tee
      return rangeOf(BinaryenLocalSetGetValue(expr), depth + 1, budget);
    if (id == BinaryenLoadId() && !BinaryenLoadIsSigned(expr) && BinaryenLoadGetBytes(expr) < 4)
      return {0, (uint64_t(1) << (8 * BinaryenLoadGetBytes(expr))) - 1};
    if (id == BinaryenSelectId())
      return rangeOf(BinaryenSelectGetIfTrue(expr), depth + 1, budget)
          .unionWith(rangeOf(BinaryenSelectGetIfFalse(expr), depth + 1, budget));
    if (id == BinaryenBinaryId()) return rangeOfBinary(expr, depth, budget);
    return ValueRange::any();
  }

  ValueRange rangeOfBinary(BinaryenExpressionRef expr, int depth, int& budget) const {
    BinaryenOp op = BinaryenBinaryGetOp(expr);
    ValueRange left = rangeOf(BinaryenBinaryGetLeft(expr), depth + 1, budget);
    ValueRange right = rangeOf(BinaryenBinaryGetRight(expr), depth + 1, budget);
    // Results that fit in 32 bits did not wrap.
    auto fitting = [](uint64_t low, uint64_t high) {
      return high <= UINT32_MAX ? ValueRange{low, high} : ValueRange::any();
    };
    if (op == BinaryenAddInt32()) return fitting(left.low + right.low, left.high + right.high);
    if (op == BinaryenSubInt32() && left.low >= right.high)
      return {left.low - right.high, left.high - right.low};
    if (op == BinaryenMulInt32() && left.high <= UINT32_MAX && right.high <= UINT32_MAX)
      return fitting(left.low * right.low, left.high * right.high);
    if (op == BinaryenAndInt32()) return {0, std::min(left.high, right.high)};
    if (op == BinaryenRemUInt32() && right.low > 0) return {0, std::min(left.high, right.high - 1)};
    if (op == BinaryenShrUInt32() && right.low == right.high)
      return {left.low >> (right.low & 31), left.high >> (right.low & 31)};
    if (op == BinaryenShlInt32() && right.low == right.high)
      return fitting(left.low << (right.low & 31), left.high << (right.low & 31));
    return ValueRange::any();
  }

  // Every value a read of a local can give: the local's initial value (any
  // for a parameter, zero for a variable) unless the read follows a set, or
  // one a local.set gives it.
  ValueRange rangeOfRead(BinaryenExpressionRef read, int depth, int& budget) const {
    BinaryenIndex index = BinaryenLocalGetGetIndex(read);
    findReadsAfterSets(index);
    std::optional<ValueRange> range;
    if (!readsAfterSets_.count(read))
      range = index < params_ ? rangeOfArgument(index, depth, budget) : ValueRange::exactly(0);
    auto sets = sets_.find(index);
    if (sets != sets_.end())
      for (BinaryenExpressionRef value : sets->second) {
        ValueRange set = rangeOf(value, depth + 1, budget);
        range = range ? range->unionWith(set) : set;
        if (range->low == 0 && range->high == UINT32_MAX) break;
      }
    return range ? *range : ValueRange::any();
  }

  // Every value the callers pass as parameter `index`.
  ValueRange rangeOfArgument(BinaryenIndex index, int depth, int& budget) const {
    const std::vector<CallSites::Call>* calls = calls_.callsOf(name_);
    if (!calls || calls->empty()) return ValueRange::any();
    std::optional<ValueRange> range;
    for (auto [caller, call] : *calls) {
      if (index >= BinaryenCallGetNumOperands(call)) return ValueRange::any();
      ValueRange passed =
          ofFunction_(caller).rangeOf(BinaryenCallGetOperandAt(call, index), depth + 1, budget);
      range = range ? range->unionWith(passed) : passed;
      if (range->low == 0 && range->high == UINT32_MAX) break;
    }
    return *range;
  }

  std::string name_;
  BinaryenIndex params_;
  const CallSites& calls_;
  OfFunction ofFunction_;
  std::map<BinaryenIndex, std::vector<BinaryenExpressionRef>> sets_;
  // Sets that are statements of a block: the block and their position.
  std::map<BinaryenIndex, std::vector<std::pair<BinaryenExpressionRef, BinaryenIndex>>>
      statementSets_;
  mutable std::set<BinaryenIndex> localsSearched_;
  mutable std::set<BinaryenExpressionRef> readsAfterSets_;
  // Expressions findReadsAfterSets may still visit in this function.
  mutable long searchBudget_ = kSearchBudget;
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

  // Adds to `marked` the spin-wait loads of every loop under `expr`, a part
  // of the function `separation` was made for.
  bool findIn(BinaryenExpressionRef expr, const AccessSeparation& separation,
              std::set<BinaryenExpressionRef>& marked, std::string& error) {
    if (BinaryenExpressionGetId(expr) == BinaryenLoopId()) {
      LoopScan scan;
      if (!scanLoop(expr, scan, error)) return false;
      if (!scan.writesOrLeaves) markWaitLoads(scan, separation, marked);
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) {
      return findIn(child, separation, marked, error);
    }, error);
  }

 private:
  bool scanLoop(BinaryenExpressionRef expr, LoopScan& scan, std::string& error) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    const bool allowed =
        id == BinaryenCallId()    ? isEffectFree(BinaryenCallGetTarget(expr), 0, error)
        : id == BinaryenStoreId() ? !BinaryenStoreIsAtomic(expr)
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
    } else if (id == BinaryenStoreId()) {
      scan.stores.push_back(expr);
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

  static void markWaitLoads(const LoopScan& scan, const AccessSeparation& separation,
                            std::set<BinaryenExpressionRef>& marked) {
    std::set<BinaryenIndex> conditionLocals;
    for (BinaryenExpressionRef condition : scan.conditions) {
      collectLocalReads(condition, conditionLocals);
      markInvariantLoads(condition, scan, separation, marked);
    }
    // The locals the conditions read, and those their values read in turn
    // (-O0 code passes every value through a local of its own).
    std::set<BinaryenExpressionRef> followed;
    for (size_t before = 0; before != conditionLocals.size() + followed.size();) {
      before = conditionLocals.size() + followed.size();
      for (BinaryenExpressionRef set : scan.localSets)
        if (conditionLocals.count(BinaryenLocalSetGetIndex(set)) && followed.insert(set).second) {
          collectLocalReads(BinaryenLocalSetGetValue(set), conditionLocals);
          markInvariantLoads(BinaryenLocalSetGetValue(set), scan, separation, marked);
        }
    }
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
                                 const AccessSeparation& separation,
                                 std::set<BinaryenExpressionRef>& marked) {
    if (BinaryenExpressionGetId(expr) == BinaryenLoadId() && canBeAtomic(expr) &&
        isInvariant(BinaryenLoadGetPtr(expr), scan, separation) &&
        apartFromStores(expr, scan, separation))
      marked.insert(expr);
    std::string ignored;
    visitChildren(expr, [&](BinaryenExpressionRef child) {
      markInvariantLoads(child, scan, separation, marked);
      return true;
    }, ignored);
  }

  // No store of the loop can write a byte of `load`. A common base must be
  // invariant in both: a read of a local the loop sets to one value before
  // the load may still see its initial value in a store above the set.
  static bool apartFromStores(BinaryenExpressionRef load, const LoopScan& scan,
                              const AccessSeparation& separation) {
    const MemoryAccess read{BinaryenLoadGetPtr(load), BinaryenLoadGetOffset(load),
                            BinaryenLoadGetBytes(load)};
    auto isFixed = [&](BinaryenExpressionRef base) {
      return isInvariant(base, scan, separation);
    };
    for (BinaryenExpressionRef store : scan.stores) {
      const MemoryAccess write{BinaryenStoreGetPtr(store), BinaryenStoreGetOffset(store),
                               BinaryenStoreGetBytes(store)};
      if (!separation.apart(read, write, isFixed)) return false;
    }
    return true;
  }

  static bool canBeAtomic(BinaryenExpressionRef load) {
    BinaryenType type = BinaryenExpressionGetType(load);
    if (type != BinaryenTypeInt32() && type != BinaryenTypeInt64()) return false;
    uint32_t bytes = BinaryenLoadGetBytes(load);
    return BinaryenLoadGetAlign(load) == bytes;
  }

  // Constants, locals and globals the loop does not set, reads of locals
  // that can hold one value only (-O0 code sets a local to the flag's
  // address in every iteration), and pure arithmetic of them.
  static bool isInvariant(BinaryenExpressionRef expr, const LoopScan& scan,
                          const AccessSeparation& separation) {
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    if (id == BinaryenConstId()) return true;
    if (id == BinaryenLocalGetId())
      return !scan.localsSet.count(BinaryenLocalGetGetIndex(expr)) || separation.hasOneValue(expr);
    if (id == BinaryenGlobalGetId()) return !scan.globalsSet.count(BinaryenGlobalGetGetName(expr));
    if (id == BinaryenUnaryId()) return isInvariant(BinaryenUnaryGetValue(expr), scan, separation);
    if (id == BinaryenBinaryId())
      return isInvariant(BinaryenBinaryGetLeft(expr), scan, separation) &&
             isInvariant(BinaryenBinaryGetRight(expr), scan, separation);
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
    CallSites calls(module.binaryen);
    std::map<BinaryenFunctionRef, std::unique_ptr<AccessSeparation>> separations;
    AccessSeparation::OfFunction separationOf =
        [&](BinaryenFunctionRef function) -> const AccessSeparation& {
      std::unique_ptr<AccessSeparation>& known = separations[function];
      if (!known) known = std::make_unique<AccessSeparation>(function, calls, separationOf);
      return *known;
    };
    // Every function's loads are found before any is rewritten: the ranges
    // read other functions' code, which must be the module as linked.
    std::vector<std::pair<BinaryenFunctionRef, std::set<BinaryenExpressionRef>>> toRewrite;
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(module.binaryen); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module.binaryen, i);
      BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
      if (!body) continue;
      std::set<BinaryenExpressionRef> marked;
      if (!finder.findIn(body, separationOf(function), marked, error)) return false;
      if (!marked.empty()) toRewrite.emplace_back(function, std::move(marked));
    }
    for (auto& [function, marked] : toRewrite) {
      BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
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
