//===- Snapshot.cpp - a granule's memory and globals, frozen ---------------===//
#include "snapshot/Snapshot.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace synergy::snapshot {

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
  uint64_t done = 0;
  while (done < snap->memoryBytes_) {
    ssize_t n = pwrite(snap->fd_, memory.base() + done, snap->memoryBytes_ - done, off_t(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      error = std::string("cannot write snapshot: ") + std::strerror(errno);
      return nullptr;
    }
    done += uint64_t(n);
  }
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
