//===- Pipeline.cpp - the default wasm pass pipeline -----------------------===//
//
// Every linked granule goes through these passes, in this order.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline.h"

#include "passes/PassRunner.h"

namespace synergy::passes {

std::vector<const PassInfo*> defaultPipelinePasses() {
  return {
      // First: invokes whose callee cannot unwind become the program's own
      // direct calls (a control point reached through one is then no longer
      // inside a host frame, and the census and Asyncify see the call).
      findPass("direct-invokes"),
      // On the module as linked: it records the program's own call sites,
      // before later passes add runtime calls of their own.
      findPass("control-point-census"),
      // Threaded modules only. The libc lock is not a control point, so the
      // census must not see it; the exports must name the locked malloc.
      findPass("serialize-libc"),
      findPass("export-thread-support"),
      // Threaded modules only; before asyncify, whose save/restore points
      // must not depend on whether errno is memory or a global.
      findPass("thread-local-errno"),
      // Threaded modules only; before lower-atomics, which turns the atomic
      // loads it makes into runtime calls the AOT compiler cannot hoist.
      findPass("atomic-spin-wait-loads"),
      // Before asyncify, so that asyncify sees the final set of calls and its
      // optimizer runs over the lowered code; the atomic helpers it adds are
      // not control points and stay uninstrumented.
      findPass("lower-atomics"),
      // Before asyncify, whose optimizer then sees the final code; the loops
      // it rewrites call nothing, so Asyncify never instruments them.
      findPass("forward-loop-carried-stores"),
      // Last: its instrumentation must cover every call that exists in the
      // final module, and no later pass may add code between its save/restore
      // points.
      findPass("asyncify-control-points"),
  };
}

bool runDefaultPipeline(const std::string& inputWasm, const std::string& outputWasm,
                        std::string& error) {
  return runPassesOnFile(inputWasm, outputWasm, defaultPipelinePasses(), error);
}

}  // namespace synergy::passes
