//===- ProcessTable.cpp - fork(), waitpid() and process ids for granules ---===//
//
// The host side of guestlib/Fork.c, Wait.c and ProcessIds.c. fork unwinds
// its caller and does its work in the granule's suspension handler, where
// the stack is unwound and the whole guest state lies in memory and the
// globals: a copy of that is the child. The parent rewinds in place; the child is a fresh instance of the
// same module given that copy and the same unwind buffer, which it rewinds
// from as a resumed checkpoint's rank does (checkpoint/RankMove.cpp). Both
// then return from the call with what fork left on each side.
//
// A child's table entry outlives its run until its parent reaps it, or until
// waitForForkedProcesses ends the process. The child's snapshot lives as
// long as its granule, whose memory is a copy-on-write view of it.
//
//===----------------------------------------------------------------------===//
#include "process/ProcessTable.h"

#include <fcntl.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "granule/Granule.h"
#include "granule/HostStack.h"
#include "granule/Module.h"
#include "snapshot/Snapshot.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiState.h"

namespace synergy::process {

namespace {

using granule::Granule;

constexpr int32_t kFirstGranuleId = 1;
constexpr uint32_t kWaitNoHang = 1;  // <sys/wait.h>'s WNOHANG
// What a trapped child's status reads as: killed by SIGABRT, the signal
// synergy-run's exit status 134 (128 + 6) names for a trapped guest.
constexpr int kTrappedStatus = 6;
constexpr uint64_t kPageBytes = 65536;

// Which process a granule is, whether it may fork, and what its fork
// returns there once it rewinds.
struct ProcessIdentity : granule::HostExtension {
  explicit ProcessIdentity(Granule&) {}
  bool served = false;
  bool forking = false;
  int32_t id = kFirstGranuleId;
  int32_t parentId = 0;
  int32_t forkResult = 0;
};

struct ForkedProcess {
  int32_t id = 0;
  int32_t parentId = 0;
  std::unique_ptr<snapshot::Snapshot> snapshot;  // backs the granule's memory
  std::unique_ptr<Granule> granule;
  std::thread thread;
  bool ended = false;
  int waitStatus = 0;  // Linux's encoding (<sys/wait.h>)
};

class ProcessTable {
 public:
  void serve(std::shared_ptr<granule::Module> module, size_t guestStackBytes) {
    std::lock_guard lock(mutex_);
    module_ = std::move(module);
    guestStackBytes_ = guestStackBytes;
  }

  // Makes `granule`'s suspensions forks.
  void serveGranule(Granule& granule);
  // Starts the child of `parent`, suspended at its fork; its id, or a
  // negative errno value when it could not be made.
  int32_t startChild(Granule& parent, std::string& why);
  // waitpid's answer (an id, 0 or a negative errno value) and, for an id,
  // the reaped child's status.
  int32_t wait(int32_t parentId, int32_t wanted, uint32_t options, int& status);
  void waitForAll();

 private:
  void run(ForkedProcess& child, uint32_t unwindBuffer);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<granule::Module> module_;
  size_t guestStackBytes_ = 0;
  int32_t lastId_ = kFirstGranuleId;
  std::vector<std::unique_ptr<ForkedProcess>> processes_;
};

ProcessTable& table() {
  static ProcessTable instance;
  return instance;
}

void ProcessTable::serveGranule(Granule& granule) {
  granule.extension<ProcessIdentity>().served = true;
  // fork's unwind is the only one such a granule makes; the parent goes on
  // in its own instance (resumes in place) whether or not a child was made.
  granule.setSuspensionHandler(
      [this](Granule& parent, const snapshot::Snapshot*, std::string& error) {
        ProcessIdentity& self = parent.extension<ProcessIdentity>();
        if (!self.forking) {
          error = "a process granule was suspended outside fork()";
          return false;
        }
        self.forking = false;
        std::string why;
        self.forkResult = startChild(parent, why);
        if (self.forkResult < 0)
          std::fprintf(stderr, "synergy-run: fork() failed: %s\n", why.c_str());
        return true;
      },
      [] { return true; });
}

// Gives `child` duplicates of `parent`'s open files under the same numbers,
// as fork() does: the host fds are duplicated, so the two share offsets and
// status flags (the host's stdio is shared as it is), and every right and
// mark is copied. A directory's stream is not: the child opens its own.
bool inheritDescriptors(wasi::WasiState& parent, wasi::WasiState& child, std::string& why) {
  for (uint32_t fd = child.end(); fd-- > 0;) child.close(fd);
  for (uint32_t fd = 0; fd < parent.end(); ++fd) {
    wasi::FileDescriptor* file = parent.find(fd);
    if (!file) continue;
    int hostFd = file->hostFd();
    if (!file->isHostStdio()) {
      hostFd = ::fcntl(hostFd, F_DUPFD_CLOEXEC, 0);
      if (hostFd < 0) {
        why = std::string("cannot duplicate an open file for the child: ") + std::strerror(errno);
        return false;
      }
    }
    wasi::FileDescriptor copy(hostFd, /*ownsHostFd=*/!file->isHostStdio());
    copy.restrictRights(file->rightsBase(), file->rightsInheriting());
    if (file->preopenName()) copy.setPreopenName(*file->preopenName());
    if (file->grant()) copy.setGrant(*file->grant());
    if (file->readOnly()) copy.makeReadOnly();
    if (file->isHostStdio()) copy.makeHostStdio();
    if (!child.insertAt(fd, std::move(copy))) {
      why = "the child's descriptor table cannot hold descriptor " + std::to_string(fd);
      return false;
    }
  }
  return true;
}

int32_t ProcessTable::startChild(Granule& parent, std::string& why) {
  auto child = std::make_unique<ForkedProcess>();
  child->snapshot = parent.captureSnapshot(why);
  if (!child->snapshot) return -ENOMEM;
  child->granule = std::make_unique<Granule>(module_, parent.config());
  // The parent's own thread reads its table; the child's is not running yet.
  if (!inheritDescriptors(parent.extension<wasi::WasiState>(),
                          child->granule->extension<wasi::WasiState>(), why))
    return -EMFILE;
  ProcessIdentity& parentIdentity = parent.extension<ProcessIdentity>();
  ProcessIdentity& identity = child->granule->extension<ProcessIdentity>();
  identity.parentId = child->parentId = parentIdentity.id;
  identity.forkResult = 0;
  serveGranule(*child->granule);
  uint32_t unwindBuffer = parent.unwindBufferAddress();

  std::lock_guard lock(mutex_);
  if (lastId_ == INT32_MAX) {
    why = "no process id is left";
    return -EAGAIN;
  }
  identity.id = child->id = ++lastId_;
  ForkedProcess& started = *child;
  try {
    started.thread = std::thread([this, &started, unwindBuffer] { run(started, unwindBuffer); });
  } catch (const std::system_error& failure) {
    why = std::string("cannot start a host thread for the child: ") + failure.what();
    return -EAGAIN;
  }
  processes_.push_back(std::move(child));
  return started.id;
}

// Makes `child`, instantiated, the suspended copy: the unwind buffer at the
// parent's address (host-grown pages right past the memory the guest had,
// so grow to there and let prepareUnwind take the same pages), then the
// snapshot's memory and globals, then a rewind from that buffer.
bool adoptSuspension(Granule& child, const snapshot::Snapshot& snap, uint32_t unwindBuffer,
                     std::string& error) {
  granule::Module& module = child.module();
  wasm_rt_memory_t* memory = module.memory(child.instance());
  uint64_t bufferPage = unwindBuffer / kPageBytes;
  if (unwindBuffer % kPageBytes || bufferPage < memory->pages ||
      (bufferPage > memory->pages &&
       wasm_rt_grow_memory(memory, uint32_t(bufferPage - memory->pages)) == UINT32_MAX)) {
    error = "the parent's unwind buffer does not fit a fresh instance's memory";
    return false;
  }
  std::string why;
  if (!child.prepareUnwind(why) || child.unwindBufferAddress() != unwindBuffer) {
    error = "the child's unwind buffer cannot take the parent's place" +
            (why.empty() ? std::string() : ": " + why);
    return false;
  }
  if (!child.restoreSnapshot(snap, error)) return false;
  auto startRewind = reinterpret_cast<void (*)(void*, uint32_t)>(
      module.exportedFunction("asyncify_start_rewind"));
  startRewind(child.instance(), unwindBuffer);
  return true;
}

void ProcessTable::run(ForkedProcess& child, uint32_t unwindBuffer) {
  granule::RunResult result;
  size_t stackBytes;
  {
    std::lock_guard lock(mutex_);
    stackBytes = guestStackBytes_;
  }
  bool ran = granule::runOnFreshHostStack(stackBytes, [&] {
    std::string error;
    if (!child.granule->instantiate(error) ||
        !adoptSuspension(*child.granule, *child.snapshot, unwindBuffer, error)) {
      result.kind = granule::RunResult::Kind::Trapped;
      result.trapReason = "cannot start the forked child: " + error;
      result.trapFunction = "<fork>";
      return;
    }
    result = child.granule->runStart();
  });
  if (!ran) {
    result.kind = granule::RunResult::Kind::Trapped;
    result.trapReason = "cannot map a native stack for the forked child";
    result.trapFunction = "<fork>";
  }
  int status = (result.exitCode & 0xff) << 8;
  if (result.kind == granule::RunResult::Kind::Trapped) {
    // As synergy-run reports its own granule's trap.
    std::fprintf(stderr, "trap: %s in %s\n", result.trapReason.c_str(),
                 result.trapFunction.c_str());
    std::fflush(stderr);
    status = kTrappedStatus;
  }
  std::lock_guard lock(mutex_);
  child.waitStatus = status;
  child.ended = true;
  changed_.notify_all();
}

int32_t ProcessTable::wait(int32_t parentId, int32_t wanted, uint32_t options, int& status) {
  std::unique_ptr<ForkedProcess> reaped;
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      bool anyChild = false;
      auto ended = processes_.end();
      for (auto it = processes_.begin(); it != processes_.end(); ++it) {
        ForkedProcess& process = **it;
        // Every id below 1 (any child, the caller's process group) is any
        // child here: the granules of one process form one group.
        if (process.parentId != parentId || (wanted > 0 && process.id != wanted)) continue;
        anyChild = true;
        if (process.ended) {
          ended = it;
          break;
        }
      }
      if (!anyChild) return -ECHILD;
      if (ended != processes_.end()) {
        reaped = std::move(*ended);
        processes_.erase(ended);
        break;
      }
      if (options & kWaitNoHang) return 0;
      changed_.wait(lock);
    }
  }
  // Its thread has said it ended and does nothing after that but return.
  reaped->thread.join();
  status = reaped->waitStatus;
  return reaped->id;
}

void ProcessTable::waitForAll() {
  std::vector<std::unique_ptr<ForkedProcess>> ended;
  std::unique_lock lock(mutex_);
  // A child may fork while others end: wait until none runs.
  changed_.wait(lock, [&] {
    for (const auto& process : processes_)
      if (!process->ended) return false;
    return true;
  });
  ended.swap(processes_);
  lock.unlock();
  for (auto& process : ended) process->thread.join();
}

}  // namespace

void serveFork(std::shared_ptr<granule::Module> module, granule::Granule& granule,
               size_t guestStackBytes) {
  table().serve(std::move(module), guestStackBytes);
  table().serveGranule(granule);
}

void waitForForkedProcesses() { table().waitForAll(); }

}  // namespace synergy::process

using synergy::granule::Granule;
using synergy::process::ProcessIdentity;

// The table answers with Linux errno values below zero; the guest's are
// WASI's, numbered otherwise.
static uint32_t toGuestResult(int32_t result) {
  if (result >= 0) return uint32_t(result);
  return uint32_t(-int32_t(synergy::wasi::toGuest(synergy::wasi::errnoFromHost(-result))));
}

extern "C" {

uint32_t Z_synergyZ_fork(void* host) {
  Granule& granule = Granule::fromHost(host);
  ProcessIdentity& identity = granule.extension<ProcessIdentity>();
  // The second call, rewinding into the first: the result fork left here.
  if (granule.finishRewind()) return toGuestResult(identity.forkResult);
  std::string why;
  if (granule.parent())
    why = "fork() on a thread is not served: its memory is shared with other threads";
  else if (!identity.served)
    why = "fork() is served only in synergy-run's single process granule, not in an MPI rank "
          "or a daemon's job";
  else
    granule.prepareUnwind(why);
  if (!why.empty()) {
    std::fprintf(stderr, "synergy-run: fork() failed: %s\n", why.c_str());
    return toGuestResult(-ENOSYS);
  }
  identity.forking = true;
  granule.beginUnwind();
  return 0;  // unused: the guest is unwinding
}

uint32_t Z_synergyZ_process_wait(void* host, uint32_t pid, uint32_t statusAddress,
                                 uint32_t options) {
  Granule& granule = Granule::fromHost(host);
  ProcessIdentity& identity = granule.extension<ProcessIdentity>();
  // The status word is checked before waiting, so a bad pointer traps the
  // caller without reaping a child it could not be told about.
  uint8_t* status = statusAddress ? granule.guestBytes(statusAddress, 4) : nullptr;
  int waitStatus = 0;
  int32_t result = synergy::process::table().wait(identity.id, int32_t(pid), options, waitStatus);
  if (result > 0 && status) {
    int32_t word = waitStatus;  // little-endian, as wasm's i32 store
    std::memcpy(status, &word, sizeof word);
  }
  return toGuestResult(result);
}

uint32_t Z_synergyZ_process_id(void* host) {
  return uint32_t(Granule::fromHost(host).extension<ProcessIdentity>().id);
}

uint32_t Z_synergyZ_process_parent_id(void* host) {
  return uint32_t(Granule::fromHost(host).extension<ProcessIdentity>().parentId);
}

}  // extern "C"
