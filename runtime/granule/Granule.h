//===- Granule.h - one running wasm instance ------------------------------===//
//
// A granule is one thread or process of an application, running as one
// instance of an AOT-compiled wasm module. Host functions (WASI, and later
// MPI/OpenMP control points) receive the granule as the opaque import
// instance pointer that wasm2c passes to every imported function, and use
// this interface to reach guest memory and to end the granule.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "granule/AtomicAccess.h"
#include "granule/Module.h"
#include "sandbox/Grant.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/Snapshot.h"

namespace synergy::granule {

// A host directory the guest may see, mounted at guestPath (--dir).
using Preopen = sandbox::Grant;

struct GranuleConfig {
  std::vector<std::string> args;  // args[0] is the program name
  std::vector<std::string> env;   // "KEY=VALUE"
  std::vector<Preopen> preopens;
};

// How a granule's run ended.
struct RunResult {
  // Departed: the guest unwound at a control point and left this instance
  // for another (depart()); it neither exited nor trapped.
  enum class Kind { Exited, Trapped, Departed };
  Kind kind = Kind::Exited;
  int exitCode = 0;
  bool returned = false;     // the guest code returned: no proc_exit, no trap
  std::string trapReason;    // e.g. "out of bounds memory access"
  std::string trapFunction;  // wasm function name, or "<unknown>"
};

// Per-granule state owned by a host-function family (WASI, MPI, ...), created
// on first use. Lets upper modules hang state on a granule without the
// granule knowing about them.
class HostExtension {
 public:
  virtual ~HostExtension() = default;
  // Whether host threads this extension started may still use the granule,
  // or what the extension owns, after the granule's own run has ended
  // (detached pthreads): the granule must then not be destroyed under them.
  virtual bool threadsOutliveRun() { return false; }
};

// How guest memory stays coherent around an access other threads may race
// with (an atomic instruction, the libc lock). Threads that share one mapping
// need nothing; a --dsm replica synchronises with the main copy.
class MemorySync {
 public:
  virtual ~MemorySync() = default;
  // Before the access: this granule sees every change released before.
  virtual void acquire() = 0;
  // After it: this granule's changes become visible to later acquirers.
  virtual void release() = 0;
  // Identifies the memory the synchronising granules share (the same for
  // every replica of one main copy), where a host address cannot.
  virtual const void* domain() const = 0;
  // An atomic instruction on shared memory that no guest lock covers: done
  // in one place and order for every granule of the domain, seeing every
  // change released before it and released itself. `cell` is this
  // granule's view of the accessed bytes. Returns the cell's old value.
  virtual uint64_t performAtomic(const AtomicAccess& access, uint8_t* cell) = 0;
};

class Granule {
 public:
  Granule(std::shared_ptr<Module> module, GranuleConfig config);
  // A thread granule of `parent`: a new instance of the same module whose
  // globals and tables start as the parent's and whose memory is the
  // parent's. The caller gives it its own stack and TLS block.
  static std::unique_ptr<Granule> spawnThread(Granule& parent);
  ~Granule();
  Granule(const Granule&) = delete;
  Granule& operator=(const Granule&) = delete;

  // The wasm2c import-instance pointer handed to host functions is the granule.
  static Granule& fromHost(void* importInstance) {
    return *static_cast<Granule*>(importInstance);
  }

  // Creates the instance: memory, globals, tables, data. Idempotent. A trap
  // during instantiation (a data segment out of bounds) is reported in
  // `error`.
  bool instantiate(std::string& error);

  // Instantiates the module (once) and calls its `_start` export on the
  // calling thread; traps and proc_exit end up here, never in the host.
  // Deep guest recursion needs a large native stack (HostStack.h).
  RunResult runStart();
  // Runs `body` (which calls into this granule's guest code) on the calling
  // thread, turning traps and proc_exit into a RunResult.
  template <typename Body>
  RunResult run(Body&& body) {
    return runGuarded(
        [](void* context) { (*static_cast<std::remove_reference_t<Body>*>(context))(); }, &body);
  }

  // The value of a 32-bit wasm global, by name; false if there is none.
  bool readGlobal32(std::string_view name, uint32_t& value) const;
  bool writeGlobal32(std::string_view name, uint32_t value);

  // Puts this granule's instance on another memory with the same layout (a
  // --dsm replica). Guest code must not be running in it.
  void rebindMemory(snapshot::LinearMemory& memory);

  // The granule this thread granule was spawned from; null for a process.
  Granule* parent() const { return parent_; }

  MemorySync* memorySync() const { return memorySync_; }
  void setMemorySync(MemorySync* sync) { memorySync_ = sync; }

  // Memory plus every global (the stack pointer among them). The granule
  // must be instantiated and not running.
  std::unique_ptr<snapshot::Snapshot> captureSnapshot(std::string& error);
  // The raw bytes of every global, in the module's order (a snapshot's).
  std::vector<uint8_t> globalBytes() const;
  // Copy-on-write restore of memory, and the globals written back.
  bool restoreSnapshot(const snapshot::Snapshot& snap, std::string& error);

  // Suspension at a control point, through Asyncify. A host function that
  // wants the granule suspended first asks prepareUnwind() (which reserves
  // the unwind buffer), then calls beginUnwind() and returns: the wasm stack
  // unwinds into runStart(), which snapshots the granule, hands the snapshot
  // to the suspension handler (null, with `error` set, when it could not be
  // taken: the handler is called either way, since others may wait for it),
  // frees the instance, restores the snapshot into a fresh one and rewinds
  // it. The host function is then called again
  // with the same arguments; finishRewind() tells it so, and it returns its
  // first call's result without repeating the work.
  //
  // `resumesInPlace`, asked at each suspension before anything is copied,
  // may instead keep the instance: the handler then gets no snapshot (its
  // memory and globals are the granule's own, untouched until it returns)
  // and the granule rewinds where it is. A checkpoint, which copies what it
  // keeps itself, so saves copying the memory into a snapshot and the
  // copy-on-write fault of every page the guest writes after the rewind.
  using SuspensionHandler =
      std::function<bool(Granule&, const snapshot::Snapshot*, std::string& error)>;
  using ResumesInPlace = std::function<bool()>;
  void setSuspensionHandler(SuspensionHandler handler, ResumesInPlace resumesInPlace = {}) {
    suspensionHandler_ = std::move(handler);
    resumesInPlace_ = std::move(resumesInPlace);
  }
  // Whether the host function now running may unwind this granule; if not,
  // `why` says so in a sentence. Reserves the unwind buffer on first use.
  bool prepareUnwind(std::string& why);
  void beginUnwind();
  bool finishRewind();
  // Called by the suspension handler: the suspended guest leaves this
  // granule instead of rewinding (a live move, its state taken by the
  // handler), and runStart returns a Departed result.
  void depart() { departing_ = true; }
  // Times this granule has been rewound into a fresh instance.
  uint64_t rewindCount() const { return rewindCount_; }
  // The guest address of the unwind buffer, 0 before the first unwind.
  uint32_t unwindBufferAddress() const { return unwindBuffer_; }

  const GranuleConfig& config() const { return config_; }
  Module& module() { return *module_; }
  void* instance() { return instance_; }

  uint8_t* memoryBase() const;
  uint64_t memorySize() const;
  snapshot::LinearMemory* linearMemory() const { return memory_; }

  // Guest address -> host pointer, trapping the guest (OOB) when
  // [addr, addr+bytes) is not inside linear memory.
  uint8_t* guestBytes(uint64_t addr, uint64_t bytes);
  template <typename T>
  T* guestPtr(uint64_t addr, uint64_t count = 1) {
    return reinterpret_cast<T*>(guestBytes(addr, sizeof(T) * count));
  }

  // End the guest: proc_exit semantics. Unwinds to runStart.
  [[noreturn]] void exit(int code);
  // End the guest with a trap reported as `trap: <reason> in <function>`.
  [[noreturn]] void trap(const std::string& reason);

  // The granule's extension of type T, made on first use. Host functions
  // look theirs up on every call, so each extension type gets a small
  // process-wide index and the lookup is an array access. The array never
  // moves, so a reference stays good while another extension is made (an
  // extension's constructor may make others, and so may other threads).
  template <typename T>
  T& extension() {
    static const size_t index = nextExtensionIndex();
    auto& slot = extensions_[index];
    if (!slot) slot = std::make_unique<T>(*this);
    return static_cast<T&>(*slot);
  }
  // Whether an extension's host threads may still use this granule after
  // its run has ended (HostExtension::threadsOutliveRun).
  bool threadsOutliveRun();

 private:
  static size_t nextExtensionIndex();
  RunResult runGuarded(void (*body)(void*), void* context);
  uint32_t asyncifyState();
  // asyncify_stop_* take no argument, asyncify_start_* the buffer.
  void callAsyncify(const char* exportName);
  void callAsyncify(const char* exportName, uint32_t buffer);
  // After _start has returned from an unwind: snapshot, hand over, rewind
  // in a fresh instance (or in this one, see setSuspensionHandler). False
  // with `error` when that failed.
  bool resumeAfterUnwind(std::string& error);

  std::shared_ptr<Module> module_;
  GranuleConfig config_;
  void* instance_ = nullptr;  // the wasm2c instance struct
  bool instantiated_ = false;
  // A thread granule's instance shares memory and tables with its parent's,
  // so freeing them is the parent's business.
  bool ownsInstanceResources_ = true;
  void* threadTable_ = nullptr;  // a thread granule's own function table entries
  MemorySync* memorySync_ = nullptr;
  snapshot::LinearMemory* memory_ = nullptr;
  SuspensionHandler suspensionHandler_;
  ResumesInPlace resumesInPlace_;
  // Thread granules made from this one and not yet destroyed (an OpenMP
  // pool keeps its workers'): while there are any, code may run on this
  // memory outside this granule's stack, and it cannot be unwound.
  std::atomic<int> threadGranules_{0};
  Granule* parent_ = nullptr;
  uint32_t unwindBuffer_ = 0;
  uint64_t rewindCount_ = 0;
  bool departing_ = false;
  static constexpr size_t kMaxExtensionTypes = 16;
  std::array<std::unique_ptr<HostExtension>, kMaxExtensionTypes> extensions_;
};

}  // namespace synergy::granule
