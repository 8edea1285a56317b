//===- LowerAtomics.cpp - atomic instructions to runtime calls ------------===//
//
// wasm2c 1.0.32 refuses atomic instructions and shared memories. This pass
// replaces every atomic instruction with a call to an import from module
// "synergy", one import per operation, access width and value type, and then
// makes the memory non-shared. The runtime implements the imports with host
// atomics on the granule's memory (runtime/granule/AtomicHostFunctions.cpp),
// and granules that share a memory share its host mapping, so the atomicity
// the guest asked for is kept.
//
// TRANSFORMATIONS (A is the effective address, an i32; T is i32 or i64; N is
// the access width in bits, omitted when it is T's full width, and "_u"
// follows a narrow width, as in the wasm instruction names):
//   T.atomic.loadN[_u]          -> atomic_loadN[_u]_T(A) -> T
//   T.atomic.storeN             -> atomic_storeN_T(A, value)
//   T.atomic.rmwN.OP[_u]        -> atomic_rmwN_OP[_u]_T(A, value) -> T
//                                  (OP: add sub and or xor xchg)
//   T.atomic.rmwN.cmpxchg[_u]   -> atomic_cmpxchgN[_u]_T(A, expected, replacement) -> T
//   memory.atomic.wait32/64     -> atomic_wait32/64(A, expected, timeout) -> i32
//   memory.atomic.notify        -> atomic_notify(A, count) -> i32
//   atomic.fence                -> atomic_fence()
// The effective address is the pointer plus the memarg offset. When the
// offset is non-zero it is added by a small helper function that yields
// 0xffffffff on unsigned overflow, so an access wasm would trap on as out of
// bounds still traps in the host (the host checks bounds before alignment).
// An atomic instruction in unreachable code becomes its dropped operands.
//
// Requires: a wasm32 memory (memory64 is refused). Guarantees: no atomic
// instruction remains, the memory is not shared, the target_features section
// no longer declares threads, and the census does not
// count the new imports as control points (ControlPoints.cpp).
//
//===----------------------------------------------------------------------===//
#include "passes/ExpressionChildren.h"
#include "passes/Pass.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <sys/mman.h>
#include <vector>

namespace synergy::passes {

namespace {

constexpr const char* kRuntimeModule = "synergy";

struct ImportSignature {
  BinaryenType params;
  BinaryenType results;
};

class AtomicLowering {
 public:
  explicit AtomicLowering(BinaryenModuleRef wasm) : wasm_(wasm) {}

  bool lowerFunction(BinaryenFunctionRef function, std::string& error) {
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    BinaryenExpressionRef lowered = lower(body, error);
    if (!lowered) {
      error = "in function " + std::string(BinaryenFunctionGetName(function)) + ": " + error;
      return false;
    }
    if (lowered != body) BinaryenFunctionSetBody(function, lowered);
    return true;
  }

 private:
  BinaryenExpressionRef lower(BinaryenExpressionRef expr, std::string& error) {
    if (!rewriteChildren(expr, [&](BinaryenExpressionRef child) { return lower(child, error); },
                         error))
      return nullptr;
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    bool atomic = (id == BinaryenLoadId() && BinaryenLoadIsAtomic(expr)) ||
                  (id == BinaryenStoreId() && BinaryenStoreIsAtomic(expr)) ||
                  id == BinaryenAtomicRMWId() || id == BinaryenAtomicCmpxchgId() ||
                  id == BinaryenAtomicWaitId() || id == BinaryenAtomicNotifyId() ||
                  id == BinaryenAtomicFenceId();
    if (!atomic) return expr;
    if (BinaryenExpressionGetType(expr) == BinaryenTypeUnreachable()) return dropOperands(expr, error);

    BinaryenType i32 = BinaryenTypeInt32();
    BinaryenType i64 = BinaryenTypeInt64();
    BinaryenType none = BinaryenTypeNone();
    if (id == BinaryenLoadId()) {
      BinaryenType type = BinaryenExpressionGetType(expr);
      std::string name = "atomic_load" + width(BinaryenLoadGetBytes(expr), type, true) + "_" +
                         typeName(type);
      return call(name, {i32, type}, {address(BinaryenLoadGetPtr(expr), BinaryenLoadGetOffset(expr))});
    }
    if (id == BinaryenStoreId()) {
      BinaryenType type = BinaryenStoreGetValueType(expr);
      std::string name = "atomic_store" + width(BinaryenStoreGetBytes(expr), type, false) + "_" +
                         typeName(type);
      return call(name, {pair(i32, type), none},
                  {address(BinaryenStoreGetPtr(expr), BinaryenStoreGetOffset(expr)),
                   BinaryenStoreGetValue(expr)});
    }
    if (id == BinaryenAtomicRMWId()) {
      BinaryenType type = BinaryenExpressionGetType(expr);
      std::string name = "atomic_rmw" + bitsOnly(BinaryenAtomicRMWGetBytes(expr), type) + "_" +
                         rmwOpName(BinaryenAtomicRMWGetOp(expr)) +
                         unsignedSuffix(BinaryenAtomicRMWGetBytes(expr), type) + "_" +
                         typeName(type);
      return call(name, {pair(i32, type), type},
                  {address(BinaryenAtomicRMWGetPtr(expr), BinaryenAtomicRMWGetOffset(expr)),
                   BinaryenAtomicRMWGetValue(expr)});
    }
    if (id == BinaryenAtomicCmpxchgId()) {
      BinaryenType type = BinaryenExpressionGetType(expr);
      std::string name = "atomic_cmpxchg" + width(BinaryenAtomicCmpxchgGetBytes(expr), type, true) +
                         "_" + typeName(type);
      BinaryenType params[] = {i32, type, type};
      return call(name, {BinaryenTypeCreate(params, 3), type},
                  {address(BinaryenAtomicCmpxchgGetPtr(expr), BinaryenAtomicCmpxchgGetOffset(expr)),
                   BinaryenAtomicCmpxchgGetExpected(expr), BinaryenAtomicCmpxchgGetReplacement(expr)});
    }
    if (id == BinaryenAtomicWaitId()) {
      BinaryenType expected = BinaryenAtomicWaitGetExpectedType(expr);
      uint32_t offset = 0;
      if (!printedOffset(expr, offset, error)) return nullptr;
      BinaryenType params[] = {i32, expected, i64};
      return call(expected == i64 ? "atomic_wait64" : "atomic_wait32",
                  {BinaryenTypeCreate(params, 3), i32},
                  {address(BinaryenAtomicWaitGetPtr(expr), offset), BinaryenAtomicWaitGetExpected(expr),
                   BinaryenAtomicWaitGetTimeout(expr)});
    }
    if (id == BinaryenAtomicNotifyId()) {
      uint32_t offset = 0;
      if (!printedOffset(expr, offset, error)) return nullptr;
      return call("atomic_notify", {pair(i32, i32), i32},
                  {address(BinaryenAtomicNotifyGetPtr(expr), offset),
                   BinaryenAtomicNotifyGetNotifyCount(expr)});
    }
    return call("atomic_fence", {none, none}, {});
  }

  // Keeps the operands' side effects (and their unreachable type).
  BinaryenExpressionRef dropOperands(BinaryenExpressionRef expr, std::string& error) {
    std::vector<BinaryenExpressionRef> drops;
    if (!visitChildren(expr,
                       [&](BinaryenExpressionRef child) {
                         drops.push_back(BinaryenDrop(wasm_, child));
                         return true;
                       },
                       error))
      return nullptr;
    return BinaryenBlock(wasm_, nullptr, drops.data(), BinaryenIndex(drops.size()),
                         BinaryenTypeAuto());
  }

  BinaryenExpressionRef address(BinaryenExpressionRef pointer, uint32_t offset) {
    if (offset == 0) return pointer;
    BinaryenExpressionRef operands[] = {pointer, BinaryenConst(wasm_, BinaryenLiteralInt32(int32_t(offset)))};
    return BinaryenCall(wasm_, addressHelper(), operands, 2, BinaryenTypeInt32());
  }

  // (ptr, offset) -> ptr + offset, or 0xffffffff when that overflows.
  const char* addressHelper() {
    if (!addressHelperName_.empty()) return addressHelperName_.c_str();
    addressHelperName_ = unusedFunctionName("synergy.atomic_effective_address");
    BinaryenType i32 = BinaryenTypeInt32();
    auto sum = [&] {
      return BinaryenBinary(wasm_, BinaryenAddInt32(), BinaryenLocalGet(wasm_, 0, i32),
                            BinaryenLocalGet(wasm_, 1, i32));
    };
    BinaryenExpressionRef noOverflow =
        BinaryenBinary(wasm_, BinaryenGeUInt32(), sum(), BinaryenLocalGet(wasm_, 1, i32));
    BinaryenExpressionRef body = BinaryenSelect(wasm_, noOverflow, sum(),
                                                BinaryenConst(wasm_, BinaryenLiteralInt32(-1)), i32);
    BinaryenAddFunction(wasm_, addressHelperName_.c_str(), pair(i32, i32), i32, nullptr, 0, body);
    return addressHelperName_.c_str();
  }

  BinaryenExpressionRef call(const std::string& base, ImportSignature signature,
                             std::vector<BinaryenExpressionRef> operands) {
    auto found = importNames_.find(base);
    if (found == importNames_.end()) {
      std::string internal = unusedFunctionName(std::string(kRuntimeModule) + "." + base);
      BinaryenAddFunctionImport(wasm_, internal.c_str(), kRuntimeModule, base.c_str(),
                                signature.params, signature.results);
      found = importNames_.emplace(base, internal).first;
    }
    return BinaryenCall(wasm_, found->second.c_str(), operands.data(),
                        BinaryenIndex(operands.size()), signature.results);
  }

  std::string unusedFunctionName(const std::string& wanted) {
    std::string name = wanted;
    for (unsigned suffix = 1; BinaryenGetFunction(wasm_, name.c_str()); ++suffix)
      name = wanted + "." + std::to_string(suffix);
    return name;
  }

  // The 108 C API has no offset getter for wait and notify; its printer shows
  // the offset as "offset=<n>" on the instruction's first line.
  static bool printedOffset(BinaryenExpressionRef expr, uint32_t& offset, std::string& error) {
    int capture = memfd_create("synergy-print", 0);
    int saved = dup(STDOUT_FILENO);
    std::cout.flush();
    std::fflush(stdout);
    std::string text;
    if (capture >= 0 && saved >= 0 && dup2(capture, STDOUT_FILENO) >= 0) {
      BinaryenExpressionPrint(expr);
      std::cout.flush();
      std::fflush(stdout);
      dup2(saved, STDOUT_FILENO);
      char buffer[256];
      ssize_t n = pread(capture, buffer, sizeof buffer, 0);
      if (n > 0) text.assign(buffer, size_t(n));
    }
    if (capture >= 0) close(capture);
    if (saved >= 0) close(saved);
    std::string firstLine = text.substr(0, text.find('\n'));
    if (firstLine.find("memory.atomic.") == std::string::npos) {
      error = "cannot read the memarg offset of a wait/notify instruction";
      return false;
    }
    size_t at = firstLine.find("offset=");
    offset = at == std::string::npos ? 0 : uint32_t(std::stoul(firstLine.substr(at + 7)));
    return true;
  }

  static BinaryenType pair(BinaryenType a, BinaryenType b) {
    BinaryenType types[] = {a, b};
    return BinaryenTypeCreate(types, 2);
  }

  static std::string typeName(BinaryenType type) {
    return type == BinaryenTypeInt64() ? "i64" : "i32";
  }

  static unsigned fullBytes(BinaryenType type) { return type == BinaryenTypeInt64() ? 8 : 4; }

  static std::string bitsOnly(uint32_t bytes, BinaryenType type) {
    return bytes == fullBytes(type) ? "" : std::to_string(bytes * 8);
  }

  static std::string unsignedSuffix(uint32_t bytes, BinaryenType type) {
    return bytes == fullBytes(type) ? "" : "_u";
  }

  // "8_u" for a narrow access that zero-extends, "8" for a narrow store.
  static std::string width(uint32_t bytes, BinaryenType type, bool extends) {
    return bitsOnly(bytes, type) + (extends ? unsignedSuffix(bytes, type) : "");
  }

  static std::string rmwOpName(BinaryenOp op) {
    if (op == BinaryenAtomicRMWAdd()) return "add";
    if (op == BinaryenAtomicRMWSub()) return "sub";
    if (op == BinaryenAtomicRMWAnd()) return "and";
    if (op == BinaryenAtomicRMWOr()) return "or";
    if (op == BinaryenAtomicRMWXor()) return "xor";
    return "xchg";
  }

  BinaryenModuleRef wasm_;
  std::map<std::string, std::string> importNames_;  // import base -> internal name
  std::string addressHelperName_;
};

class LowerAtomicsPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    MemoryFacts& memory = module.facts.memory;
    if (memory.is64) {
      error = "memory64 is not supported";
      return false;
    }
    std::vector<BinaryenFunctionRef> definedFunctions;
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(module.binaryen); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module.binaryen, i);
      if (BinaryenFunctionGetBody(function)) definedFunctions.push_back(function);
    }
    AtomicLowering lowering(module.binaryen);
    for (BinaryenFunctionRef function : definedFunctions)
      if (!lowering.lowerFunction(function, error)) return false;

    if (memory.shared) {
      // Re-declaring the memory with the same limits keeps its segments,
      // export and import in binaryen 108; only `shared` changes.
      BinaryenSetMemory(module.binaryen, BinaryenIndex(memory.initialPages),
                        BinaryenIndex(memory.maximumPages.value_or(0xffffffffu)), nullptr, nullptr,
                        nullptr, nullptr, nullptr, 0, false);
      memory.shared = false;
    }
    module.declaredFeatures &= ~BinaryenFeatureAtomics();
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createLowerAtomicsPass() { return std::make_unique<LowerAtomicsPass>(); }

}  // namespace synergy::passes
