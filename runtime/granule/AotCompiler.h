//===- AotCompiler.h - wasm module -> cached native shared object ----------===//
//
// Granules run ahead-of-time compiled: wasm2c translates the module to C, the
// memory-base hoisting post-pass rewrites that C, the glue writer adds the
// fixed loading interface, and clang -O2 builds one shared object.
//
// Before any tool runs, checkWasmModule refuses a module whose names could
// reach the generated C unescaped, and wasm2c is given the module with its
// debug names in our own mangling (NameSectionRewriter.h).
//
// The object is kept in the "aot" area of the object cache (ObjectCache.h)
// under a key that hashes the module bytes, the tool versions and the running
// runtime's build id (which decides the set of host imports baked into the
// glue). The cache verifies the object's digest before it is returned; a build
// happens in a private temporary directory and is published with rename(2),
// so concurrent runs of the same module never see or produce a partial object.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace synergy::granule {

struct AotRequest {
  std::string_view wasmBytes;  // not copied: the caller keeps the module alive
  std::string displayName;    // used in diagnostics and progress lines
  bool showProgress = false;  // one line on stderr before a cold compile
};

// Returns the path of the shared object, or nullopt with a one-line `error`.
std::optional<std::string> compileToSharedObject(const AotRequest& request, std::string& error);

}  // namespace synergy::granule
