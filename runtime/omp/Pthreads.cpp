//===- Pthreads.cpp - POSIX threads as thread granules ----------------------===//
#include "omp/Pthreads.h"

#include <chrono>
#include <cstring>

#include "omp/DsmHub.h"
#include "omp/RemotePthreads.h"
#include "omp/RemoteThreads.h"
#include "omp/Team.h"

using synergy::granule::Granule;

namespace synergy::omp {
namespace {

// wasi-libc's errno values (they are WASI's, not Linux's).
constexpr uint32_t kEAgain = 6;
constexpr uint32_t kEBusy = 10;
constexpr uint32_t kEDeadlock = 16;
constexpr uint32_t kEInvalid = 28;
constexpr uint32_t kEPermission = 63;
constexpr uint32_t kENoSuchThread = 71;
constexpr uint32_t kETimedOut = 73;

constexpr uint32_t kDefaultStackBytes = 1u << 20;
// Stacks smaller than kMinimumStackBytes are accepted down to the guest's
// PTHREAD_STACK_MIN (wasi-libc's limits.h) and allocated at the minimum.
constexpr uint32_t kMinimumStackBytes = 64u << 10;
constexpr uint32_t kGuestStackMinimum = 2048;
constexpr int kDestructorRounds = 4;
constexpr uint32_t kMaxKeys = 128;

// Where the guest's opaque pthread types keep what the runtime reads back
// (the same words musl uses for them).
constexpr uint32_t kAttrStackSizeWord = 0;
constexpr uint32_t kAttrDetachWord = 3;
constexpr uint32_t kAttrWords = 9;
constexpr uint32_t kMutexTypeWord = 0;
constexpr uint32_t kMutexRecursive = 1;
constexpr uint32_t kMutexErrorCheck = 2;

}  // namespace

int threadIdOf(Granule& granule) { return granule.extension<ThreadMember>().threadId(); }

PthreadRuntime& pthreads(Granule& granule) {
  return granule.extension<ThreadMember>().group().pthreads();
}

PthreadRecord::PthreadRecord() = default;
PthreadRecord::~PthreadRecord() = default;

PthreadRuntime::PthreadRuntime(ThreadGroup& group) : group_(group), keys_(kMaxKeys) {}

PthreadRuntime::~PthreadRuntime() {
  // Made only once no thread outlives the run (outliveRun; mpi::runJob
  // ends the process otherwise): every thread left has finished and is
  // joinable, but may still be leaving run().
  for (auto& [id, record] : threads_) pthread_join(record->host, nullptr);
}

uint32_t PthreadRuntime::create(Granule& creator, uint32_t startRoutine, uint32_t argument,
                                uint32_t stackBytes, bool detached, int& error) {
  auto record = std::make_unique<PthreadRecord>();
  record->startRoutine = startRoutine;
  record->argument = argument;
  record->detached = detached;
  record->thread =
      group_.spawn(creator, stackBytes ? std::max(stackBytes, kMinimumStackBytes)
                                       : kDefaultStackBytes);
  creator.extension<ThreadMember>().adopt(*record->thread.granule, group_.nextThreadId());
  // In a job with thread hosts every pthread is on a replica of the hub, so
  // that any of them can run on another host's copy (omp/RemotePthreads.h).
  ThreadHostLink* link = threadHostLink();
  if (link && !link->spreadsPthreads()) link = nullptr;
  MainCopy* main = nullptr;
  if (group_.dsm() || link) {
    DsmHub& hub = group_.dsmHub(creator);
    main = &hub.mainCopy();
    // The new thread's stack and TLS block are among the creator's writes.
    releaseMemory(creator);
    record->replica = std::move(main->createReplicas(creator, 1).front());
    record->replica->bind(*record->thread.granule);
  }
  uint32_t id;
  uint32_t localThreads = 0;
  {
    std::lock_guard guard(lock_);
    id = nextId_++;
    if (link && !remote_) {
      RemoteTeams* teams = group_.openmp().remoteTeams();
      if (!teams) creator.trap("a job with thread hosts without their OpenMP link");
      remote_ = std::make_unique<RemotePthreads>(*link, *teams, *main);
    }
    for (auto& [other, running] : threads_)
      if (!running->finished && running->remoteHost < 0) ++localThreads;
  }
  if (remote_) record->remoteHost = remote_->place(localThreads);
  record->thread.granule->extension<PthreadSelf>().id = id;
  PthreadRecord* raw = record.get();
  {
    std::lock_guard guard(lock_);
    threads_[id] = std::move(record);
  }
  if (raw->remoteHost >= 0)
    remote_->start(creator, uint32_t(raw->remoteHost), id, *raw->thread.granule,
                   raw->thread.stackTop, startRoutine, argument);
  if (!startHostThread(raw->host, [this, raw, id] { run(*raw, id); })) {
    std::lock_guard guard(lock_);
    threads_.erase(id);
    error = int(kEAgain);
    return 0;
  }
  if (detached) pthread_detach(raw->host);
  return id;
}

void PthreadRuntime::run(PthreadRecord& record, uint32_t id) {
  Granule& granule = *record.thread.granule;
  uint32_t result = 0;
  if (record.remoteHost >= 0)
    result = remote_->serve(id, granule);
  else
    result = runHere(record);
  std::lock_guard guard(lock_);
  record.result = result;
  record.finished = true;
  finished_.notify_all();
}

uint32_t PthreadRuntime::runHere(PthreadRecord& record) {
  Granule& granule = *record.thread.granule;
  PthreadSelf& self = granule.extension<PthreadSelf>();
  uint32_t result = 0;
  granule::RunResult outcome = granule.run(
      [&] { result = callTableFunctionU32(granule, record.startRoutine, {record.argument}); });
  if (!outcome.returned) {
    if (!self.exited) endProcessFromThread(outcome);
    result = self.exitResult;
  }
  // Thread-specific data destructors, repeated while they set new values.
  for (int round = 0; round < kDestructorRounds; ++round) {
    bool called = false;
    for (auto& [key, value] : self.specific) {
      uint32_t destructor = keyDestructor(key);
      if (!value || !destructor) continue;
      uint32_t old = value;
      value = 0;
      called = true;
      granule::RunResult ran =
          granule.run([&] { callTableFunction(granule, destructor, {old}); });
      if (!ran.returned) endProcessFromThread(ran);
    }
    if (!called) break;
  }
  releaseMemory(granule);
  return result;
}

int PthreadRuntime::join(Granule& joiner, uint32_t id, uint32_t& result) {
  PthreadRecord* record = nullptr;
  {
    std::unique_lock guard(lock_);
    auto it = threads_.find(id);
    if (it == threads_.end()) return int(kENoSuchThread);
    record = it->second.get();
    if (record->detached || record->joining) return int(kEInvalid);
    if (joiner.extension<PthreadSelf>().id == id) return int(kEDeadlock);
    record->joining = true;
    finished_.wait(guard, [&] { return record->finished; });
  }
  pthread_join(record->host, nullptr);
  acquireMemory(joiner);
  result = record->result;
  group_.release(joiner, record->thread);
  std::lock_guard guard(lock_);
  threads_.erase(id);
  return 0;
}

bool PthreadRuntime::anyRunning() {
  std::lock_guard guard(lock_);
  for (auto& [id, record] : threads_)
    if (!record->finished) return true;
  return false;
}

bool PthreadRuntime::outliveRun() {
  std::lock_guard guard(lock_);
  for (auto& [id, record] : threads_)
    if (!record->finished || record->detached) return true;
  return false;
}

int PthreadRuntime::detach(uint32_t id) {
  std::lock_guard guard(lock_);
  auto it = threads_.find(id);
  if (it == threads_.end()) return int(kENoSuchThread);
  if (it->second->detached || it->second->joining) return int(kEInvalid);
  it->second->detached = true;
  pthread_detach(it->second->host);
  return 0;
}

int PthreadRuntime::createKey(uint32_t destructor, uint32_t& key) {
  std::lock_guard guard(lock_);
  for (uint32_t k = 0; k < keys_.size(); ++k)
    if (!keys_[k].used) {
      keys_[k] = {true, destructor};
      key = k;
      return 0;
    }
  return int(kEAgain);
}

int PthreadRuntime::deleteKey(uint32_t key) {
  std::lock_guard guard(lock_);
  if (key >= keys_.size() || !keys_[key].used) return int(kEInvalid);
  keys_[key] = {};
  return 0;
}

bool PthreadRuntime::keyExists(uint32_t key) {
  std::lock_guard guard(lock_);
  return key < keys_.size() && keys_[key].used;
}

uint32_t PthreadRuntime::keyDestructor(uint32_t key) {
  std::lock_guard guard(lock_);
  return key < keys_.size() && keys_[key].used ? keys_[key].destructor : 0;
}

int PthreadRuntime::setName(uint32_t id, std::string name) {
  std::lock_guard guard(lock_);
  if (id == 1) {
    mainName_ = std::move(name);
    return 0;
  }
  auto it = threads_.find(id);
  if (it == threads_.end()) return int(kENoSuchThread);
  it->second->name = std::move(name);
  return 0;
}

int PthreadRuntime::getName(uint32_t id, std::string& name) {
  std::lock_guard guard(lock_);
  if (id == 1) {
    name = mainName_;
    return 0;
  }
  auto it = threads_.find(id);
  if (it == threads_.end()) return int(kENoSuchThread);
  name = it->second->name;
  return 0;
}

bool readDeadline(Granule& granule, uint32_t address,
                  std::chrono::system_clock::time_point& deadline) {
  // struct timespec on wasm32-wasi: int64 seconds, then a 32-bit long.
  const uint8_t* time = granule.guestBytes(address, 12);
  int64_t seconds;
  int32_t nanoseconds;
  std::memcpy(&seconds, time, 8);
  std::memcpy(&nanoseconds, time + 8, 4);
  if (nanoseconds < 0 || nanoseconds >= 1000000000) return false;
  deadline = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanoseconds)));
  return true;
}

}  // namespace synergy::omp

using namespace synergy::omp;

namespace {

uint32_t mutexType(Granule& granule, uint32_t mutex) {
  return granule.guestPtr<uint32_t>(mutex, kMutexTypeWord + 1)[kMutexTypeWord] & 3;
}

struct BarrierState {
  uint32_t parties = 0;
  uint32_t arrived = 0;
  uint64_t generation = 0;
};

std::mutex gBarriersLock;
std::condition_variable gBarrierDone;
std::map<uint32_t, BarrierState> gBarriers;

// pthread_once's two halves, which a thread host's pthread has its proxy make:
// waits while another thread runs the routine; 1 when the caller must run it.
// Under --dsm the state word is read after an acquire and published with a
// release, both under the once lock, so every thread sees one history.
enum : int32_t { kOnceNotRun = 0, kOnceRunning = 1, kOnceDone = 2 };

uint32_t enterOnce(Granule& granule, uint32_t once) {
  PthreadRuntime& runtime = pthreads(granule);
  int32_t* state = granule.guestPtr<int32_t>(once);
  std::unique_lock guard(runtime.onceLock());
  runtime.onceDone().wait(guard, [&] {
    acquireMemory(granule);
    return *state != kOnceRunning;
  });
  if (*state == kOnceDone) return 0;
  *state = kOnceRunning;
  releaseMemory(granule);
  return 1;
}

void leaveOnce(Granule& granule, uint32_t once) {
  PthreadRuntime& runtime = pthreads(granule);
  int32_t* state = granule.guestPtr<int32_t>(once);
  std::lock_guard guard(runtime.onceLock());
  *state = kOnceDone;
  releaseMemory(granule);
  runtime.onceDone().notify_all();
}

}  // namespace

extern "C" {

uint32_t Z_envZ_pthread_create(void* host, uint32_t threadOut, uint32_t attr, uint32_t start,
                               uint32_t argument) {
  Granule& granule = Granule::fromHost(host);
  refuseOnThreadHost(granule, "pthread_create");
  uint32_t* out = granule.guestPtr<uint32_t>(threadOut);
  uint32_t stackBytes = 0;
  bool detached = false;
  if (attr) {
    const uint32_t* words = granule.guestPtr<uint32_t>(attr, kAttrWords);
    stackBytes = words[kAttrStackSizeWord];
    detached = words[kAttrDetachWord] == PTHREAD_CREATE_DETACHED;
  }
  int error = 0;
  uint32_t id = pthreads(granule).create(granule, start, argument, stackBytes, detached, error);
  if (!id) return uint32_t(error);
  *out = id;
  return 0;
}

uint32_t Z_envZ_pthread_join(void* host, uint32_t thread, uint32_t resultOut) {
  Granule& granule = Granule::fromHost(host);
  refuseOnThreadHost(granule, "pthread_join");
  uint32_t result = 0;
  int status = pthreads(granule).join(granule, thread, result);
  if (status == 0 && resultOut) *granule.guestPtr<uint32_t>(resultOut) = result;
  return uint32_t(status);
}

uint32_t Z_envZ_pthread_detach(void* host, uint32_t thread) {
  refuseOnThreadHost(Granule::fromHost(host), "pthread_detach");
  return uint32_t(pthreads(Granule::fromHost(host)).detach(thread));
}

void Z_envZ_pthread_exit(void* host, uint32_t result) {
  Granule& granule = Granule::fromHost(host);
  PthreadSelf& self = granule.extension<PthreadSelf>();
  self.exited = true;
  self.exitResult = result;
  granule.exit(0);
}

uint32_t Z_envZ_pthread_self(void* host) {
  return Granule::fromHost(host).extension<PthreadSelf>().id;
}

uint32_t Z_envZ_pthread_equal(void*, uint32_t a, uint32_t b) { return a == b; }

uint32_t Z_envZ_pthread_attr_init(void* host, uint32_t attr) {
  std::memset(Granule::fromHost(host).guestPtr<uint32_t>(attr, kAttrWords), 0,
              kAttrWords * sizeof(uint32_t));
  return 0;
}

uint32_t Z_envZ_pthread_attr_destroy(void*, uint32_t) { return 0; }

uint32_t Z_envZ_pthread_attr_setdetachstate(void* host, uint32_t attr, uint32_t state) {
  if (state > PTHREAD_CREATE_DETACHED) return kEInvalid;
  Granule::fromHost(host).guestPtr<uint32_t>(attr, kAttrWords)[kAttrDetachWord] = state;
  return 0;
}

uint32_t Z_envZ_pthread_attr_getdetachstate(void* host, uint32_t attr, uint32_t stateOut) {
  Granule& granule = Granule::fromHost(host);
  *granule.guestPtr<uint32_t>(stateOut) =
      granule.guestPtr<uint32_t>(attr, kAttrWords)[kAttrDetachWord];
  return 0;
}

uint32_t Z_envZ_pthread_attr_setstacksize(void* host, uint32_t attr, uint32_t size) {
  if (size < kGuestStackMinimum) return kEInvalid;
  Granule::fromHost(host).guestPtr<uint32_t>(attr, kAttrWords)[kAttrStackSizeWord] = size;
  return 0;
}

uint32_t Z_envZ_pthread_attr_getstacksize(void* host, uint32_t attr, uint32_t sizeOut) {
  Granule& granule = Granule::fromHost(host);
  uint32_t size = granule.guestPtr<uint32_t>(attr, kAttrWords)[kAttrStackSizeWord];
  *granule.guestPtr<uint32_t>(sizeOut) = size ? size : kDefaultStackBytes;
  return 0;
}

uint32_t Z_envZ_pthread_mutexattr_init(void* host, uint32_t attr) {
  *Granule::fromHost(host).guestPtr<uint32_t>(attr) = 0;
  return 0;
}

uint32_t Z_envZ_pthread_mutexattr_destroy(void*, uint32_t) { return 0; }

uint32_t Z_envZ_pthread_mutexattr_settype(void* host, uint32_t attr, uint32_t type) {
  if (type > kMutexErrorCheck) return kEInvalid;
  *Granule::fromHost(host).guestPtr<uint32_t>(attr) = type;
  return 0;
}

uint32_t Z_envZ_pthread_mutexattr_gettype(void* host, uint32_t attr, uint32_t typeOut) {
  Granule& granule = Granule::fromHost(host);
  *granule.guestPtr<uint32_t>(typeOut) = *granule.guestPtr<uint32_t>(attr) & 3;
  return 0;
}

uint32_t Z_envZ_pthread_mutex_init(void* host, uint32_t mutex, uint32_t attr) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::MutexInit, forwarded,
                          mutex, attr))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  uint32_t type = attr ? *granule.guestPtr<uint32_t>(attr) & 3 : 0;
  granule.guestPtr<uint32_t>(mutex, kMutexTypeWord + 1)[kMutexTypeWord] = type;
  pthreads(granule).locks().forget(mutex);
  return 0;
}

uint32_t Z_envZ_pthread_mutex_destroy(void* host, uint32_t mutex) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::MutexDestroy, forwarded, mutex))
    return forwarded;
  pthreads(Granule::fromHost(host)).locks().forget(mutex);
  return 0;
}

uint32_t Z_envZ_pthread_mutex_lock(void* host, uint32_t mutex) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::MutexLock, forwarded, mutex))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  uint32_t type = mutexType(granule, mutex);
  KeyedLocks& locks = pthreads(granule).locks();
  int self = threadIdOf(granule);
  if (type == kMutexErrorCheck && locks.heldBy(mutex, self)) return kEDeadlock;
  locks.lock(mutex, self, type == kMutexRecursive);
  acquireMemory(granule);
  return 0;
}

uint32_t Z_envZ_pthread_mutex_trylock(void* host, uint32_t mutex) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::MutexTrylock, forwarded, mutex))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  uint32_t type = mutexType(granule, mutex);
  if (!pthreads(granule).locks().tryLock(mutex, threadIdOf(granule), type == kMutexRecursive))
    return kEBusy;
  acquireMemory(granule);
  return 0;
}

uint32_t Z_envZ_pthread_mutex_unlock(void* host, uint32_t mutex) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::MutexUnlock, forwarded, mutex))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  KeyedLocks& locks = pthreads(granule).locks();
  int self = threadIdOf(granule);
  // Only an owner's unlock publishes its writes.
  if (auto* sync = granule.memorySync()) {
    if (!locks.heldBy(mutex, self)) return kEPermission;
    sync->release();
  }
  return locks.unlock(mutex, self) ? 0 : kEPermission;
}

uint32_t Z_envZ_pthread_condattr_init(void* host, uint32_t attr) {
  *Granule::fromHost(host).guestPtr<uint32_t>(attr) = 0;
  return 0;
}

uint32_t Z_envZ_pthread_condattr_destroy(void*, uint32_t) { return 0; }

uint32_t Z_envZ_pthread_cond_init(void* host, uint32_t cond, uint32_t attr) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondInit, forwarded,
                          cond, attr))
    return forwarded;
  pthreads(Granule::fromHost(host)).locks().forget(cond);
  return 0;
}

uint32_t Z_envZ_pthread_cond_destroy(void* host, uint32_t cond) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondDestroy, forwarded, cond))
    return forwarded;
  pthreads(Granule::fromHost(host)).locks().forget(cond);
  return 0;
}

uint32_t Z_envZ_pthread_cond_wait(void* host, uint32_t cond, uint32_t mutex) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondWait, forwarded,
                          cond, mutex))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  KeyedLocks& locks = pthreads(granule).locks();
  int self = threadIdOf(granule);
  if (!locks.heldBy(mutex, self)) return kEPermission;
  releaseMemory(granule);
  locks.wait(cond, mutex, self, nullptr);
  acquireMemory(granule);
  return 0;
}

uint32_t Z_envZ_pthread_cond_timedwait(void* host, uint32_t cond, uint32_t mutex,
                                       uint32_t abstime) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondTimedwait, forwarded,
                          cond, mutex, abstime))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  KeyedLocks& locks = pthreads(granule).locks();
  int self = threadIdOf(granule);
  if (!locks.heldBy(mutex, self)) return kEPermission;
  std::chrono::system_clock::time_point deadline;
  if (!readDeadline(granule, abstime, deadline)) return kEInvalid;
  releaseMemory(granule);
  bool woken = locks.wait(cond, mutex, self, &deadline);
  acquireMemory(granule);
  return woken ? 0 : kETimedOut;
}

uint32_t Z_envZ_pthread_cond_signal(void* host, uint32_t cond) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondSignal, forwarded, cond))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  releaseMemory(granule);
  pthreads(granule).locks().notify(cond, false);
  return 0;
}

uint32_t Z_envZ_pthread_cond_broadcast(void* host, uint32_t cond) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::CondBroadcast, forwarded, cond))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  releaseMemory(granule);
  pthreads(granule).locks().notify(cond, true);
  return 0;
}

uint32_t Z_envZ_pthread_barrier_init(void* host, uint32_t barrier, uint32_t attr,
                                     uint32_t count) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::BarrierInit, forwarded,
                          barrier, attr, count))
    return forwarded;
  Granule::fromHost(host).guestPtr<uint32_t>(barrier);
  if (count == 0) return kEInvalid;
  std::lock_guard guard(gBarriersLock);
  gBarriers[barrier] = BarrierState{count, 0, 0};
  return 0;
}

uint32_t Z_envZ_pthread_barrier_destroy(void* host, uint32_t barrier) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::BarrierDestroy, forwarded,
                          barrier))
    return forwarded;
  std::lock_guard guard(gBarriersLock);
  gBarriers.erase(barrier);
  return 0;
}

uint32_t Z_envZ_pthread_barrier_wait(void* host, uint32_t barrier) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::BarrierWait, forwarded,
                          barrier))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  releaseMemory(granule);
  uint32_t status = 0;
  {
    std::unique_lock guard(gBarriersLock);
    auto it = gBarriers.find(barrier);
    if (it == gBarriers.end()) return kEInvalid;
    BarrierState& state = it->second;
    uint64_t generation = state.generation;
    if (++state.arrived == state.parties) {
      state.arrived = 0;
      ++state.generation;
      gBarrierDone.notify_all();
      status = uint32_t(PTHREAD_BARRIER_SERIAL_THREAD);
    } else {
      gBarrierDone.wait(guard, [&] { return state.generation != generation; });
    }
  }
  acquireMemory(granule);
  return status;
}

uint32_t Z_envZ_pthread_once(void* host, uint32_t once, uint32_t init) {
  Granule& granule = Granule::fromHost(host);
  uint32_t runs = 0;
  if (!forwardedToMainHost(granule, PthreadFunction::OnceEnter, runs, once))
    runs = enterOnce(granule, once);
  if (!runs) return 0;
  callTableFunction(granule, init, {});
  uint32_t ignored = 0;
  if (!forwardedToMainHost(granule, PthreadFunction::OnceLeave, ignored, once))
    leaveOnce(granule, once);
  return 0;
}

uint32_t Z_envZ_pthread_key_create(void* host, uint32_t keyOut, uint32_t destructor) {
  Granule& granule = Granule::fromHost(host);
  refuseOnThreadHost(granule, "pthread_key_create");
  uint32_t* out = granule.guestPtr<uint32_t>(keyOut);
  uint32_t key = 0;
  int status = pthreads(granule).createKey(destructor, key);
  if (status == 0) *out = key;
  return uint32_t(status);
}

uint32_t Z_envZ_pthread_key_delete(void* host, uint32_t key) {
  refuseOnThreadHost(Granule::fromHost(host), "pthread_key_delete");
  return uint32_t(pthreads(Granule::fromHost(host)).deleteKey(key));
}

uint32_t Z_envZ_pthread_getspecific(void* host, uint32_t key) {
  Granule& granule = Granule::fromHost(host);
  auto& specific = granule.extension<PthreadSelf>().specific;
  auto it = specific.find(key);
  return it == specific.end() ? 0 : it->second;
}

uint32_t Z_envZ_pthread_setspecific(void* host, uint32_t key, uint32_t value) {
  Granule& granule = Granule::fromHost(host);
  refuseOnThreadHost(granule, "pthread_setspecific");
  if (!pthreads(granule).keyExists(key)) return kEInvalid;
  granule.extension<PthreadSelf>().specific[key] = value;
  return 0;
}

}  // extern "C"

// Defined in PthreadSyncFunctions.cpp.
extern "C" {
uint32_t Z_envZ_pthread_rwlock_init(void* host, uint32_t rwlock, uint32_t attr);
uint32_t Z_envZ_pthread_rwlock_destroy(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_rwlock_rdlock(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_rwlock_tryrdlock(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_rwlock_timedrdlock(void* host, uint32_t rwlock, uint32_t abstime);
uint32_t Z_envZ_pthread_rwlock_wrlock(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_rwlock_trywrlock(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_rwlock_timedwrlock(void* host, uint32_t rwlock, uint32_t abstime);
uint32_t Z_envZ_pthread_rwlock_unlock(void* host, uint32_t rwlock);
uint32_t Z_envZ_pthread_spin_init(void* host, uint32_t spinlock, uint32_t shared);
uint32_t Z_envZ_pthread_spin_destroy(void* host, uint32_t spinlock);
uint32_t Z_envZ_pthread_spin_lock(void* host, uint32_t spinlock);
uint32_t Z_envZ_pthread_spin_trylock(void* host, uint32_t spinlock);
uint32_t Z_envZ_pthread_spin_unlock(void* host, uint32_t spinlock);
uint32_t Z_envZ_pthread_setname_np(void* host, uint32_t thread, uint32_t nameAddress);
uint32_t Z_envZ_pthread_getname_np(void* host, uint32_t thread, uint32_t buffer,
                                   uint32_t bufferBytes);
}

namespace synergy::omp {

uint32_t runPthreadFunction(Granule& proxy, PthreadFunction function, uint32_t a, uint32_t b,
                            uint32_t c) {
  void* host = &proxy;
  switch (function) {
    case PthreadFunction::MutexInit:
      return Z_envZ_pthread_mutex_init(host, a, b);
    case PthreadFunction::MutexDestroy:
      return Z_envZ_pthread_mutex_destroy(host, a);
    case PthreadFunction::MutexLock:
      return Z_envZ_pthread_mutex_lock(host, a);
    case PthreadFunction::MutexTrylock:
      return Z_envZ_pthread_mutex_trylock(host, a);
    case PthreadFunction::MutexUnlock:
      return Z_envZ_pthread_mutex_unlock(host, a);
    case PthreadFunction::CondInit:
      return Z_envZ_pthread_cond_init(host, a, b);
    case PthreadFunction::CondDestroy:
      return Z_envZ_pthread_cond_destroy(host, a);
    case PthreadFunction::CondWait:
      return Z_envZ_pthread_cond_wait(host, a, b);
    case PthreadFunction::CondTimedwait:
      return Z_envZ_pthread_cond_timedwait(host, a, b, c);
    case PthreadFunction::CondSignal:
      return Z_envZ_pthread_cond_signal(host, a);
    case PthreadFunction::CondBroadcast:
      return Z_envZ_pthread_cond_broadcast(host, a);
    case PthreadFunction::BarrierInit:
      return Z_envZ_pthread_barrier_init(host, a, b, c);
    case PthreadFunction::BarrierDestroy:
      return Z_envZ_pthread_barrier_destroy(host, a);
    case PthreadFunction::BarrierWait:
      return Z_envZ_pthread_barrier_wait(host, a);
    case PthreadFunction::RwlockInit:
      return Z_envZ_pthread_rwlock_init(host, a, b);
    case PthreadFunction::RwlockDestroy:
      return Z_envZ_pthread_rwlock_destroy(host, a);
    case PthreadFunction::RwlockRdlock:
      return Z_envZ_pthread_rwlock_rdlock(host, a);
    case PthreadFunction::RwlockTryrdlock:
      return Z_envZ_pthread_rwlock_tryrdlock(host, a);
    case PthreadFunction::RwlockTimedrdlock:
      return Z_envZ_pthread_rwlock_timedrdlock(host, a, b);
    case PthreadFunction::RwlockWrlock:
      return Z_envZ_pthread_rwlock_wrlock(host, a);
    case PthreadFunction::RwlockTrywrlock:
      return Z_envZ_pthread_rwlock_trywrlock(host, a);
    case PthreadFunction::RwlockTimedwrlock:
      return Z_envZ_pthread_rwlock_timedwrlock(host, a, b);
    case PthreadFunction::RwlockUnlock:
      return Z_envZ_pthread_rwlock_unlock(host, a);
    case PthreadFunction::SpinInit:
      return Z_envZ_pthread_spin_init(host, a, b);
    case PthreadFunction::SpinDestroy:
      return Z_envZ_pthread_spin_destroy(host, a);
    case PthreadFunction::SpinLock:
      return Z_envZ_pthread_spin_lock(host, a);
    case PthreadFunction::SpinTrylock:
      return Z_envZ_pthread_spin_trylock(host, a);
    case PthreadFunction::SpinUnlock:
      return Z_envZ_pthread_spin_unlock(host, a);
    case PthreadFunction::OnceEnter:
      return enterOnce(proxy, a);
    case PthreadFunction::OnceLeave:
      leaveOnce(proxy, a);
      return 0;
    case PthreadFunction::SetnameNp:
      return Z_envZ_pthread_setname_np(host, a, b);
    case PthreadFunction::GetnameNp:
      return Z_envZ_pthread_getname_np(host, a, b, c);
  }
  proxy.trap("an unknown pthread call " + std::to_string(uint32_t(function)));
}

}  // namespace synergy::omp
