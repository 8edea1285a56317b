//===- ControlPoints.cpp - which imports are control points ----------------===//
//
// Classifies imports and counts direct calls to the control points. Indirect
// calls cannot target an import unless the import's address is taken, which
// clang never does for runtime entry points, so only direct calls count.
//
//===----------------------------------------------------------------------===//
#include "passes/ControlPoints.h"

#include "passes/ExpressionChildren.h"

#include <array>
#include <span>

namespace synergy::passes {

// Module "synergy" is the runtime's own import module: every import from it
// is a control point except the lowered atomic instructions (atomic_*), which
// LowerAtomics adds and which never unwind.
static constexpr std::string_view kRuntimeModule = "synergy";
static constexpr std::string_view kLoweredAtomicPrefix = "atomic_";
// The lock SerializeLibc wraps around libc; it never unwinds either.
static constexpr std::string_view kLibcLockPrefix = "libc_lock_";
// waitpid and the process ids (guestlib/Wait.c, ProcessIds.c) answer from the
// runtime's process table; only fork itself unwinds.
static constexpr std::string_view kProcessTablePrefix = "process_";
// MPI and its profiling interface, then the OpenMP runtime ABI and entry
// points and pthreads: every call through which a granule spawns, joins or
// communicates. The last three are the thread runtime.
static constexpr std::array<std::string_view, 5> kControlPointPrefixes = {
    "MPI_", "PMPI_", "__kmpc_", "omp_", "pthread_"};
static constexpr std::span<const std::string_view> kThreadRuntimePrefixes(
    kControlPointPrefixes.begin() + 2, kControlPointPrefixes.end());

static bool startsWithAny(std::string_view base, std::span<const std::string_view> prefixes) {
  for (std::string_view prefix : prefixes)
    if (base.starts_with(prefix)) return true;
  return false;
}

bool isControlPointImport(std::string_view module, std::string_view base) {
  if (module == kRuntimeModule)
    return !base.starts_with(kLoweredAtomicPrefix) && !base.starts_with(kLibcLockPrefix) &&
           !base.starts_with(kProcessTablePrefix);
  return startsWithAny(base, kControlPointPrefixes);
}

bool importsThreadRuntime(BinaryenModuleRef module) {
  for (BinaryenIndex i = 0; i < BinaryenGetNumFunctions(module); ++i) {
    BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module, i);
    const char* importModule = BinaryenFunctionImportGetModule(function);
    if (importModule && *importModule &&
        startsWithAny(BinaryenFunctionImportGetBase(function), kThreadRuntimePrefixes))
      return true;
  }
  return false;
}

namespace {

struct CallCounter {
  const std::map<std::string, size_t>& importIndexByInternalName;
  std::map<size_t, unsigned> counts;

  bool visit(BinaryenExpressionRef expr, std::string& error) {
    if (BinaryenExpressionGetId(expr) == BinaryenCallId()) {
      auto found = importIndexByInternalName.find(BinaryenCallGetTarget(expr));
      if (found != importIndexByInternalName.end()) ++counts[found->second];
    }
    return visitChildren(expr, [&](BinaryenExpressionRef child) { return visit(child, error); },
                         error);
  }
};

}  // namespace

bool takeControlPointCensus(BinaryenModuleRef module, ControlPointCensus& census,
                            std::string& error) {
  census = {};
  std::map<std::string, size_t> importIndexByInternalName;
  BinaryenIndex numFunctions = BinaryenGetNumFunctions(module);
  for (BinaryenIndex i = 0; i < numFunctions; ++i) {
    BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module, i);
    const char* importModule = BinaryenFunctionImportGetModule(function);
    if (!importModule || !*importModule) continue;
    const char* base = BinaryenFunctionImportGetBase(function);
    if (!isControlPointImport(importModule, base)) continue;
    importIndexByInternalName[BinaryenFunctionGetName(function)] = census.imports.size();
    census.imports.push_back({importModule, base});
    census.internalNames.push_back(BinaryenFunctionGetName(function));
  }
  if (census.imports.empty()) return true;
  for (BinaryenIndex i = 0; i < numFunctions; ++i) {
    BinaryenFunctionRef function = BinaryenGetFunctionByIndex(module, i);
    BinaryenExpressionRef body = BinaryenFunctionGetBody(function);
    if (!body) continue;
    CallCounter counter{importIndexByInternalName, {}};
    if (!counter.visit(body, error)) {
      error = "in function " + std::string(BinaryenFunctionGetName(function)) + ": " + error;
      return false;
    }
    for (auto [importIndex, count] : counter.counts)
      census.callCounts[{BinaryenFunctionGetName(function), importIndex}] = count;
  }
  return true;
}

}  // namespace synergy::passes
