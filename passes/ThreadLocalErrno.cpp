//===- ThreadLocalErrno.cpp - one errno per thread granule -----------------===//
//
// wasi-libc here is built single-threaded, so its errno is a plain int in
// linear memory, and every libc function that fails stores to that one
// address. Thread granules share the memory, so without this pass one
// thread's failing open() would overwrite the errno another thread is about
// to read. Each thread granule is its own wasm instance, with its own copy of
// every mutable global (as __stack_pointer and __tls_base already are), so
// this pass moves errno out of memory into a new mutable global: every 4-byte
// load of the errno address becomes a global.get, every 4-byte store a
// global.set. include/__errno.h declares errno as a plain int in every build,
// so user code, guest libraries and libc all name the same address, and
// synergy-cc exports that address as "errno" from threaded links. The export
// is consumed here.
//
// Only accesses whose address is a constant are rewritten; that is how clang
// addresses a global. Unoptimized code (-O0) first puts the address, or the
// 0 it adds errno's to as the access's offset, in a local of its own, which
// it sets once: a local that is not a parameter and is set exactly once in
// its function, to a constant, counts as that constant. A program that takes
// errno's address and reads through the pointer still reaches the shared
// word.
//
// Runs only on modules that call the OpenMP or pthreads runtime and carry the
// "errno" export.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "passes/ControlPoints.h"
#include "passes/ExpressionChildren.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

constexpr const char* kErrnoExport = "errno";
constexpr const char* kErrnoGlobal = "errno.thread";
constexpr uint32_t kErrnoBytes = 4;

class ErrnoLocalizer {
 public:
  ErrnoLocalizer(BinaryenModuleRef wasm, uint32_t address) : wasm_(wasm), address_(address) {}

  bool localizeFunction(BinaryenFunctionRef function, std::string& error) {
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    std::map<BinaryenIndex, std::optional<int32_t>> sets;
    if (!collectLocalSets(body, sets, error)) return false;
    constantLocals_.clear();
    BinaryenIndex parameters = BinaryenTypeArity(BinaryenFunctionGetParams(function));
    for (const auto& [index, value] : sets)
      if (index >= parameters && value) constantLocals_[index] = *value;
    BinaryenExpressionRef localized = localize(body, error);
    if (!localized) {
      error = "in function " + std::string(BinaryenFunctionGetName(function)) + ": " + error;
      return false;
    }
    if (localized != body) BinaryenFunctionSetBody(function, localized);
    return true;
  }

 private:
  // Every local.set and local.tee in `expr`: the constant it writes, or
  // nullopt when the local is set more than once or to anything else.
  static bool collectLocalSets(BinaryenExpressionRef expr,
                               std::map<BinaryenIndex, std::optional<int32_t>>& sets,
                               std::string& error) {
    if (BinaryenExpressionGetId(expr) == BinaryenLocalSetId()) {
      BinaryenExpressionRef value = BinaryenLocalSetGetValue(expr);
      auto [entry, first] = sets.try_emplace(BinaryenLocalSetGetIndex(expr));
      if (first && BinaryenExpressionGetId(value) == BinaryenConstId() &&
          BinaryenExpressionGetType(value) == BinaryenTypeInt32())
        entry->second = BinaryenConstGetValueI32(value);
      else
        entry->second.reset();
    }
    return visitChildren(
        expr, [&](BinaryenExpressionRef child) { return collectLocalSets(child, sets, error); },
        error);
  }

  // The constant address an access reaches, when its pointer is a constant
  // or a local holding one.
  bool constantAddress(BinaryenExpressionRef pointer, uint32_t offset, uint64_t& address) const {
    if (BinaryenExpressionGetType(pointer) != BinaryenTypeInt32()) return false;
    uint32_t base = 0;
    BinaryenExpressionId id = BinaryenExpressionGetId(pointer);
    if (id == BinaryenConstId()) {
      base = uint32_t(BinaryenConstGetValueI32(pointer));
    } else if (id == BinaryenLocalGetId()) {
      auto local = constantLocals_.find(BinaryenLocalGetGetIndex(pointer));
      if (local == constantLocals_.end()) return false;
      base = uint32_t(local->second);
    } else {
      return false;
    }
    address = uint64_t(base) + offset;
    return true;
  }

  bool overlapsErrno(uint64_t address, uint32_t bytes) const {
    return address < uint64_t(address_) + kErrnoBytes && address + bytes > address_;
  }

  BinaryenExpressionRef localize(BinaryenExpressionRef expr, std::string& error) {
    if (!rewriteChildren(expr, [&](BinaryenExpressionRef child) { return localize(child, error); },
                         error))
      return nullptr;
    BinaryenExpressionId id = BinaryenExpressionGetId(expr);
    BinaryenType i32 = BinaryenTypeInt32();
    uint64_t address = 0;
    if (id == BinaryenLoadId()) {
      uint32_t bytes = BinaryenLoadGetBytes(expr);
      if (!constantAddress(BinaryenLoadGetPtr(expr), BinaryenLoadGetOffset(expr), address) ||
          !overlapsErrno(address, bytes))
        return expr;
      if (address != address_ || bytes != kErrnoBytes || BinaryenLoadIsAtomic(expr) ||
          BinaryenExpressionGetType(expr) != i32)
        return unsupported(error);
      return BinaryenGlobalGet(wasm_, kErrnoGlobal, i32);
    }
    if (id == BinaryenStoreId()) {
      uint32_t bytes = BinaryenStoreGetBytes(expr);
      if (!constantAddress(BinaryenStoreGetPtr(expr), BinaryenStoreGetOffset(expr), address) ||
          !overlapsErrno(address, bytes))
        return expr;
      if (address != address_ || bytes != kErrnoBytes || BinaryenStoreIsAtomic(expr) ||
          BinaryenStoreGetValueType(expr) != i32)
        return unsupported(error);
      return BinaryenGlobalSet(wasm_, kErrnoGlobal, BinaryenStoreGetValue(expr));
    }
    return expr;
  }

  static BinaryenExpressionRef unsupported(std::string& error) {
    error = "errno is accessed other than as one 4-byte int; it cannot be made per-thread";
    return nullptr;
  }

  BinaryenModuleRef wasm_;
  uint32_t address_;
  // The function's locals that hold one constant (see the header).
  std::map<BinaryenIndex, int32_t> constantLocals_;
};

class ThreadLocalErrnoPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    BinaryenModuleRef wasm = module.binaryen;
    if (!importsThreadRuntime(wasm)) return true;
    BinaryenExportRef exported = BinaryenGetExport(wasm, kErrnoExport);
    if (!exported) return true;
    BinaryenGlobalRef addressGlobal =
        BinaryenExportGetKind(exported) == BinaryenExternalGlobal()
            ? BinaryenGetGlobal(wasm, BinaryenExportGetValue(exported))
            : nullptr;
    BinaryenExpressionRef init = addressGlobal ? BinaryenGlobalGetInitExpr(addressGlobal) : nullptr;
    if (!init || BinaryenGlobalIsMutable(addressGlobal) ||
        BinaryenExpressionGetId(init) != BinaryenConstId() ||
        BinaryenExpressionGetType(init) != BinaryenTypeInt32()) {
      error = "export 'errno' must be an immutable i32 global holding errno's address";
      return false;
    }
    uint32_t address = uint32_t(BinaryenConstGetValueI32(init));
    if (BinaryenGetGlobal(wasm, kErrnoGlobal)) {
      error = std::string("module already defines a global named '") + kErrnoGlobal + "'";
      return false;
    }
    BinaryenAddGlobal(wasm, kErrnoGlobal, BinaryenTypeInt32(), true,
                      BinaryenConst(wasm, BinaryenLiteralInt32(0)));

    std::vector<BinaryenFunctionRef> definedFunctions;
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(wasm); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(wasm, i);
      if (BinaryenFunctionGetBody(function)) definedFunctions.push_back(function);
    }
    ErrnoLocalizer localizer(wasm, address);
    for (BinaryenFunctionRef function : definedFunctions)
      if (!localizer.localizeFunction(function, error)) return false;
    BinaryenRemoveExport(wasm, kErrnoExport);
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createThreadLocalErrnoPass() {
  return std::make_unique<ThreadLocalErrnoPass>();
}

}  // namespace synergy::passes
