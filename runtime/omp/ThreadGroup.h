//===- ThreadGroup.h - the thread granules of one process ------------------===//
//
// A process that uses OpenMP or pthreads runs as one root granule plus thread
// granules: instances of the same module over the root's memory (or, with
// --dsm, over replicas of it: DsmTeam, DsmHub). The ThreadGroup is what they
// share: the libc lock that SerializeLibc put around malloc and stdio, the way
// to give a new thread granule its stack and TLS block out of the guest's own
// heap, the --dsm switch and, once a pthread exists, the --dsm hub.
//
// Every granule of the group carries a ThreadMember extension naming the
// group and the granule's own ids; OpenMP and pthreads hang their per-thread
// state beside it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <pthread.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "granule/Granule.h"

namespace synergy::omp {

class DsmHub;
class OmpRuntime;
class PthreadRuntime;

// A thread granule with the guest memory it owns (released by its spawner).
struct ThreadGranule {
  std::unique_ptr<granule::Granule> granule;
  uint32_t stackBlock = 0;  // guest malloc'd: stack, then the TLS block
  uint32_t stackTop = 0;    // 16-byte aligned
};

// Guest memory for a thread: a stack, then its TLS block.
struct ThreadBlock {
  uint32_t block = 0;     // guest malloc'd
  uint32_t stackTop = 0;  // 16-byte aligned
  uint32_t tlsBlock = 0;
};

// Allocates a ThreadBlock with a stack of `stackBytes` by running the guest's
// malloc in `parent`; traps it when the guest heap is exhausted.
ThreadBlock allocateThreadBlock(granule::Granule& parent, uint32_t stackBytes);
// Initialises `thread`'s TLS block at `tlsBlock` from the module's TLS image
// and points the thread's __tls_base at it.
void initialiseThreadTls(granule::Granule& thread, uint32_t tlsBlock);

class ThreadGroup {
 public:
  explicit ThreadGroup(granule::Granule& root);
  ~ThreadGroup();

  granule::Granule& root() { return root_; }

  // A new thread granule of `parent`, with a stack of `stackBytes` and its
  // own TLS block initialised from the module's TLS image. Guest memory is
  // allocated by running the guest's malloc in `parent`.
  ThreadGranule spawn(granule::Granule& parent, uint32_t stackBytes);
  // Returns a thread granule's stack and TLS block to the guest heap, by
  // running the guest's free in `caller`.
  void release(granule::Granule& caller, ThreadGranule& thread);

  // Global thread ids: 0 is the root.
  int nextThreadId() { return nextThreadId_.fetch_add(1); }

  // The lock SerializeLibc wraps around libc (recursive: wrapped functions
  // call each other).
  void lockLibc(granule::Granule& caller);
  void unlockLibc(granule::Granule& caller);
  // What lockLibc takes; a thread host's threads take it through the main
  // host (omp/HostSyncService.h).
  std::recursive_mutex& libcLock() { return libcLock_; }

  // --dsm: OpenMP teams and pthreads run on replicas and meet through diffs.
  bool dsm() const { return dsm_; }
  void setDsm(bool dsm) { dsm_ = dsm; }
  // The hub pthreads meet in (DsmHub.h), made by the first pthread_create
  // under --dsm; `creator` must be the root, outside any --dsm team. Once it
  // exists every thread of the process is one of its participants.
  DsmHub& dsmHub(granule::Granule& creator);
  // nullptr until the first pthread_create under --dsm.
  DsmHub* existingDsmHub() const { return dsmHub_.load(std::memory_order_acquire); }

  // The process's OpenMP and pthreads runtimes, created on first use.
  OmpRuntime& openmp();
  PthreadRuntime& pthreads();
  // Whether a pthread has started and not finished yet.
  bool pthreadsRunning();
  // Whether a pthread may still use the group (PthreadRuntime::outliveRun).
  bool pthreadsOutliveRun();

 private:
  granule::Granule& root_;
  std::atomic<int> nextThreadId_{1};
  std::recursive_mutex libcLock_;
  bool dsm_ = false;
  std::mutex runtimesLock_;
  // Outlives the runtimes, whose threads run on its replicas. Made by the
  // root only, so it needs no lock.
  std::unique_ptr<DsmHub> ownedDsmHub_;
  std::atomic<DsmHub*> dsmHub_{nullptr};
  std::unique_ptr<OmpRuntime> openmp_;
  std::unique_ptr<PthreadRuntime> pthreads_;
};

// Per-granule: which group it belongs to and who it is.
class ThreadMember : public granule::HostExtension {
 public:
  explicit ThreadMember(granule::Granule& granule);

  granule::Granule& granule() { return granule_; }
  // The root's group is created on first use; thread granules are adopted.
  ThreadGroup& group();
  int threadId() const { return threadId_; }

  // Makes `thread` a member of this granule's group.
  void adopt(granule::Granule& thread, int threadId);

  // The root's pthreads that still run, or are detached and may not have
  // left the runtime yet (PthreadRuntime::outliveRun).
  bool threadsOutliveRun() override;

 private:
  granule::Granule& granule_;
  std::unique_ptr<ThreadGroup> ownedGroup_;  // the root's
  ThreadGroup* group_ = nullptr;
  int threadId_ = 0;
};

// Calls guest function `index` of the granule's function table with the
// given i32 arguments, in that granule's instance (so in its memory and with
// its globals). Traps the granule, as call_indirect would, if the slot is
// empty or out of range or its function's wasm type is not one i32
// parameter per argument with no result (callTableFunction) or one i32
// result (callTableFunctionU32).
void callTableFunction(granule::Granule& granule, uint32_t index,
                       std::span<const uint32_t> arguments);
uint32_t callTableFunctionU32(granule::Granule& granule, uint32_t index,
                              std::span<const uint32_t> arguments);
inline void callTableFunction(granule::Granule& granule, uint32_t index,
                              std::initializer_list<uint32_t> arguments) {
  callTableFunction(granule, index, std::span<const uint32_t>(arguments.begin(), arguments.size()));
}
inline uint32_t callTableFunctionU32(granule::Granule& granule, uint32_t index,
                                     std::initializer_list<uint32_t> arguments) {
  return callTableFunctionU32(granule, index,
                              std::span<const uint32_t>(arguments.begin(), arguments.size()));
}

// The guest's own malloc and free (serialised by SerializeLibc), run in
// `granule`. guestMalloc returns 0 when the guest heap is exhausted.
uint32_t guestMalloc(granule::Granule& granule, uint32_t bytes);
void guestFree(granule::Granule& granule, uint32_t block);

// Memory synchronisation at a synchronisation point of the program (a no-op
// unless the granule runs under --dsm).
inline void releaseMemory(granule::Granule& granule) {
  if (auto* sync = granule.memorySync()) sync->release();
}
inline void acquireMemory(granule::Granule& granule) {
  if (auto* sync = granule.memorySync()) sync->acquire();
}

// Starts a joinable host thread running `body`, with a native stack large
// enough for deep guest recursion (AOT code recurses on the host stack).
// Returns false when the system refuses.
bool startHostThread(pthread_t& handle, std::function<void()> body);

// A thread granule that trapped or called exit() ends the process, as a
// crashing or exiting thread would: other threads may wait for it forever.
// What the job writes at its end is written first (granule/ProcessEnd.h).
[[noreturn]] void endProcessFromThread(const granule::RunResult& result);

// Sets the guest stack pointer; returns the previous value.
uint32_t exchangeStackPointer(granule::Granule& granule, uint32_t stackPointer);

}  // namespace synergy::omp
