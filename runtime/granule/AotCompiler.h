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
// A module read from a file is also recorded under the file's identity, so a
// warm start finds its object without reading and hashing the module again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>
#include <string_view>

namespace synergy::granule {

// The file a module was read from: still open, with its fstat from before
// the read.
struct ModuleFile {
  int fd = -1;
  struct stat readFrom = {};
};

struct AotRequest {
  std::string_view wasmBytes;  // not copied: the caller keeps the module alive
  std::string displayName;    // used in diagnostics and progress lines
  bool showProgress = false;  // one line on stderr before a cold compile
  // When set, the object is also recorded for the file's identity, for
  // findCompiledModuleFile.
  const ModuleFile* file = nullptr;
};

// Returns the path of the shared object, or nullopt with a one-line `error`.
std::optional<std::string> compileToSharedObject(const AotRequest& request, std::string& error);

// The shared object compiled earlier for the module file open at `fd`, found
// by the file's identity without reading it (ObjectCache::keyOfUnchangedFile);
// nullopt when the file is new or changed, and must be read and compiled.
std::optional<std::string> findCompiledModuleFile(int fd);

}  // namespace synergy::granule
