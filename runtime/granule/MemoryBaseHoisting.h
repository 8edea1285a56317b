//===- MemoryBaseHoisting.h - post-pass over wasm2c output -----------------===//
//
// wasm2c 1.0.32 reads `instance->memory.data` again for every load and store,
// because a store through a byte pointer may alias the instance struct. With
// guard-page memory the base never moves (growth maps pages in place), so
// each function can read it once into a `u8* const` local. Measured on a
// 640x640 DGEMM: 3.2x native before, 1.0x after (shared/DESIGN.md).
//
// The rewrite is textual and runs on the generated C before it is compiled:
//  - every function taking the module instance gets
//      `u8* const synergy_membase = instance-><memory>.data;`
//  - every `<load|store>(&instance-><memory>, addr...)` becomes
//      `<load|store>_at_base(synergy_membase, addr...)`
//  - the `_at_base` helpers are defined next to wasm2c's own, minus the empty
//    inline-asm barrier, which also blocks clang's loop vectorizer.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace synergy::granule {

// Rewrites `cSource` (wasm2c output for module `moduleName`, whose linear
// memory is the instance field `memoryField`). Returns false and leaves the
// source untouched when the expected wasm2c shapes are not found.
bool hoistMemoryBase(std::string& cSource, const std::string& moduleName,
                     const std::string& memoryField);

}  // namespace synergy::granule
