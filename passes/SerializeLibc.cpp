//===- SerializeLibc.cpp - libc entry points under one runtime lock --------===//
//
// wasi-libc here is built single-threaded: malloc's free lists and stdio's
// FILE buffers are plain memory with no locking. Thread granules share that
// memory, so this pass wraps every such entry point the module defines in a
// runtime lock: the original body moves to a new function "<name>.unlocked"
// and the original function becomes
//
//   synergy.libc_lock_acquire(); result = <name>.unlocked(args...);
//   synergy.libc_lock_release(); return result;
//
// Keeping the original function (and so its index, table slots and exports)
// means no call site has to change. The lock is recursive in the runtime,
// because one wrapped function may call another (printf -> vfprintf ->
// fwrite, realloc -> malloc). In --dsm mode the lock is also where a thread's
// replica synchronises with the main copy, which keeps the heap coherent.
//
// The result is kept in one of the function's own locals (a parameter is dead
// once the call has taken it), as the Binaryen 108 C API cannot add a local.
//
// Runs only on modules that import something from the OpenMP or pthreads
// runtime or the "synergy" module: single-threaded programs are unchanged.
//
//===----------------------------------------------------------------------===//
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "passes/ControlPoints.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

constexpr const char* kRuntimeModule = "synergy";
constexpr const char* kAcquire = "libc_lock_acquire";
constexpr const char* kRelease = "libc_lock_release";

// The allocator, and stdio's buffered streams (printf reaches vfprintf).
constexpr std::array<std::string_view, 24> kSerializedFunctions = {
    "malloc",  "free",     "calloc",   "realloc", "aligned_alloc", "posix_memalign",
    "memalign", "malloc_usable_size", "vfprintf", "vfiprintf", "fwrite",  "fputs",
    "puts",    "fputc",    "putc",     "putchar", "fflush",        "fread",
    "fgets",   "fgetc",    "getc",     "getchar", "fopen",         "fclose",
};

class LibcSerializer {
 public:
  explicit LibcSerializer(BinaryenModuleRef module) : module_(module) {}

  bool wrap(BinaryenFunctionRef function, std::string& error) {
    std::string name = BinaryenFunctionGetName(function);
    BinaryenType params = BinaryenFunctionGetParams(function);
    BinaryenType results = BinaryenFunctionGetResults(function);
    std::vector<BinaryenType> paramTypes(BinaryenTypeArity(params));
    if (!paramTypes.empty()) BinaryenTypeExpand(params, paramTypes.data());
    std::vector<BinaryenType> varTypes;
    for (BinaryenIndex v = 0; v < BinaryenFunctionGetNumVars(function); ++v)
      varTypes.push_back(BinaryenFunctionGetVar(function, v));

    int resultLocal = -1;
    if (results != BinaryenTypeNone()) {
      for (size_t p = 0; p < paramTypes.size() && resultLocal < 0; ++p)
        if (paramTypes[p] == results) resultLocal = int(p);
      for (size_t v = 0; v < varTypes.size() && resultLocal < 0; ++v)
        if (varTypes[v] == results) resultLocal = int(paramTypes.size() + v);
      if (resultLocal < 0) {
        error = "cannot serialise '" + name + "': no local of its result type";
        return false;
      }
    }

    std::string unlockedName = name + ".unlocked";
    BinaryenAddFunction(module_, unlockedName.c_str(), params, results, varTypes.data(),
                        BinaryenIndex(varTypes.size()), BinaryenFunctionGetBody(function));
    std::vector<BinaryenExpressionRef> arguments;
    for (size_t p = 0; p < paramTypes.size(); ++p)
      arguments.push_back(BinaryenLocalGet(module_, BinaryenIndex(p), paramTypes[p]));
    BinaryenExpressionRef call =
        BinaryenCall(module_, unlockedName.c_str(), arguments.data(),
                     BinaryenIndex(arguments.size()), results);
    std::vector<BinaryenExpressionRef> body = {lockCall(kAcquire)};
    if (resultLocal < 0) {
      body.push_back(call);
      body.push_back(lockCall(kRelease));
    } else {
      body.push_back(BinaryenLocalSet(module_, BinaryenIndex(resultLocal), call));
      body.push_back(lockCall(kRelease));
      body.push_back(BinaryenLocalGet(module_, BinaryenIndex(resultLocal), results));
    }
    BinaryenFunctionSetBody(function, BinaryenBlock(module_, nullptr, body.data(),
                                                    BinaryenIndex(body.size()), results));
    return true;
  }

 private:
  BinaryenExpressionRef lockCall(const char* base) {
    std::string internal = std::string(kRuntimeModule) + "." + base;
    if (!BinaryenGetFunction(module_, internal.c_str()))
      BinaryenAddFunctionImport(module_, internal.c_str(), kRuntimeModule, base,
                                BinaryenTypeNone(), BinaryenTypeNone());
    return BinaryenCall(module_, internal.c_str(), nullptr, 0, BinaryenTypeNone());
  }

  BinaryenModuleRef module_;
};

class SerializeLibcPass : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    if (!importsThreadRuntime(module.binaryen)) return true;
    LibcSerializer serializer(module.binaryen);
    for (std::string_view name : kSerializedFunctions) {
      BinaryenFunctionRef function = BinaryenGetFunction(module.binaryen, std::string(name).c_str());
      if (!function) continue;
      const char* importModule = BinaryenFunctionImportGetModule(function);
      if (importModule && *importModule) continue;
      if (!serializer.wrap(function, error)) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createSerializeLibcPass() { return std::make_unique<SerializeLibcPass>(); }

}  // namespace synergy::passes
