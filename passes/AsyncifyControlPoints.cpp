//===- AsyncifyControlPoints.cpp - Asyncify limited to control points -----===//
//
// Runs Binaryen's Asyncify so that the runtime can unwind a granule's wasm
// stack at a control-point call, snapshot it, and rewind it later (possibly in
// a fresh instance on another host). Only code that can reach a control point
// pays for the instrumentation:
//
//  - `asyncify-imports` is exactly the census's list of control-point imports
//    (ControlPoints.cpp). An empty list would mean "every import may unwind"
//    to Asyncify, so a module without control points gets a list naming no
//    import instead, plus `asyncify-ignore-indirect`: it keeps the asyncify_*
//    exports and its two globals, and no function is instrumented.
//  - Asyncify assumes any call_indirect may unwind. We resolve indirect calls
//    ourselves (CallReachability.h): a call_indirect can reach a control
//    point only if some address-taken function (element segments, ref.func;
//    a control-point import among them) of the same signature can. If none can, Asyncify gets `asyncify-ignore-indirect`;
//    otherwise it gets `asyncify-onlylist`, the exact set of functions that
//    can reach a control point, so no other function is touched.
//
// Requires: run after every pass that adds calls (lower-atomics), so the
// instrumentation covers the final code. Guarantees: the module exports
// asyncify_{start,stop}_{unwind,rewind} and asyncify_get_state, and exactly
// the functions that can reach a control-point import are instrumented.
//
//===----------------------------------------------------------------------===//
#include "passes/CallReachability.h"
#include "passes/ControlPoints.h"
#include "passes/Pass.h"

#include <set>

namespace synergy::passes {

namespace {

// A list entry no module imports: makes Asyncify's import list non-empty.
constexpr const char* kNoImport = "synergy.no-control-point-imports";

// Asyncify escapes list entries as wasm text identifiers before matching them
// against internal names; names made only of identifier characters (and no
// wildcard) survive that unchanged, so only those can go in a list.
bool isListSafeName(std::string_view name) {
  if (name.empty() || name.front() == '@') return false;  // '@' names a response file
  for (char c : name) {
    bool idChar = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                  std::string_view("!#$%&'+-./:<=>?@^_`|~").find(c) != std::string_view::npos;
    if (!idChar) return false;
  }
  return true;
}

class AsyncifyControlPointsPass final : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    BinaryenModuleRef wasm = module.binaryen;
    ControlPointCensus census;
    if (!takeControlPointCensus(wasm, census, error)) return false;

    std::string importList;
    for (const ImportName& import : census.imports) {
      std::string entry = import.module + "." + import.base;
      if (entry.find_first_of(",*\n") != std::string::npos) {
        error = "control-point import '" + entry + "' cannot be named in Asyncify's import list";
        return false;
      }
      importList += (importList.empty() ? "" : ",") + entry;
    }

    bool ignoreIndirect = true;
    std::string onlyList;
    if (importList.empty()) {
      importList = kNoImport;
    } else if (!resolveReachability(wasm, census, ignoreIndirect, onlyList, error)) {
      return false;
    }

    BinaryenClearPassArguments();
    BinaryenSetPassArgument("asyncify-imports", importList.c_str());
    if (ignoreIndirect) BinaryenSetPassArgument("asyncify-ignore-indirect", "1");
    if (!onlyList.empty()) BinaryenSetPassArgument("asyncify-onlylist", onlyList.c_str());
    const char* passes[] = {"asyncify"};
    BinaryenModuleRunPasses(wasm, passes, 1);
    BinaryenClearPassArguments();
    return true;
  }

 private:
  // Decides how Asyncify treats indirect calls (see the file header).
  static bool resolveReachability(BinaryenModuleRef wasm, const ControlPointCensus& census,
                                  bool& ignoreIndirect, std::string& onlyList,
                                  std::string& error) {
    std::set<std::string> controlPointNames(census.internalNames.begin(),
                                            census.internalNames.end());
    CallReachability reachability;
    if (!findCallReachability(wasm, controlPointNames, reachability, error)) return false;
    ignoreIndirect = !reachability.indirectCallReaches;
    if (ignoreIndirect) return true;

    // Some indirect call can unwind. Name the reaching functions so Asyncify
    // does not instrument every function with an indirect call; if a name
    // cannot be listed, fall back to Asyncify's conservative default.
    std::string list;
    for (const std::string& name : reachability.reaching) {
      if (!isListSafeName(name)) return true;
      list += (list.empty() ? "" : ",") + name;
    }
    onlyList = list;
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createAsyncifyControlPointsPass() {
  return std::make_unique<AsyncifyControlPointsPass>();
}

}  // namespace synergy::passes
