//===- Snapshot.cpp - a granule's memory and globals, frozen ---------------===//
#include "snapshot/Snapshot.h"

#include "snapshot/DirtyTracker.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace synergy::snapshot {
namespace {

bool isZeroPage(const uint8_t* page) {
  uint64_t any = 0;
  for (uint64_t at = 0; at < kHostPageSize; at += 64) {
    uint64_t block[8];
    std::memcpy(block, page + at, sizeof block);
    for (uint64_t word : block) any |= word;
    if (any) return false;
  }
  return true;
}

// Narrows [at, end) to the next stretch of `fd` (a memory's memfd, or -1
// when unknown) that may hold data, in whole host pages. Returns false when
// only holes remain.
bool nextDataExtent(int fd, uint64_t bytes, uint64_t& at, uint64_t& end) {
  if (fd < 0) return true;
  off_t data = lseek(fd, off_t(at), SEEK_DATA);
  if (data < 0) return errno != ENXIO;
  off_t hole = lseek(fd, data, SEEK_HOLE);
  at = uint64_t(data) / kHostPageSize * kHostPageSize;
  if (hole > data)
    end = std::min(bytes, (uint64_t(hole) + kHostPageSize - 1) / kHostPageSize * kHostPageSize);
  return true;
}

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
  // written: guest memories are mostly untouched heap and stack, and
  // writing their zeros would allocate and copy every page of them. Pages
  // the memory's own memfd has never allocated are skipped unread.
  const uint64_t bytes = snap->memoryBytes_;
  uint64_t at = 0;
  while (at < bytes) {
    uint64_t end = bytes;
    if (!nextDataExtent(memory.fd(), bytes, at, end)) break;
    while (at < end) {
      while (at < end && isZeroPage(memory.base() + at)) at += kHostPageSize;
      uint64_t runEnd = at;
      while (runEnd < end && !isZeroPage(memory.base() + runEnd)) runEnd += kHostPageSize;
      if (!writeAll(snap->fd_, memory.base(), at, runEnd, error)) return nullptr;
      at = runEnd;
    }
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
