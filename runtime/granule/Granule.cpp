//===- Granule.cpp - one running wasm instance -----------------------------===//
#include "granule/Granule.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "granule/GuestExecution.h"
#include "granule/TimeLimit.h"
#include "granule/WasmRuntime.h"

namespace synergy::granule {

namespace {

// Asyncify's states (asyncify_get_state).
constexpr uint32_t kAsyncifyUnwinding = 1;
constexpr uint32_t kAsyncifyRewinding = 2;

// The unwind buffer: Asyncify's two-word header (the position it has saved
// up to, and the end) followed by the saved locals of every frame between
// _start and the control point. 1 MiB holds thousands of frames; pages the
// unwind never writes stay zero, cost nothing and are left out of
// snapshots.
constexpr uint32_t kUnwindBufferPages = 16;
constexpr uint32_t kUnwindBufferBytes = kUnwindBufferPages * uint32_t(snapshot::kWasmPageSize);

}  // namespace

Granule::Granule(std::shared_ptr<Module> module, GranuleConfig config)
    : module_(std::move(module)), config_(std::move(config)) {
  instance_ = std::calloc(1, module_->instanceSize());
}

std::unique_ptr<Granule> Granule::spawnThread(Granule& parent) {
  auto thread = std::make_unique<Granule>(parent.module_, parent.config_);
  std::memcpy(thread->instance_, parent.instance_, parent.module_->instanceSize());
  thread->module_->setHost(thread->instance_, thread.get());
  // Table entries are closures over an instance: an indirect call in the
  // thread must run in the thread's instance (its stack pointer, its TLS),
  // so the thread gets its own copy of the table.
  if (wasm_rt_funcref_table_t* table = thread->module_->table(thread->instance_)) {
    auto* entries = static_cast<wasm_rt_funcref_t*>(
        std::malloc(std::max<size_t>(table->size, 1) * sizeof(wasm_rt_funcref_t)));
    if (!entries) parent.trap("out of host memory for a thread's function table");
    for (uint32_t i = 0; i < table->size; ++i) {
      entries[i] = table->data[i];
      if (entries[i].module_instance == parent.instance_)
        entries[i].module_instance = thread->instance_;
      else if (entries[i].module_instance == &parent)
        entries[i].module_instance = thread.get();  // an imported function
    }
    table->data = entries;
    thread->threadTable_ = entries;
  }
  thread->instantiated_ = true;
  thread->ownsInstanceResources_ = false;
  thread->parent_ = &parent;
  parent.threadGranules_.fetch_add(1);
  thread->memory_ = parent.memory_;
  thread->memorySync_ = parent.memorySync_;
  addMemoryView(thread->module_->memory(thread->instance_));
  return thread;
}

size_t Granule::nextExtensionIndex() {
  static std::atomic<size_t> next{0};
  size_t index = next.fetch_add(1);
  if (index >= kMaxExtensionTypes) {
    std::fprintf(stderr, "synergy: more than %zu granule extension types\n", kMaxExtensionTypes);
    std::abort();
  }
  return index;
}

Granule::~Granule() {
  if (parent_) parent_->threadGranules_.fetch_sub(1);
  // Latest first: an extension may use those that existed when it was made.
  for (size_t i = kMaxExtensionTypes; i-- > 0;) extensions_[i].reset();
  if (instantiated_) removeMemoryView(module_->memory(instance_));
  if (instantiated_ && ownsInstanceResources_) module_->freeInstance(instance_);
  std::free(threadTable_);
  std::free(instance_);
}

bool Granule::threadsOutliveRun() {
  for (const std::unique_ptr<HostExtension>& extension : extensions_)
    if (extension && extension->threadsOutliveRun()) return true;
  return false;
}

uint8_t* Granule::memoryBase() const { return memory_ ? memory_->base() : nullptr; }

uint64_t Granule::memorySize() const { return memory_ ? memory_->sizeBytes() : 0; }

bool Granule::readGlobal32(std::string_view name, uint32_t& value) const {
  const GlobalSlot* slot = module_->global(name);
  if (!slot || slot->size != 4) return false;
  std::memcpy(&value, static_cast<uint8_t*>(instance_) + slot->offset, 4);
  return true;
}

bool Granule::writeGlobal32(std::string_view name, uint32_t value) {
  const GlobalSlot* slot = module_->global(name);
  if (!slot || slot->size != 4) return false;
  std::memcpy(static_cast<uint8_t*>(instance_) + slot->offset, &value, 4);
  return true;
}

void Granule::rebindMemory(snapshot::LinearMemory& memory) {
  wasm_rt_memory_t* view = module_->memory(instance_);
  removeMemoryView(view);
  view->data = memory.base();
  refreshMemoryView(view, memory);
  addMemoryView(view);
  memory_ = &memory;
}

uint8_t* Granule::guestBytes(uint64_t addr, uint64_t bytes) {
  // Host functions may run while the instance is still being created (an
  // atomic in the start function), before instantiate() has recorded it.
  if (!memory_ && instance_) memory_ = linearMemoryOf(module_->memory(instance_));
  if (addr > memorySize() || bytes > memorySize() - addr) trap("out of bounds memory access");
  return memoryBase() + addr;
}

void Granule::exit(int code) { unwindGuestExit(code); }

void Granule::trap(const std::string& reason) {
  static thread_local std::string message;
  message = reason;
  // Traps raised by host functions have no wasm function of their own.
  unwindGuestTrap(message.c_str(), 0);
}

bool Granule::instantiate(std::string& error) {
  if (instantiated_) return true;
  prepareThreadForGuestCode();
  // The module's start function is guest code too.
  startTimeLimitClock();
  GuestExecution execution;
  execution.codeBegin = module_->codeBegin();
  execution.codeEnd = module_->codeEnd();
  GuestExecution* previous = enterGuestExecution(&execution);
  bool ok = sigsetjmp(execution.jumpBuffer, 1) == GuestExecution::Running;
  if (ok) {
    module_->instantiate(instance_, this);
    instantiated_ = true;
    memory_ = linearMemoryOf(module_->memory(instance_));
    addMemoryView(module_->memory(instance_));
  } else {
    error = std::string("instantiation trapped: ") +
            (execution.trapReason ? execution.trapReason : "trap");
  }
  leaveGuestExecution(previous);
  return ok;
}

RunResult Granule::runStart() {
  RunResult result;
  using StartFn = void (*)(void*);
  auto start = reinterpret_cast<StartFn>(module_->exportedFunction("_start"));
  if (!start) {
    result.kind = RunResult::Kind::Trapped;
    result.trapReason = "module has no _start export";
    result.trapFunction = "<module>";
    return result;
  }
  std::string error;
  if (!instantiate(error)) {
    result.kind = RunResult::Kind::Trapped;
    result.trapReason = error;
    result.trapFunction = "<instantiation>";
    return result;
  }
  // An unwound _start returns like a finished one; it is resumed and
  // called again until it ends for real.
  for (;;) {
    RunResult result = run([&] { start(instance_); });
    if (!result.returned || asyncifyState() != kAsyncifyUnwinding) return result;
    if (!resumeAfterUnwind(error)) {
      result.kind = RunResult::Kind::Trapped;
      result.trapReason = "cannot resume after suspending at a control point: " + error;
      result.trapFunction = "<control point>";
      return result;
    }
    if (departing_) {
      result.kind = RunResult::Kind::Departed;
      return result;
    }
  }
}

uint32_t Granule::asyncifyState() {
  using GetStateFn = uint32_t (*)(void*);
  auto getState = reinterpret_cast<GetStateFn>(module_->exportedFunction("asyncify_get_state"));
  return getState ? getState(instance_) : 0;
}

void Granule::callAsyncify(const char* exportName) {
  reinterpret_cast<void (*)(void*)>(module_->exportedFunction(exportName))(instance_);
}

void Granule::callAsyncify(const char* exportName, uint32_t buffer) {
  reinterpret_cast<void (*)(void*, uint32_t)>(module_->exportedFunction(exportName))(instance_,
                                                                                     buffer);
}

bool Granule::prepareUnwind(std::string& why) {
  if (!ownsInstanceResources_ || memorySync_ || threadGranules_.load() > 0) {
    why = "a granule that shares its memory with threads cannot be unwound";
    return false;
  }
  for (const char* name : {"asyncify_start_unwind", "asyncify_stop_unwind",
                           "asyncify_start_rewind", "asyncify_stop_rewind",
                           "asyncify_get_state"}) {
    if (!module_->exportedFunction(name)) {
      why = std::string("the module does not export ") + name + " (not built by synergy-cc?)";
      return false;
    }
  }
  // An invoke_* trampoline (a call in a function that calls setjmp, or one
  // that may throw into a C++ landing pad) is a host frame between two wasm
  // frames, and Asyncify unwinds wasm frames only.
  if (GuestExecution* execution = currentGuestExecution(); execution && execution->setjmpFrames) {
    why = "the control point was reached inside an invoke_* call (setjmp/longjmp and C++ "
          "exception emulation), whose host frame cannot be unwound";
    return false;
  }
  if (!unwindBuffer_) {
    // Pages grown by the host lie past everything the guest's allocator
    // has taken, and sbrk never hands out memory it did not grow itself,
    // so nothing else in the guest ever uses them.
    uint32_t oldPages = wasm_rt_grow_memory(module_->memory(instance_), kUnwindBufferPages);
    if (oldPages == UINT32_MAX || oldPages + kUnwindBufferPages > snapshot::kMaxWasm32Pages - 1) {
      why = "no room is left in linear memory for the unwind buffer";
      return false;
    }
    unwindBuffer_ = oldPages * uint32_t(snapshot::kWasmPageSize);
  }
  return true;
}

void Granule::beginUnwind() {
  uint32_t header[2] = {unwindBuffer_ + 8, unwindBuffer_ + kUnwindBufferBytes};
  std::memcpy(guestBytes(unwindBuffer_, sizeof header), header, sizeof header);
  callAsyncify("asyncify_start_unwind", unwindBuffer_);
}

bool Granule::finishRewind() {
  if (!unwindBuffer_ || asyncifyState() != kAsyncifyRewinding) return false;
  callAsyncify("asyncify_stop_rewind");
  return true;
}

bool Granule::resumeAfterUnwind(std::string& error) {
  callAsyncify("asyncify_stop_unwind");
  if (resumesInPlace_ && resumesInPlace_()) {
    if (suspensionHandler_ && !suspensionHandler_(*this, nullptr, error)) return false;
    if (departing_) return true;
    callAsyncify("asyncify_start_rewind", unwindBuffer_);
    return true;
  }
  std::unique_ptr<snapshot::Snapshot> snap = captureSnapshot(error);
  if (suspensionHandler_ && !suspensionHandler_(*this, snap.get(), error)) return false;
  if (!snap) return false;
  // A fresh instance, as on another host: nothing of the old one survives
  // but what the snapshot holds (host-side state lives in the extensions).
  removeMemoryView(module_->memory(instance_));
  module_->freeInstance(instance_);
  std::memset(instance_, 0, module_->instanceSize());
  instantiated_ = false;
  memory_ = nullptr;
  if (!instantiate(error) || !restoreSnapshot(*snap, error)) return false;
  callAsyncify("asyncify_start_rewind", unwindBuffer_);
  ++rewindCount_;
  return true;
}

RunResult Granule::runGuarded(void (*body)(void*), void* context) {
  RunResult result;
  prepareThreadForGuestCode();
  GuestExecution execution;
  execution.memory = memory_;
  execution.codeBegin = module_->codeBegin();
  execution.codeEnd = module_->codeEnd();
  GuestExecution* previous = enterGuestExecution(&execution);
  int outcome = sigsetjmp(execution.jumpBuffer, 1);
  if (outcome == GuestExecution::Running) {
    body(context);
    result.kind = RunResult::Kind::Exited;
    result.exitCode = 0;
    result.returned = true;
  } else if (outcome == GuestExecution::Exited) {
    result.kind = RunResult::Kind::Exited;
    result.exitCode = execution.exitCode;
  } else {
    result.kind = RunResult::Kind::Trapped;
    result.trapReason = execution.trapReason ? execution.trapReason : "trap";
    result.trapFunction =
        execution.trapPc ? module_->functionNameAt(execution.trapPc) : "<host function>";
  }
  leaveGuestExecution(previous);
  return result;
}

std::unique_ptr<snapshot::Snapshot> Granule::captureSnapshot(std::string& error) {
  if (!memory_) {
    error = "granule is not instantiated";
    return nullptr;
  }
  return snapshot::Snapshot::capture(*memory_, globalBytes(), error);
}

std::vector<uint8_t> Granule::globalBytes() const {
  std::vector<uint8_t> globals;
  auto* base = static_cast<const uint8_t*>(instance_);
  for (const auto& slot : module_->globals())
    globals.insert(globals.end(), base + slot.offset, base + slot.offset + slot.size);
  return globals;
}

bool Granule::restoreSnapshot(const snapshot::Snapshot& snap, std::string& error) {
  if (!memory_) {
    error = "granule is not instantiated";
    return false;
  }
  size_t expected = 0;
  for (const auto& slot : module_->globals()) expected += slot.size;
  if (snap.globals().size() != expected) {
    error = "snapshot globals do not match this module";
    return false;
  }
  if (!snap.restoreInto(*memory_)) {
    error = "cannot map snapshot memory";
    return false;
  }
  refreshMemoryView(module_->memory(instance_), *memory_);
  auto* base = static_cast<uint8_t*>(instance_);
  size_t at = 0;
  for (const auto& slot : module_->globals()) {
    std::memcpy(base + slot.offset, snap.globals().data() + at, slot.size);
    at += slot.size;
  }
  return true;
}

}  // namespace synergy::granule
