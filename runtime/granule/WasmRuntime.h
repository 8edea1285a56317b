//===- WasmRuntime.h - what the wasm-rt implementation offers the runtime --===//
#pragma once

#include <wasm-rt.h>

#include <cstdint>

#include "snapshot/LinearMemory.h"

namespace synergy::granule {

// Caps every linear memory of this process at `bytes` (rounded down to whole
// 64 KiB pages): memory.grow past it returns -1, as when a module's own
// maximum is reached, and a module that declares more initial memory traps
// while being instantiated. Each memory counts alone: an MPI rank's, and a
// --dsm replica's, which mirrors its main copy. Call before instantiation.
void setMemoryLimit(uint64_t bytes);

// The guard-page memory behind a wasm2c memory, or nullptr if unknown.
snapshot::LinearMemory* linearMemoryOf(const wasm_rt_memory_t* memory);

// Makes a memory the runtime did not allocate itself (a --dsm replica) known
// to linearMemoryOf, so guest code can grow it.
void registerLinearMemory(snapshot::LinearMemory* memory);
void unregisterLinearMemory(snapshot::LinearMemory* memory);

// Every instance's wasm2c view of a memory (thread granules copy the
// view): growing the memory through any view updates them all, since
// wasm2c's bulk-memory range checks read the view's size.
void addMemoryView(wasm_rt_memory_t* view);
void removeMemoryView(wasm_rt_memory_t* view);

// The index wasm_rt_register_func_type gives the wasm type of `params` i32
// parameters and either no result or one i32, for checking a function-table
// entry before a host-made call the way call_indirect would.
uint32_t i32FunctionType(uint32_t params, bool returnsI32);

// Sets a view's page count and size from the memory behind it.
void refreshMemoryView(wasm_rt_memory_t* view, const snapshot::LinearMemory& memory);
// The same for every view of `memory`, after it grew outside guest code.
void refreshMemoryViews(const snapshot::LinearMemory& memory);

}  // namespace synergy::granule
