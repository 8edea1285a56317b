//===- PthreadSyncFunctions.cpp - rwlocks, spinlocks, barrier attributes ---===//
//
// The pthread_rwlock_*, pthread_spin_* and pthread_{rwlock,barrier}attr_*
// host functions, and pthread_setname_np/getname_np. Read-write locks live
// in ReaderWriterLocks, spinlocks are non-recursive KeyedLocks (a guest
// spinning on its own word would never see another --dsm replica's store,
// so the runtime blocks it instead). As for mutexes, taking a lock in any
// mode acquires memory and releasing it releases, so every kind works
// under --dsm.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstring>
#include <string>

#include "omp/Pthreads.h"
#include "omp/RemotePthreads.h"

using synergy::granule::Granule;
using namespace synergy::omp;

namespace {

// wasi-libc's errno values (they are WASI's, not Linux's).
constexpr uint32_t kEBusy = 10;
constexpr uint32_t kEDeadlock = 16;
constexpr uint32_t kEInvalid = 28;
constexpr uint32_t kEPermission = 63;
constexpr uint32_t kERange = 68;
constexpr uint32_t kETimedOut = 73;

// Linux's limit for a thread name, the terminating NUL included.
constexpr uint32_t kThreadNameBytes = 16;

uint32_t errnoOf(ReaderWriterLocks::Outcome outcome) {
  switch (outcome) {
    case ReaderWriterLocks::Outcome::Taken: return 0;
    case ReaderWriterLocks::Outcome::Busy: return kEBusy;
    case ReaderWriterLocks::Outcome::WouldDeadlock: return kEDeadlock;
    case ReaderWriterLocks::Outcome::TimedOut: return kETimedOut;
  }
  return kEInvalid;
}

enum class Mode { Read, Write };

uint32_t lockReaderWriter(void* host, uint32_t rwlock, Mode mode, bool blocking,
                          uint32_t abstime) {
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(rwlock);
  std::chrono::system_clock::time_point deadline;
  ReaderWriterLocks::Wait wait{blocking, nullptr};
  if (abstime) {
    if (!readDeadline(granule, abstime, deadline)) return kEInvalid;
    wait.deadline = &deadline;
  }
  ReaderWriterLocks& locks = pthreads(granule).rwlocks();
  int self = threadIdOf(granule);
  ReaderWriterLocks::Outcome outcome = mode == Mode::Read ? locks.readLock(rwlock, self, wait)
                                                          : locks.writeLock(rwlock, self, wait);
  if (outcome == ReaderWriterLocks::Outcome::Taken) acquireMemory(granule);
  return errnoOf(outcome);
}

// The attribute objects hold one word the runtime reads back: pshared.
uint32_t initAttribute(void* host, uint32_t attr) {
  *Granule::fromHost(host).guestPtr<uint32_t>(attr) = PTHREAD_PROCESS_PRIVATE;
  return 0;
}

uint32_t setShared(void* host, uint32_t attr, uint32_t shared) {
  if (shared > PTHREAD_PROCESS_SHARED) return kEInvalid;
  *Granule::fromHost(host).guestPtr<uint32_t>(attr) = shared;
  return 0;
}

uint32_t getShared(void* host, uint32_t attr, uint32_t sharedOut) {
  Granule& granule = Granule::fromHost(host);
  *granule.guestPtr<uint32_t>(sharedOut) = *granule.guestPtr<uint32_t>(attr);
  return 0;
}

}  // namespace

extern "C" {

uint32_t Z_envZ_pthread_rwlockattr_init(void* host, uint32_t attr) {
  return initAttribute(host, attr);
}

uint32_t Z_envZ_pthread_rwlockattr_destroy(void*, uint32_t) { return 0; }

uint32_t Z_envZ_pthread_rwlockattr_setpshared(void* host, uint32_t attr, uint32_t shared) {
  return setShared(host, attr, shared);
}

uint32_t Z_envZ_pthread_rwlockattr_getpshared(void* host, uint32_t attr, uint32_t sharedOut) {
  return getShared(host, attr, sharedOut);
}

uint32_t Z_envZ_pthread_rwlock_init(void* host, uint32_t rwlock, uint32_t attr) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockInit, forwarded,
                          rwlock, attr))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(rwlock);
  return pthreads(granule).rwlocks().forget(rwlock) ? 0 : kEBusy;
}

uint32_t Z_envZ_pthread_rwlock_destroy(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockDestroy, forwarded,
                          rwlock))
    return forwarded;
  return pthreads(Granule::fromHost(host)).rwlocks().forget(rwlock) ? 0 : kEBusy;
}

uint32_t Z_envZ_pthread_rwlock_rdlock(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockRdlock, forwarded,
                          rwlock))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Read, true, 0);
}

uint32_t Z_envZ_pthread_rwlock_tryrdlock(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockTryrdlock, forwarded,
                          rwlock))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Read, false, 0);
}

uint32_t Z_envZ_pthread_rwlock_timedrdlock(void* host, uint32_t rwlock, uint32_t abstime) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockTimedrdlock, forwarded,
                          rwlock, abstime))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Read, true, abstime);
}

uint32_t Z_envZ_pthread_rwlock_wrlock(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockWrlock, forwarded,
                          rwlock))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Write, true, 0);
}

uint32_t Z_envZ_pthread_rwlock_trywrlock(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockTrywrlock, forwarded,
                          rwlock))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Write, false, 0);
}

uint32_t Z_envZ_pthread_rwlock_timedwrlock(void* host, uint32_t rwlock, uint32_t abstime) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockTimedwrlock, forwarded,
                          rwlock, abstime))
    return forwarded;
  return lockReaderWriter(host, rwlock, Mode::Write, true, abstime);
}

uint32_t Z_envZ_pthread_rwlock_unlock(void* host, uint32_t rwlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::RwlockUnlock, forwarded,
                          rwlock))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  releaseMemory(granule);
  return pthreads(granule).rwlocks().unlock(rwlock, threadIdOf(granule)) ? 0 : kEPermission;
}

uint32_t Z_envZ_pthread_spin_init(void* host, uint32_t spinlock, uint32_t shared) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::SpinInit, forwarded,
                          spinlock, shared))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  if (shared > PTHREAD_PROCESS_SHARED) return kEInvalid;
  *granule.guestPtr<uint32_t>(spinlock) = 0;
  pthreads(granule).locks().forget(spinlock);
  return 0;
}

uint32_t Z_envZ_pthread_spin_destroy(void* host, uint32_t spinlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::SpinDestroy, forwarded,
                          spinlock))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(spinlock);
  pthreads(granule).locks().forget(spinlock);
  return 0;
}

uint32_t Z_envZ_pthread_spin_lock(void* host, uint32_t spinlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::SpinLock, forwarded, spinlock))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(spinlock);
  pthreads(granule).locks().lock(spinlock, threadIdOf(granule), false);
  acquireMemory(granule);
  return 0;
}

uint32_t Z_envZ_pthread_spin_trylock(void* host, uint32_t spinlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::SpinTrylock, forwarded,
                          spinlock))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  granule.guestPtr<uint32_t>(spinlock);
  if (!pthreads(granule).locks().tryLock(spinlock, threadIdOf(granule), false)) return kEBusy;
  acquireMemory(granule);
  return 0;
}

uint32_t Z_envZ_pthread_spin_unlock(void* host, uint32_t spinlock) {
  uint32_t forwarded = 0;
  if (forwardedToMainHost(Granule::fromHost(host), PthreadFunction::SpinUnlock, forwarded,
                          spinlock))
    return forwarded;
  Granule& granule = Granule::fromHost(host);
  KeyedLocks& locks = pthreads(granule).locks();
  int self = threadIdOf(granule);
  if (!locks.heldBy(spinlock, self)) return kEPermission;
  releaseMemory(granule);
  locks.unlock(spinlock, self);
  return 0;
}

uint32_t Z_envZ_pthread_barrierattr_init(void* host, uint32_t attr) {
  return initAttribute(host, attr);
}

uint32_t Z_envZ_pthread_barrierattr_destroy(void*, uint32_t) { return 0; }

uint32_t Z_envZ_pthread_barrierattr_setpshared(void* host, uint32_t attr, uint32_t shared) {
  return setShared(host, attr, shared);
}

uint32_t Z_envZ_pthread_barrierattr_getpshared(void* host, uint32_t attr, uint32_t sharedOut) {
  return getShared(host, attr, sharedOut);
}

uint32_t Z_envZ_pthread_setname_np(void* host, uint32_t thread, uint32_t nameAddress) {
  Granule& granule = Granule::fromHost(host);
  uint32_t forwarded = 0;
  if (forwardedToMainHost(granule, PthreadFunction::SetnameNp, forwarded, thread, nameAddress))
    return forwarded;
  // Reads at most kThreadNameBytes: a longer name is refused as on Linux.
  uint32_t available = uint32_t(std::min<uint64_t>(
      kThreadNameBytes, granule.memorySize() - std::min<uint64_t>(nameAddress,
                                                                  granule.memorySize())));
  const char* name = reinterpret_cast<const char*>(granule.guestBytes(nameAddress, available));
  size_t length = strnlen(name, available);
  if (length >= kThreadNameBytes) return kERange;
  if (length == available) granule.trap("pthread_setname_np: name runs past the end of memory");
  return uint32_t(pthreads(granule).setName(thread, std::string(name, length)));
}

uint32_t Z_envZ_pthread_getname_np(void* host, uint32_t thread, uint32_t buffer,
                                   uint32_t bufferBytes) {
  Granule& granule = Granule::fromHost(host);
  uint32_t forwarded = 0;
  if (forwardedToMainHost(granule, PthreadFunction::GetnameNp, forwarded, thread, buffer,
                          bufferBytes))
    return forwarded;
  std::string name;
  int status = pthreads(granule).getName(thread, name);
  if (status) return uint32_t(status);
  if (bufferBytes < kThreadNameBytes) return kERange;
  char* out = reinterpret_cast<char*>(granule.guestBytes(buffer, uint32_t(name.size() + 1)));
  std::memcpy(out, name.c_str(), name.size() + 1);
  return 0;
}

}  // extern "C"
