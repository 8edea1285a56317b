//===- ThreadGroup.cpp - the thread granules of one process ----------------===//
#include "omp/ThreadGroup.h"

#include "granule/ProcessEnd.h"

#include <ffi.h>
#include <wasm-rt.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "granule/WasmRuntime.h"
#include "omp/DsmHub.h"
#include "omp/Pthreads.h"
#include "omp/RemotePthreads.h"
#include "omp/Team.h"
#include "omp/ThreadHostSync.h"

namespace synergy::omp {
namespace {

using granule::Granule;

// Calls with up to this many arguments go through a direct call of the
// matching C type; longer ones (an outlined parallel region takes one
// parameter per shared variable, so there is no natural bound) are built by
// libffi at run time.
constexpr size_t kDirectCallArguments = 16;

template <typename Result, size_t... I>
Result callWithArray(void* function, void* instance, const std::array<uint32_t, sizeof...(I)>& a,
                     std::index_sequence<I...>) {
  using Fn = Result (*)(void*, decltype(I, uint32_t())...);
  return reinterpret_cast<Fn>(function)(instance, a[I]...);
}

template <typename Result, size_t N>
Result callArity(void* function, void* instance, std::span<const uint32_t> arguments) {
  std::array<uint32_t, N> a{};
  std::copy(arguments.begin(), arguments.end(), a.begin());
  return callWithArray<Result>(function, instance, a, std::make_index_sequence<N>());
}

template <typename Result, size_t... N>
Result dispatchArity(void* function, void* instance, std::span<const uint32_t> arguments,
                     std::index_sequence<N...>) {
  Result (*const callers[])(void*, void*, std::span<const uint32_t>) = {
      &callArity<Result, N>...};
  return callers[arguments.size()](function, instance, arguments);
}

// A function-table entry, checked, with the instance to call it in.
struct CheckedTableEntry {
  void* function;
  void* instance;
};

// wasm2c's C signature of a guest function of i32 parameters: the instance
// pointer, then one uint32_t per parameter.
template <typename Result>
Result callThroughFfi(Granule& granule, const CheckedTableEntry& entry,
                      std::span<const uint32_t> arguments) {
  void* instance = entry.instance;
  std::vector<ffi_type*> types(arguments.size() + 1, &ffi_type_uint32);
  types[0] = &ffi_type_pointer;
  std::vector<void*> values(arguments.size() + 1);
  values[0] = &instance;
  for (size_t i = 0; i < arguments.size(); ++i)
    values[i + 1] = const_cast<uint32_t*>(&arguments[i]);
  ffi_cif cif;
  ffi_type* result = std::is_void_v<Result> ? &ffi_type_void : &ffi_type_uint32;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, unsigned(types.size()), result, types.data()) != FFI_OK)
    granule.trap("cannot build a call of " + std::to_string(arguments.size()) + " arguments");
  ffi_arg returned = 0;
  ffi_call(&cif, FFI_FN(entry.function), &returned, values.data());
  if constexpr (!std::is_void_v<Result>) return Result(returned);
}

// A table entry checked the way call_indirect checks it: present, and of
// the wasm type the call assumes (i32 parameters, one per argument; an i32
// result or none). A microtask, combiner or thread function taken from guest
// memory can be any index, so a mismatch traps instead of calling a C
// function through the wrong prototype.
// i32FunctionType, remembered for the arities calls use most, since it
// takes the process-wide type lock and every microtask and task passes here.
uint32_t expectedFunctionType(size_t arguments, bool returnsI32) {
  constexpr size_t kRemembered = 64;
  // Index + 1, so that 0 means not looked up yet.
  static std::atomic<uint32_t> remembered[2][kRemembered];
  if (arguments >= kRemembered) return granule::i32FunctionType(uint32_t(arguments), returnsI32);
  std::atomic<uint32_t>& slot = remembered[returnsI32][arguments];
  uint32_t known = slot.load(std::memory_order_relaxed);
  if (known) return known - 1;
  uint32_t type = granule::i32FunctionType(uint32_t(arguments), returnsI32);
  slot.store(type + 1, std::memory_order_relaxed);
  return type;
}

CheckedTableEntry tableEntry(Granule& granule, uint32_t index, size_t arguments, bool returnsI32) {
  wasm_rt_funcref_table_t* table = granule.module().table(granule.instance());
  if (!table || index >= table->size || !table->data[index].func)
    granule.trap("call to an empty or out-of-range function table slot " + std::to_string(index));
  const wasm_rt_funcref_t& entry = table->data[index];
  if (entry.func_type != expectedFunctionType(arguments, returnsI32))
    granule.trap("function table slot " + std::to_string(index) +
                 " does not hold a function of " + std::to_string(arguments) + " i32 parameters" +
                 (returnsI32 ? " returning i32" : " without a result"));
  return {reinterpret_cast<void*>(entry.func), entry.module_instance};
}

template <typename Result>
Result callGuestFunction(Granule& granule, uint32_t index, std::span<const uint32_t> arguments) {
  CheckedTableEntry entry =
      tableEntry(granule, index, arguments.size(), !std::is_void_v<Result>);
  if (arguments.size() > kDirectCallArguments)
    return callThroughFfi<Result>(granule, entry, arguments);
  return dispatchArity<Result>(entry.function, entry.instance, arguments,
                               std::make_index_sequence<kDirectCallArguments + 1>());
}

uint32_t callExport(Granule& granule, const char* name, uint32_t argument) {
  using Fn = uint32_t (*)(void*, uint32_t);
  auto function = reinterpret_cast<Fn>(granule.module().exportedFunction(name));
  if (!function) granule.trap(std::string("module does not export ") + name);
  return function(granule.instance(), argument);
}

}  // namespace

void callTableFunction(Granule& granule, uint32_t index, std::span<const uint32_t> arguments) {
  callGuestFunction<void>(granule, index, arguments);
}

uint32_t callTableFunctionU32(Granule& granule, uint32_t index,
                              std::span<const uint32_t> arguments) {
  return callGuestFunction<uint32_t>(granule, index, arguments);
}

uint32_t guestMalloc(Granule& granule, uint32_t bytes) {
  return callExport(granule, "__synergy_malloc", bytes);
}

void guestFree(Granule& granule, uint32_t block) { callExport(granule, "__synergy_free", block); }

bool startHostThread(pthread_t& handle, std::function<void()> body) {
  constexpr size_t kHostStackBytes = 64u << 20;
  auto* start = new std::function<void()>(std::move(body));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kHostStackBytes);
  int status = pthread_create(
      &handle, &attr,
      [](void* argument) -> void* {
        std::unique_ptr<std::function<void()>> run(static_cast<std::function<void()>*>(argument));
        (*run)();
        return nullptr;
      },
      start);
  pthread_attr_destroy(&attr);
  if (status != 0) delete start;
  return status == 0;
}

void endProcessFromThread(const granule::RunResult& result) {
  std::fflush(stdout);
  if (result.kind == granule::RunResult::Kind::Trapped) {
    std::fprintf(stderr, "trap: %s in %s\n", result.trapReason.c_str(),
                 result.trapFunction.c_str());
    std::fflush(stderr);
    granule::endProcess(134);
  }
  granule::endProcess(result.exitCode);
}

uint32_t exchangeStackPointer(Granule& granule, uint32_t stackPointer) {
  uint32_t previous = 0;
  if (!granule.readGlobal32("__stack_pointer", previous) ||
      !granule.writeGlobal32("__stack_pointer", stackPointer))
    granule.trap("module has no __stack_pointer global");
  return previous;
}

ThreadGroup::ThreadGroup(Granule& root) : root_(root) {}

ThreadGroup::~ThreadGroup() = default;

OmpRuntime& ThreadGroup::openmp() {
  std::lock_guard guard(runtimesLock_);
  if (!openmp_) openmp_ = std::make_unique<OmpRuntime>(*this);
  return *openmp_;
}

PthreadRuntime& ThreadGroup::pthreads() {
  std::lock_guard guard(runtimesLock_);
  if (!pthreads_) pthreads_ = std::make_unique<PthreadRuntime>(*this);
  return *pthreads_;
}

bool ThreadGroup::pthreadsRunning() {
  std::lock_guard guard(runtimesLock_);
  return pthreads_ && pthreads_->anyRunning();
}

bool ThreadGroup::pthreadsOutliveRun() {
  std::lock_guard guard(runtimesLock_);
  return pthreads_ && pthreads_->outliveRun();
}

DsmHub& ThreadGroup::dsmHub(Granule& creator) {
  if (DsmHub* hub = existingDsmHub()) return *hub;
  // A team's threads and their encountering thread already run on replicas
  // of a main copy of their own, which cannot become a hub participant.
  if (&creator != &root_ || creator.memorySync())
    creator.trap("--dsm: the first pthread_create must come from the main thread, outside "
                 "parallel regions");
  // Only the root gets here, so nothing races to make the hub.
  ownedDsmHub_ = std::make_unique<DsmHub>(creator);
  dsmHub_.store(ownedDsmHub_.get(), std::memory_order_release);
  return *ownedDsmHub_;
}

ThreadBlock allocateThreadBlock(Granule& parent, uint32_t stackBytes) {
  uint32_t tlsSize = 0, tlsAlign = 0;
  if (!parent.readGlobal32("__tls_size", tlsSize) || !parent.readGlobal32("__tls_align", tlsAlign))
    parent.trap("module has no __tls_size/__tls_align (build it with synergy-cc -pthread or -fopenmp)");
  tlsAlign = std::max<uint32_t>(tlsAlign, 16);
  stackBytes = (stackBytes + 15) & ~15u;
  ThreadBlock thread;
  thread.block = callExport(parent, "__synergy_malloc", stackBytes + tlsSize + tlsAlign);
  if (thread.block == 0) parent.trap("out of guest memory for a new thread's stack");
  thread.stackTop = (thread.block + stackBytes) & ~15u;
  thread.tlsBlock = (thread.stackTop + tlsAlign - 1) & ~(tlsAlign - 1);
  return thread;
}

void initialiseThreadTls(Granule& thread, uint32_t tlsBlock) {
  callExport(thread, "__synergy_init_tls", tlsBlock);
}

ThreadGranule ThreadGroup::spawn(Granule& parent, uint32_t stackBytes) {
  ThreadBlock block = allocateThreadBlock(parent, stackBytes);
  ThreadGranule thread;
  thread.stackBlock = block.block;
  thread.stackTop = block.stackTop;
  thread.granule = Granule::spawnThread(parent);
  // __wasm_init_tls sets the calling instance's __tls_base: run it in the
  // new granule so the parent's stays as it was.
  initialiseThreadTls(*thread.granule, block.tlsBlock);
  exchangeStackPointer(*thread.granule, thread.stackTop);
  return thread;
}

void ThreadGroup::release(Granule& caller, ThreadGranule& thread) {
  if (thread.stackBlock) callExport(caller, "__synergy_free", thread.stackBlock);
  thread.stackBlock = 0;
  thread.granule.reset();
}

void ThreadGroup::lockLibc(Granule& caller) {
  if (ThreadHostSync* remote = pthreadThreadHost(caller))
    return remote->lockLibc(caller.extension<PthreadSelf>().id);
  if (ThreadHostSync* remote = threadHostSyncOf(caller)) return remote->lockLibc(ompThread(caller));
  libcLock_.lock();
  if (auto* sync = caller.memorySync()) sync->acquire();
}

void ThreadGroup::unlockLibc(Granule& caller) {
  if (ThreadHostSync* remote = pthreadThreadHost(caller))
    return remote->unlockLibc(caller.extension<PthreadSelf>().id);
  if (ThreadHostSync* remote = threadHostSyncOf(caller))
    return remote->unlockLibc(ompThread(caller));
  if (auto* sync = caller.memorySync()) sync->release();
  libcLock_.unlock();
}

ThreadMember::ThreadMember(Granule& granule) : granule_(granule) {}

ThreadGroup& ThreadMember::group() {
  if (!group_) {
    ownedGroup_ = std::make_unique<ThreadGroup>(granule_);
    group_ = ownedGroup_.get();
  }
  return *group_;
}

bool ThreadMember::threadsOutliveRun() {
  return ownedGroup_ && ownedGroup_->pthreadsOutliveRun();
}

void ThreadMember::adopt(Granule& thread, int threadId) {
  ThreadMember& member = thread.extension<ThreadMember>();
  member.group_ = &group();
  member.threadId_ = threadId;
}

}  // namespace synergy::omp
