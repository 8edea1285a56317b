//===- WasmRuntime.cpp - Synergy's implementation of the wasm-rt API -------===//
//
// wasm2c's generated code calls a small runtime API declared in wasm-rt.h.
// Debian's libwasm-rt-impl keeps one global jump buffer and gives only the
// initialising thread an alternate signal stack, which breaks granules on many
// threads; this implementation routes traps through GuestExecution
// (per-thread) and backs memories with snapshot::LinearMemory (guard pages
// around private memory). Function-type registration is process-wide and locked,
// because modules are instantiated from many threads.
//
//===----------------------------------------------------------------------===//
#include <wasm-rt.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "granule/GuestExecution.h"
#include "snapshot/LinearMemory.h"

using synergy::snapshot::LinearMemory;

namespace {

std::mutex gFuncTypesLock;
std::map<std::vector<int>, uint32_t> gFuncTypes;

// The index of `signature` (parameter count, result count, then their
// wasm_rt_type_t values), the same for every equal signature.
uint32_t registerFuncType(std::vector<int> signature) {
  std::lock_guard lock(gFuncTypesLock);
  auto [it, inserted] = gFuncTypes.emplace(std::move(signature), uint32_t(gFuncTypes.size()));
  return it->second;
}

std::mutex gMemoriesLock;
// wasm_rt_memory_t carries no spare field, so memories are found by base.
std::map<uint8_t*, LinearMemory*> gMemories;
// Every instance's wasm2c view of each memory (thread granules copy theirs),
// all kept current when any of them grows the memory.
std::multimap<uint8_t*, wasm_rt_memory_t*> gMemoryViews;

std::atomic<uint64_t> gMemoryLimitPages{UINT64_MAX};

// wasm2c's funcref and externref tables share one shape: data, max_size, size.
template <typename Table>
void allocateTable(Table* table, uint32_t elements, uint32_t maxElements) {
  using Element = std::remove_pointer_t<decltype(table->data)>;
  table->size = elements;
  table->max_size = maxElements;
  table->data = static_cast<Element*>(std::calloc(elements ? elements : 1, sizeof(Element)));
}

template <typename Table>
void freeTable(Table* table) {
  std::free(table->data);
  table->data = nullptr;
}

template <typename Table, typename Element>
uint32_t growTable(Table* table, uint32_t delta, Element init) {
  uint32_t oldSize = table->size;
  uint64_t newSize = uint64_t(oldSize) + delta;
  if (newSize > table->max_size) return UINT32_MAX;
  auto* data = static_cast<Element*>(std::realloc(table->data, newSize * sizeof(Element)));
  if (!data) return UINT32_MAX;
  for (uint64_t i = oldSize; i < newSize; ++i) data[i] = init;
  table->data = data;
  table->size = uint32_t(newSize);
  return oldSize;
}

// A noreturn call is often a function's last instruction, so its return
// address can lie past the function's end; one byte back is inside the call.
uintptr_t returnSite(void* returnAddress) { return reinterpret_cast<uintptr_t>(returnAddress) - 1; }

}  // namespace

namespace synergy::granule {

void setMemoryLimit(uint64_t bytes) {
  gMemoryLimitPages.store(bytes / synergy::snapshot::kWasmPageSize, std::memory_order_relaxed);
}

// The LinearMemory behind a wasm2c memory, or nullptr.
LinearMemory* linearMemoryOf(const wasm_rt_memory_t* memory) {
  std::lock_guard lock(gMemoriesLock);
  auto it = gMemories.find(memory->data);
  return it == gMemories.end() ? nullptr : it->second;
}

void registerLinearMemory(LinearMemory* memory) {
  std::lock_guard lock(gMemoriesLock);
  gMemories[memory->base()] = memory;
}

void unregisterLinearMemory(LinearMemory* memory) {
  std::lock_guard lock(gMemoriesLock);
  gMemories.erase(memory->base());
}

void addMemoryView(wasm_rt_memory_t* view) {
  std::lock_guard lock(gMemoriesLock);
  gMemoryViews.emplace(view->data, view);
}

void removeMemoryView(wasm_rt_memory_t* view) {
  std::lock_guard lock(gMemoriesLock);
  auto [first, last] = gMemoryViews.equal_range(view->data);
  for (auto it = first; it != last; ++it)
    if (it->second == view) {
      gMemoryViews.erase(it);
      return;
    }
}

uint32_t i32FunctionType(uint32_t params, bool returnsI32) {
  std::vector<int> signature{int(params), returnsI32 ? 1 : 0};
  signature.insert(signature.end(), params + (returnsI32 ? 1 : 0), WASM_RT_I32);
  return registerFuncType(std::move(signature));
}

void refreshMemoryView(wasm_rt_memory_t* view, const LinearMemory& memory) {
  view->pages = uint32_t(memory.pages());
  // A full 4 GiB memory does not fit the 32-bit size field; wasm2c only uses
  // it for explicit range checks, which guard-page mode compiles out.
  view->size = uint32_t(std::min<uint64_t>(memory.sizeBytes(), UINT32_MAX));
}

void refreshMemoryViews(const LinearMemory& memory) {
  std::lock_guard lock(gMemoriesLock);
  auto [first, last] = gMemoryViews.equal_range(memory.base());
  for (auto it = first; it != last; ++it) refreshMemoryView(it->second, memory);
}

}  // namespace synergy::granule

extern "C" {

#if WASM_RT_USE_STACK_DEPTH_COUNT
uint32_t wasm_rt_call_stack_depth;
#endif

void wasm_rt_init(void) { synergy::granule::prepareThreadForGuestCode(); }

bool wasm_rt_is_initialized(void) { return true; }

void wasm_rt_free(void) {}

void wasm_rt_trap(wasm_rt_trap_t trap) {
  synergy::granule::unwindGuestTrap(wasm_rt_strerror(trap),
                                    returnSite(__builtin_return_address(0)));
}

const char* wasm_rt_strerror(wasm_rt_trap_t trap) {
  switch (trap) {
    case WASM_RT_TRAP_NONE: return "no trap";
    case WASM_RT_TRAP_OOB: return "out of bounds memory access";
    case WASM_RT_TRAP_INT_OVERFLOW: return "integer overflow";
    case WASM_RT_TRAP_DIV_BY_ZERO: return "integer divide by zero";
    case WASM_RT_TRAP_INVALID_CONVERSION: return "invalid conversion to integer";
    case WASM_RT_TRAP_UNREACHABLE: return "unreachable executed";
    case WASM_RT_TRAP_CALL_INDIRECT: return "indirect call type mismatch or null entry";
    case WASM_RT_TRAP_UNCAUGHT_EXCEPTION: return "uncaught exception";
    case WASM_RT_TRAP_EXHAUSTION: return "call stack exhausted";
  }
  return "unknown trap";
}

uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...) {
  std::vector<int> signature{int(params), int(results)};
  va_list args;
  va_start(args, results);
  for (uint32_t i = 0; i < params + results; ++i) signature.push_back(va_arg(args, int));
  va_end(args);
  return registerFuncType(std::move(signature));
}

uint32_t wasm_rt_register_tag(uint32_t) {
  wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
}

void wasm_rt_load_exception(uint32_t, uint32_t, const void*) {
  wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION);
}

void wasm_rt_throw(void) { wasm_rt_trap(WASM_RT_TRAP_UNCAUGHT_EXCEPTION); }

WASM_RT_UNWIND_TARGET* wasm_rt_get_unwind_target(void) { return nullptr; }
void wasm_rt_set_unwind_target(WASM_RT_UNWIND_TARGET*) {}
uint32_t wasm_rt_exception_tag(void) { return 0; }
uint32_t wasm_rt_exception_size(void) { return 0; }
void* wasm_rt_exception(void) { return nullptr; }

void wasm_rt_allocate_memory(wasm_rt_memory_t* memory, uint32_t initialPages, uint32_t maxPages) {
  uint64_t limitPages = gMemoryLimitPages.load(std::memory_order_relaxed);
  if (initialPages > limitPages) {
    static thread_local std::string reason;
    reason = "the module's initial memory of " +
             std::to_string(uint64_t(initialPages) * synergy::snapshot::kWasmPageSize) +
             " bytes exceeds --max-memory (" +
             std::to_string(limitPages * synergy::snapshot::kWasmPageSize) + " bytes)";
    synergy::granule::unwindGuestTrap(reason.c_str(), 0);
  }
  auto* linear = new LinearMemory;
  std::string error;
  if (!linear->create(initialPages, maxPages, error)) {
    delete linear;
    synergy::granule::unwindGuestTrap("cannot allocate linear memory", 0);
  }
  memory->data = linear->base();
  memory->pages = initialPages;
  memory->max_pages = maxPages;
  memory->size = uint32_t(linear->sizeBytes());
  std::lock_guard lock(gMemoriesLock);
  gMemories[linear->base()] = linear;
}

uint32_t wasm_rt_grow_memory(wasm_rt_memory_t* memory, uint32_t deltaPages) {
  LinearMemory* linear = synergy::granule::linearMemoryOf(memory);
  if (!linear) return UINT32_MAX;
  // No overflow: a memory has at most 2^32 pages, and so has a step.
  if (linear->pages() + deltaPages > gMemoryLimitPages.load(std::memory_order_relaxed))
    return UINT32_MAX;
  int64_t oldPages = linear->grow(deltaPages);
  if (oldPages < 0) return UINT32_MAX;
  // The caller's view is registered only once instantiation has finished.
  synergy::granule::refreshMemoryView(memory, *linear);
  synergy::granule::refreshMemoryViews(*linear);
  return uint32_t(oldPages);
}

void wasm_rt_free_memory(wasm_rt_memory_t* memory) {
  LinearMemory* linear = nullptr;
  {
    std::lock_guard lock(gMemoriesLock);
    auto it = gMemories.find(memory->data);
    if (it == gMemories.end()) return;
    linear = it->second;
    gMemories.erase(it);
  }
  delete linear;
  memory->data = nullptr;
}

void wasm_rt_allocate_funcref_table(wasm_rt_funcref_table_t* table, uint32_t elements,
                                    uint32_t maxElements) {
  allocateTable(table, elements, maxElements);
}

void wasm_rt_free_funcref_table(wasm_rt_funcref_table_t* table) { freeTable(table); }

void wasm_rt_allocate_externref_table(wasm_rt_externref_table_t* table, uint32_t elements,
                                      uint32_t maxElements) {
  allocateTable(table, elements, maxElements);
}

void wasm_rt_free_externref_table(wasm_rt_externref_table_t* table) { freeTable(table); }

uint32_t wasm_rt_grow_funcref_table(wasm_rt_funcref_table_t* table, uint32_t delta,
                                    wasm_rt_funcref_t init) {
  return growTable(table, delta, init);
}

uint32_t wasm_rt_grow_externref_table(wasm_rt_externref_table_t* table, uint32_t delta,
                                      wasm_rt_externref_t init) {
  return growTable(table, delta, init);
}

void synergy_unresolved_import(const char* module, const char* name) {
  static thread_local std::string reason;
  reason = std::string("call to unresolved import ") + module + "." + name;
  synergy::granule::unwindGuestTrap(reason.c_str(),
                                    returnSite(__builtin_return_address(0)));
}

}  // extern "C"
