//===- CallReachability.h - which functions can reach given calls ----------===//
//
// A whole-module query over the wasm call graph: which functions may, through
// any chain of calls, end up calling one of a set of target functions
// (usually imports). Asyncify's instrumentation asks it about control points
// and direct-invokes about the imports that unwind guest frames, and both
// must resolve indirect calls alike: a call_indirect can reach exactly the
// address-taken functions (element segments, ref.func) of its signature,
// imports among them, since wasm traps on a signature mismatch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <binaryen-c.h>

#include <set>
#include <string>
#include <utility>

namespace synergy::passes {

using Signature = std::pair<BinaryenType, BinaryenType>;  // params, results

struct CallReachability {
  // Defined functions (internal names) that can reach a target.
  std::set<std::string> reaching;
  // Signatures under which some address-taken function is a target or
  // reaches one: a call_indirect of any other signature reaches none.
  std::set<Signature> reachingSignatures;
  // Whether some call_indirect in the module has one of those signatures.
  bool indirectCallReaches = false;
};

// `targets` are internal function names. Fails (false, `error` set) only
// on IR the C API cannot walk.
bool findCallReachability(BinaryenModuleRef module, const std::set<std::string>& targets,
                          CallReachability& result, std::string& error);

}  // namespace synergy::passes
