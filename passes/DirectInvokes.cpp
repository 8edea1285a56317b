//===- DirectInvokes.cpp - invokes of callees that cannot unwind -----------===//
//
// LLVM's emscripten-style lowering of C++ exceptions and setjmp/longjmp
// turns each call that might throw into a landing pad (or that a function
// calling setjmp makes) into env.invoke_<sig>(function, arguments...), which
// the runtime runs under a jump target (runtime/granule/SetjmpLongjmp.cpp):
// about 12 ns a call where a direct call costs 1. clang decides "might
// throw" one translation unit at a time, so a call to a function defined
// elsewhere, or through a pointer, is an invoke even when nothing it can
// reach ever unwinds. With the whole program linked, this pass decides
// again:
//
//  - guest frames are unwound only by a call to env.synergy_longjmp_unwind or
//    env.synergy_exception_unwind, so a function can unwind its caller only
//    if it can reach one of those, or an import this pass does not know
//    (anything but WASI, the runtime's own modules and control points, and
//    env.synergy_*). The known imports return or trap. Some control points
//    call back into guest code (an MPI user op or error handler, an OpenMP
//    region or combiner, a pthread_once routine); a throw or longjmp out of
//    such a callback is undefined in MPI and OpenMP, and is taken as absent.
//    An invoke catches whatever its callee throws, so it is no path; the
//    landing pad's own calls (__resumeException, emscripten_longjmp) are
//    direct calls and are followed;
//  - which functions can reach those is CallReachability's question, with
//    each call_indirect reaching every address-taken function of its type;
//  - an invoke whose function is a constant table slot that holds a
//    function of the invoke's type that cannot unwind becomes a direct call
//    to it (a defined function, or an import: in C++, MPI_Send in a try
//    block is an invoke of the import); any other invoke whose type no
//    unwinding address-taken function has becomes a call_indirect of that
//    type (a virtual call in a try block, when no method of that type can
//    throw), where moving the index after the arguments cannot change what
//    is called.
//
// The landing pad that follows is left as it is: __THREW__ stays 0, so it is
// never entered. A call that reaches a control point and was an invoke is a
// direct call afterwards, so a checkpoint is taken there instead of skipped;
// the pass runs first, so that the control-point census and Asyncify see
// those calls. Slots are read from the active element segments at constant
// offsets; a module that writes its table (table.set, table.grow), imports
// it or has more than one gets no slot resolution, only the type rule.
//
//===----------------------------------------------------------------------===//
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "passes/CallReachability.h"
#include "passes/ControlPoints.h"
#include "passes/ExpressionChildren.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

constexpr std::string_view kInvokePrefix = "invoke_";

bool isInvokeImport(std::string_view module, std::string_view base) {
  return module == "env" && base.starts_with(kInvokePrefix);
}

// Whether a call to this import may unwind the guest frames above it to an
// invoke (see the file header).
bool mayUnwind(std::string_view module, std::string_view base) {
  if (module == "env" &&
      (base == "synergy_longjmp_unwind" || base == "synergy_exception_unwind"))
    return true;
  if (module == "wasi_snapshot_preview1" || module == "synergy") return false;
  if (isInvokeImport(module, base) || (module == "env" && base.starts_with("synergy_")))
    return false;
  return !isControlPointImport(module, base);
}

// Table index -> function, from the active element segments of the only
// table, when nothing can change that table after instantiation.
struct TableSlots {
  bool known = false;
  std::map<uint32_t, std::string> functionAt;
};

// Sets `found` if `expr` or an expression inside it passes `test`. False
// only on IR the C API cannot walk.
bool findExpression(BinaryenExpressionRef expr,
                    const std::function<bool(BinaryenExpressionRef)>& test, bool& found,
                    std::string& error) {
  if (test(expr)) found = true;
  return found || visitChildren(expr, [&](BinaryenExpressionRef child) {
           return findExpression(child, test, found, error);
         }, error);
}

bool writesTable(BinaryenExpressionRef expr) {
  BinaryenExpressionId id = BinaryenExpressionGetId(expr);
  return id == BinaryenTableSetId() || id == BinaryenTableGrowId();
}

bool readTableSlots(BinaryenModuleRef wasm, TableSlots& slots, std::string& error) {
  if (BinaryenGetNumTables(wasm) != 1) return true;
  BinaryenTableRef table = BinaryenGetTableByIndex(wasm, 0);
  const char* importModule = BinaryenTableImportGetModule(table);
  if (importModule && *importModule) return true;
  for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(wasm); i < n; ++i) {
    BinaryenExpressionRef body = BinaryenFunctionGetBody(BinaryenGetFunctionByIndex(wasm, i));
    bool writes = false;
    if (body && !findExpression(body, writesTable, writes, error)) return false;
    if (writes) return true;
  }
  for (BinaryenIndex s = 0, n = BinaryenGetNumElementSegments(wasm); s < n; ++s) {
    BinaryenElementSegmentRef segment = BinaryenGetElementSegmentByIndex(wasm, s);
    if (BinaryenElementSegmentIsPassive(segment)) continue;
    BinaryenExpressionRef offset = BinaryenElementSegmentGetOffset(segment);
    if (BinaryenExpressionGetId(offset) != BinaryenConstId() ||
        BinaryenExpressionGetType(offset) != BinaryenTypeInt32())
      return true;
    uint64_t base = uint32_t(BinaryenConstGetValueI32(offset));
    for (BinaryenIndex i = 0, m = BinaryenElementSegmentGetLength(segment); i < m; ++i)
      if (base + i <= UINT32_MAX)
        slots.functionAt[uint32_t(base + i)] = BinaryenElementSegmentGetData(segment, i);
  }
  slots.known = true;
  return true;
}

class InvokeRewriter {
 public:
  InvokeRewriter(BinaryenModuleRef wasm, const std::set<std::string>& invokeImports,
                 const std::set<std::string>& unwindingImports, const CallReachability& unwinding,
                 const TableSlots& slots)
      : wasm_(wasm),
        invokeImports_(invokeImports),
        unwindingImports_(unwindingImports),
        unwinding_(unwinding),
        slots_(slots) {}

  bool rewriteFunction(BinaryenFunctionRef function, std::string& error) {
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    BinaryenExpressionRef rewritten = rewrite(body, error);
    if (!rewritten) {
      error = "in function " + std::string(BinaryenFunctionGetName(function)) + ": " + error;
      return false;
    }
    if (rewritten != body) BinaryenFunctionSetBody(function, rewritten);
    return true;
  }

 private:
  BinaryenExpressionRef rewrite(BinaryenExpressionRef expr, std::string& error) {
    if (!rewriteChildren(expr, [&](BinaryenExpressionRef child) { return rewrite(child, error); },
                         error))
      return nullptr;
    if (BinaryenExpressionGetId(expr) != BinaryenCallId() || BinaryenCallIsReturn(expr) ||
        !invokeImports_.count(BinaryenCallGetTarget(expr)))
      return expr;
    // The callee's type is the import's, less the leading table index.
    BinaryenFunctionRef invoke = BinaryenGetFunction(wasm_, BinaryenCallGetTarget(expr));
    BinaryenType invokeParams = BinaryenFunctionGetParams(invoke);
    std::vector<BinaryenType> paramTypes(BinaryenTypeArity(invokeParams));
    if (!paramTypes.empty()) BinaryenTypeExpand(invokeParams, paramTypes.data());
    BinaryenIndex count = BinaryenCallGetNumOperands(expr);
    if (paramTypes.empty() || paramTypes[0] != BinaryenTypeInt32() || count != paramTypes.size())
      return expr;
    BinaryenExpressionRef index = BinaryenCallGetOperandAt(expr, 0);
    std::vector<BinaryenExpressionRef> arguments;
    for (BinaryenIndex i = 1; i < count; ++i) arguments.push_back(BinaryenCallGetOperandAt(expr, i));
    const Signature signature{
        BinaryenTypeCreate(paramTypes.data() + 1, BinaryenIndex(paramTypes.size() - 1)),
        BinaryenFunctionGetResults(invoke)};

    if (const char* callee = constantCallee(index, signature))
      return BinaryenCall(wasm_, callee, arguments.data(), BinaryenIndex(arguments.size()),
                          signature.second);
    if (unwinding_.reachingSignatures.count(signature) ||
        !indexMayGoLast(index, arguments, error))
      return error.empty() ? expr : nullptr;
    return BinaryenCallIndirect(wasm_, BinaryenTableGetName(BinaryenGetTableByIndex(wasm_, 0)),
                                index, arguments.data(), BinaryenIndex(arguments.size()),
                                signature.first, signature.second);
  }

  // call_indirect evaluates its index after the arguments, the invoke
  // before them. The order cannot matter when the arguments are plain
  // values (nothing they do can trap or change the index), or when the
  // index is a local that no argument writes.
  static bool indexMayGoLast(BinaryenExpressionRef index,
                             const std::vector<BinaryenExpressionRef>& arguments,
                             std::string& error) {
    bool plainArguments = true;
    for (BinaryenExpressionRef argument : arguments) {
      BinaryenExpressionId id = BinaryenExpressionGetId(argument);
      plainArguments = plainArguments && (id == BinaryenLocalGetId() || id == BinaryenConstId() ||
                                          id == BinaryenGlobalGetId());
    }
    if (plainArguments) return true;
    if (BinaryenExpressionGetId(index) != BinaryenLocalGetId()) return false;
    BinaryenIndex local = BinaryenLocalGetGetIndex(index);
    auto writesIndex = [local](BinaryenExpressionRef expr) {
      return BinaryenExpressionGetId(expr) == BinaryenLocalSetId() &&
             BinaryenLocalSetGetIndex(expr) == local;
    };
    for (BinaryenExpressionRef argument : arguments) {
      bool writes = false;
      if (!findExpression(argument, writesIndex, writes, error) || writes) return false;
    }
    return true;
  }

  // The function an invoke of constant `index` calls, when it has the
  // invoke's type and cannot unwind; else null.
  const char* constantCallee(BinaryenExpressionRef index, const Signature& signature) const {
    if (!slots_.known || BinaryenExpressionGetId(index) != BinaryenConstId()) return nullptr;
    auto slot = slots_.functionAt.find(uint32_t(BinaryenConstGetValueI32(index)));
    if (slot == slots_.functionAt.end()) return nullptr;
    const std::string& name = slot->second;
    BinaryenFunctionRef callee = BinaryenGetFunction(wasm_, name.c_str());
    if (!callee || unwindingImports_.count(name) || unwinding_.reaching.count(name) ||
        BinaryenFunctionGetParams(callee) != signature.first ||
        BinaryenFunctionGetResults(callee) != signature.second)
      return nullptr;
    return BinaryenFunctionGetName(callee);
  }

  BinaryenModuleRef wasm_;
  const std::set<std::string>& invokeImports_;
  const std::set<std::string>& unwindingImports_;
  const CallReachability& unwinding_;
  const TableSlots& slots_;
};

class DirectInvokesPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    BinaryenModuleRef wasm = module.binaryen;
    std::set<std::string> invokeImports;
    std::set<std::string> unwindingImports;
    std::vector<BinaryenFunctionRef> definedFunctions;
    for (BinaryenIndex i = 0, n = BinaryenGetNumFunctions(wasm); i < n; ++i) {
      BinaryenFunctionRef function = BinaryenGetFunctionByIndex(wasm, i);
      const char* importModule = BinaryenFunctionImportGetModule(function);
      if (!importModule || !*importModule) {
        definedFunctions.push_back(function);
        continue;
      }
      std::string_view base = BinaryenFunctionImportGetBase(function);
      if (isInvokeImport(importModule, base)) invokeImports.insert(BinaryenFunctionGetName(function));
      if (mayUnwind(importModule, base)) unwindingImports.insert(BinaryenFunctionGetName(function));
    }
    // Invokes call through the one table; a module without exactly one has
    // nothing this pass can resolve.
    if (invokeImports.empty() || BinaryenGetNumTables(wasm) != 1) return true;

    CallReachability unwinding;
    TableSlots slots;
    if (!findCallReachability(wasm, unwindingImports, unwinding, error) ||
        !readTableSlots(wasm, slots, error))
      return false;
    InvokeRewriter rewriter(wasm, invokeImports, unwindingImports, unwinding, slots);
    for (BinaryenFunctionRef function : definedFunctions)
      if (!rewriter.rewriteFunction(function, error)) return false;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createDirectInvokesPass() { return std::make_unique<DirectInvokesPass>(); }

}  // namespace synergy::passes
