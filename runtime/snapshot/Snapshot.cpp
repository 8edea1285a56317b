//===- Snapshot.cpp - a granule's memory and globals, frozen ---------------===//
#include "snapshot/Snapshot.h"

#include "snapshot/NonZeroPages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace synergy::snapshot {
namespace {

// Writes bytes [from, to) of `memory` to the same offsets of `fd`.
bool writeAll(int fd, const uint8_t* memory, uint64_t from, uint64_t to, std::string& error) {
  while (from < to) {
    ssize_t n = pwrite(fd, memory + from, to - from, off_t(from));
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::string("cannot write snapshot: ") + std::strerror(errno);
      return false;
    }
    from += uint64_t(n);
  }
  return true;
}

}  // namespace

std::unique_ptr<Snapshot> Snapshot::capture(const LinearMemory& memory,
                                            std::vector<uint8_t> globals, std::string& error) {
  std::unique_ptr<Snapshot> snap(new Snapshot);
  snap->memoryBytes_ = memory.sizeBytes();
  snap->globals_ = std::move(globals);
  snap->fd_ = memfd_create("synergy-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (snap->fd_ < 0) {
    error = std::string("memfd_create: ") + std::strerror(errno);
    return nullptr;
  }
  if (ftruncate(snap->fd_, off_t(snap->memoryBytes_)) != 0) {
    error = std::string("cannot size snapshot: ") + std::strerror(errno);
    return nullptr;
  }
  // A fresh memfd reads as zeros, so only pages holding something are
  // written: writing the zeros would allocate and copy every page.
  if (!forEachNonZeroRun(memory.base(), snap->memoryBytes_, memory.isAnonymous(),
                         [&](uint64_t offset, uint64_t length) {
                           return writeAll(snap->fd_, memory.base(), offset, offset + length,
                                           error);
                         }))
    return nullptr;
  // Sealed against writes so a restored instance can never change the
  // snapshot that others restore from.
  fcntl(snap->fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
  return snap;
}

Snapshot::~Snapshot() {
  if (fd_ >= 0) close(fd_);
}

bool Snapshot::restoreInto(LinearMemory& memory) const {
  return memory.mapCopyOnWrite(fd_, memoryBytes_);
}

}  // namespace synergy::snapshot
