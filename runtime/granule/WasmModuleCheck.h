//===- WasmModuleCheck.h - the trust boundary for .wasm input --------------===//
//
// A .wasm file is hostile input that ends up, through wasm2c, as C source
// compiled into the host process. wasm2c 1.0.32 writes import and export
// names unescaped inside C comments, so a name holding `*/` or a newline would
// become host code. checkWasmModule is the gate in front of every tool: it
// validates the binary's framing and every name that can reach generated C.
// It depends on the C++ standard library only, never throws, and allocates
// nothing that grows with the input, so a fuzzer can call it directly.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace synergy::granule {

// Returns a one-line reason when the module must be refused, or nullopt when
// it is acceptable. Accepted modules have:
//   - the wasm magic and version 1, and sections that are known, in order,
//     each at most once, and each inside the file;
//   - well-formed import and export sections whose every name passes
//     isSafeInterfaceName;
//   - a well-formed function- and global-name map in the "name" section, if
//     it has one (those names are rewritten by rewriteNamesForWasm2c before
//     wasm2c sees them, so any bytes are acceptable there).
// Code, types and everything else are left to wasm2c's own validator.
std::optional<std::string> checkWasmModule(std::string_view bytes);

// Whether an import module, import field or export name may appear in the
// generated C: 1 to 1024 bytes of letters, digits and `_ . $ -`. That is every
// name a C/C++ toolchain produces, and none of C's comment, string or
// preprocessor delimiters.
bool isSafeInterfaceName(std::string_view name);

// Whether the module `bytes` (already accepted by checkWasmModule) imports
// a field of `module` whose name starts with `prefix`; false for a
// malformed module.
bool importsNameStartingWith(std::string_view bytes, std::string_view module,
                             std::string_view prefix);

}  // namespace synergy::granule
