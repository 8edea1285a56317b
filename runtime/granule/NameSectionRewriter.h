//===- NameSectionRewriter.h - debug names in our own mangling -------------===//
//
// wasm2c turns the "name" custom section's names into C identifiers. The only
// names the runtime needs from it are function names (for trap reports) and
// global names (to find __stack_pointer and Asyncify's globals), so before
// wasm2c runs, the module is rewritten to carry exactly those, mangled by us
// to `[A-Za-z0-9_]`, and no other custom section: no byte of a debug name, of
// a producers or linking section, or of any other section wasm2c would parse
// on the side, reaches it unmangled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace synergy::granule {

// `module` must have passed checkWasmModule. Returns the module with every
// custom section dropped, except that the "name" section, if any, is replaced
// in place by one holding only its function and global maps, each name mangled
// (bytes outside [A-Za-z0-9_] become `_`, cut to 256 bytes; empty names go).
std::string rewriteNamesForWasm2c(std::string_view module);

}  // namespace synergy::granule
