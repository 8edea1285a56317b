//===- AotCompiler.h - wasm module -> cached native shared object ----------===//
//
// Granules run ahead-of-time compiled: wasm2c translates the module to C, the
// memory-base hoisting post-pass rewrites that C, the glue writer adds the
// fixed loading interface, and clang -O2 builds one shared object.
//
// Before any tool runs, checkWasmModule refuses a module whose names could
// reach the generated C unescaped, and wasm2c is given the module with its
// debug names in our own mangling (NameSectionRewriter.h). A module found in
// the cache is not checked again: its key hashes its bytes and the runtime's
// build id, so the same check already accepted these very bytes before its
// object was built, and a warm start skips the parse. A module file whose
// identity (device, inode, size, modification and change times) an earlier
// run recorded is found without even reading it.
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

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace synergy::granule {

// What identifies the contents of a module file without reading it: the
// kernel changes the change time on every write, and only the kernel sets it.
struct ModuleFileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t modifiedNs = 0;
  int64_t changedNs = 0;
  bool operator==(const ModuleFileIdentity&) const = default;
};

// The identity of the regular file at `path`, when it may stand for the
// file's contents: its last change lies at least two seconds in the past.
// File times come from a coarse clock, so a file rewritten within one tick of
// the time recorded could keep it; one older than that cannot keep it through
// any later write, which must happen after this call. nullopt otherwise.
std::optional<ModuleFileIdentity> settledModuleFileIdentity(const std::string& path);

struct AotRequest {
  std::string_view wasmBytes;  // not copied: the caller keeps the module alive
  std::string displayName;    // used in diagnostics and progress lines
  bool showProgress = false;  // one line on stderr before a cold compile
  // The identity of the file the bytes were read from, taken before they
  // were read and unchanged after: the object is then also recorded under it.
  std::optional<ModuleFileIdentity> file;
};

// Returns the path of the shared object, or nullopt with a one-line `error`.
std::optional<std::string> compileToSharedObject(const AotRequest& request, std::string& error);

// The object an earlier compileToSharedObject recorded for a file of this
// identity (verified by the cache like any object), or nullopt: then read the
// file and compile it. A warm start so neither reads nor hashes the module.
std::optional<std::string> findCompiledModuleFile(const ModuleFileIdentity& file);

}  // namespace synergy::granule
