//===- WasmRuntime.h - what the wasm-rt implementation offers the runtime --===//
#pragma once

#include <wasm-rt.h>

#include "snapshot/LinearMemory.h"

namespace synergy::granule {

// The guard-page memory behind a wasm2c memory, or nullptr if unknown.
snapshot::LinearMemory* linearMemoryOf(const wasm_rt_memory_t* memory);

}  // namespace synergy::granule
