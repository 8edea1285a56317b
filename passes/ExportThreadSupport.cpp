//===- ExportThreadSupport.cpp - guest functions the thread runtime calls -===//
//
// A thread granule needs a stack and a thread-local storage block inside the
// shared memory, and only the guest's allocator knows which memory is free.
// So the runtime calls the guest's own malloc/free (serialised by
// SerializeLibc) and its __wasm_init_tls, which copies the TLS image into a
// new block and points __tls_base at it. synergy-cc links threaded programs
// with --export of the three, which keeps them alive, but in a command module
// wasm-ld exports a wrapper that runs the static constructors on every call.
// This pass exports the plain functions as __synergy_malloc, __synergy_free
// and __synergy_init_tls instead, and drops the wrappers' exports.
//
// Runs only on modules that call the OpenMP or pthreads runtime.
//
//===----------------------------------------------------------------------===//
#include <array>
#include <string>
#include <utility>

#include "passes/ControlPoints.h"
#include "passes/Pass.h"

namespace synergy::passes {
namespace {

constexpr std::array<std::pair<const char*, const char*>, 3> kExports = {{
    {"malloc", "__synergy_malloc"},
    {"free", "__synergy_free"},
    {"__wasm_init_tls", "__synergy_init_tls"},
}};

class ExportThreadSupportPass : public Pass {
 public:
  bool run(WasmModule& module, std::string& error) override {
    if (!importsThreadRuntime(module.binaryen)) return true;
    for (auto [internal, external] : kExports) {
      if (!BinaryenGetFunction(module.binaryen, internal)) {
        error = std::string("a threaded module must define '") + internal +
                "' (link it with synergy-cc -fopenmp or -pthread)";
        return false;
      }
      if (BinaryenGetExport(module.binaryen, internal))
        BinaryenRemoveExport(module.binaryen, internal);
      if (!BinaryenGetExport(module.binaryen, external))
        BinaryenAddFunctionExport(module.binaryen, internal, external);
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createExportThreadSupportPass() {
  return std::make_unique<ExportThreadSupportPass>();
}

}  // namespace synergy::passes
