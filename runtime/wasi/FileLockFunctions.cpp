//===- FileLockFunctions.cpp - fcntl record locks on granted files ---------===//
//
// This file implements env.synergy_file_lock, the runtime half of fcntl's
// F_GETLK/F_SETLK/F_SETLKW for granules (guestlib/FileLocks.c is the guest
// half; WASI preview1 has no lock call). The guest passes its struct flock
// by address; every field is read from guest memory and checked before use,
// and the lock is applied to the descriptor's host file as the same POSIX
// record lock. Such a lock belongs to a process, not to a descriptor, and
// programs rely on that: SQLite takes a lock on one descriptor and releases
// it through another of the same file. So a granule's locks exclude other
// processes exactly as a native program's do; the granules of one
// synergy-run process (MPI ranks in one process) share them, as the threads
// of one native process would. Open-file-description locks were rejected
// for that reason: with them, SQLite's second connection to a database in
// one process waits forever for a lock the first left on its descriptor.
//
// Fds 0-2 are the parent's (see FdFunctions.cpp), so locking them is refused
// with EPERM, as changing their flags is.
//
//===----------------------------------------------------------------------===//
#include <fcntl.h>

#include <cerrno>
#include <cstdint>

#include "granule/Granule.h"
#include "wasi/WasiAbi.h"
#include "wasi/WasiErrno.h"
#include "wasi/WasiState.h"

using synergy::granule::Granule;
using namespace synergy::wasi;

namespace {

// wasm32 wasi-libc's struct flock: short l_type, short l_whence, off_t
// l_start, off_t l_len, pid_t l_pid; 32 bytes.
constexpr uint32_t kFlockSize = 32;
constexpr uint32_t kTypeOffset = 0;
constexpr uint32_t kWhenceOffset = 2;
constexpr uint32_t kStartOffset = 8;
constexpr uint32_t kLengthOffset = 16;
constexpr uint32_t kPidOffset = 24;

// The guest's command values (include/fcntl.h); its lock types and whence
// values are Linux's, which the checks below rely on.
constexpr uint32_t kGuestGetLock = 5;
constexpr uint32_t kGuestSetLock = 6;
constexpr uint32_t kGuestSetLockWait = 7;
static_assert(F_RDLCK == 0 && F_WRLCK == 1 && F_UNLCK == 2);
static_assert(SEEK_SET == 0 && SEEK_CUR == 1 && SEEK_END == 2);

int hostCommand(uint32_t guestCommand) {
  switch (guestCommand) {
    case kGuestGetLock: return F_GETLK;
    case kGuestSetLock: return F_SETLK;
    case kGuestSetLockWait: return F_SETLKW;
  }
  return -1;
}

}  // namespace

extern "C" uint32_t Z_envZ_synergy_file_lock(void* host, uint32_t fd, uint32_t command,
                                             uint32_t lockAddress) {
  Granule& granule = Granule::fromHost(host);
  uint8_t* guestLock = granule.guestBytes(lockAddress, kFlockSize);
  int operation = hostCommand(command);
  if (operation < 0) return toGuest(Errno::Inval);
  FileDescriptor* file = wasiState(granule).find(fd);
  if (!file) return toGuest(Errno::Badf);
  if (file->isHostStdio()) return toGuest(Errno::Perm);

  int16_t type = loadGuest<int16_t>(guestLock + kTypeOffset);
  int16_t whence = loadGuest<int16_t>(guestLock + kWhenceOffset);
  if (type < 0 || type > 2 || whence < 0 || whence > 2) return toGuest(Errno::Inval);
  struct flock lock = {};
  lock.l_type = type;
  lock.l_whence = whence;
  lock.l_start = loadGuest<int64_t>(guestLock + kStartOffset);
  lock.l_len = loadGuest<int64_t>(guestLock + kLengthOffset);
  // The kernel checks the range (EINVAL for a negative start or overflow).
  int result;
  do {
    result = ::fcntl(file->hostFd(), operation, &lock);
  } while (result < 0 && errno == EINTR && operation == F_SETLKW);
  if (result < 0) return toGuest(errnoFromHost(errno));
  if (operation == F_GETLK) {
    storeGuest<int16_t>(guestLock + kTypeOffset, lock.l_type);
    storeGuest<int16_t>(guestLock + kWhenceOffset, int16_t(lock.l_whence));
    storeGuest<int64_t>(guestLock + kStartOffset, lock.l_start);
    storeGuest<int64_t>(guestLock + kLengthOffset, lock.l_len);
    storeGuest<int32_t>(guestLock + kPidOffset, lock.l_pid);
  }
  return toGuest(Errno::Success);
}
