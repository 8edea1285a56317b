//===- ControlPoints.h - which imports are control points ------------------===//
//
// The one place that decides which wasm imports are control points (calls into
// the runtime at which a granule may be stopped, unwound and migrated), and an
// analysis that lists them with every direct call site. The census pass writes
// this analysis to a custom section; the asyncify pass limits instrumentation
// to the same list, so both always agree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <binaryen-c.h>

#include "passes/ControlPointSection.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace synergy::passes {

bool isControlPointImport(std::string_view module, std::string_view base);

// Whether the module calls the OpenMP or pthreads runtime, i.e. may run as
// several thread granules over one memory.
bool importsThreadRuntime(BinaryenModuleRef module);

struct ControlPointCensus {
  // Control-point imports in module order; `internalNames[i]` is Binaryen's
  // name for `imports[i]`, the name call sites use.
  std::vector<ImportName> imports;
  std::vector<std::string> internalNames;
  // (calling function, import index) -> number of direct call sites.
  std::map<std::pair<std::string, size_t>, unsigned> callCounts;
};

// Fails (false, `error` set) only on IR the C API cannot walk.
bool takeControlPointCensus(BinaryenModuleRef module, ControlPointCensus& census,
                            std::string& error);

}  // namespace synergy::passes
