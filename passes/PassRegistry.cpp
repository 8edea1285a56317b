//===- PassRegistry.cpp - every Synergy wasm pass by flag ------------------===//
#include "passes/PassRegistry.h"

#include <array>

namespace synergy::passes {

static const std::array<PassInfo, 9> kPasses = {{
    {"control-point-census",
     "record control-point imports and their call sites in the synergy.control_points section",
     createControlPointCensusPass},
    {"asyncify-control-points",
     "run Asyncify so a granule can unwind and rewind at any control-point call, and nowhere else",
     createAsyncifyControlPointsPass},
    {"lower-atomics",
     "replace atomic instructions with synergy.atomic_* runtime calls and unshare the memory",
     createLowerAtomicsPass},
    {"serialize-libc",
     "wrap malloc, free and stdio in the runtime's libc lock in modules that run threads",
     createSerializeLibcPass},
    {"export-thread-support",
     "export the guest malloc, free and __wasm_init_tls for the thread runtime",
     createExportThreadSupportPass},
    {"thread-local-errno",
     "move libc's errno from shared memory into a global of each thread granule",
     createThreadLocalErrnoPass},
    {"direct-invokes",
     "turn env.invoke_* calls whose callee cannot unwind into direct or indirect calls",
     createDirectInvokesPass},
    {"forward-loop-carried-stores",
     "keep a value a loop stores and loads back in its next iteration in a local (backward "
     "recurrences)",
     createForwardLoopCarriedStoresPass},
    {"atomic-spin-wait-loads",
     "make the loads a loop that writes nothing waits on atomic, so another thread's store ends "
     "the wait (threaded modules)",
     createAtomicSpinWaitLoadsPass},
}};

std::span<const PassInfo> registeredPasses() { return kPasses; }

const PassInfo* findPass(std::string_view flag) {
  for (const PassInfo& pass : kPasses)
    if (pass.flag == flag) return &pass;
  return nullptr;
}

}  // namespace synergy::passes
