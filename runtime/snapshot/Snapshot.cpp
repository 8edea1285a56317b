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

// Finds the host pages of an anonymous memory that the kernel has ever
// populated, from the present and swapped bits of /proc/self/pagemap: a page
// with neither has never been touched and reads as zeros, so a snapshot
// skips it unread (reading it would map a zero page for nothing). A memory
// that is a view of a file, or a process without /proc, gets no such help,
// and every page is examined.
class PopulatedPages {
 public:
  explicit PopulatedPages(const LinearMemory& memory) : base_(memory.base()) {
    if (memory.isAnonymous()) pagemap_ = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  }
  ~PopulatedPages() {
    if (pagemap_ >= 0) close(pagemap_);
  }
  PopulatedPages(const PopulatedPages&) = delete;
  PopulatedPages& operator=(const PopulatedPages&) = delete;

  // Narrows [at, end) to the next run of populated pages, in whole host
  // pages. Returns false when only untouched pages remain.
  bool next(uint64_t bytes, uint64_t& at, uint64_t& end) {
    if (pagemap_ < 0) return true;
    at = at / kHostPageSize * kHostPageSize;
    while (at < bytes && !populated(at)) at += kHostPageSize;
    if (at >= bytes) return false;
    end = at;
    while (end < bytes && populated(end)) end += kHostPageSize;
    return true;
  }

 private:
  static constexpr uint64_t kPresent = 1ull << 63;
  static constexpr uint64_t kSwapped = 1ull << 62;
  static constexpr uint64_t kEntriesPerRead = 512;

  // Whether the page at `offset` was ever populated. Entries are read in
  // blocks; an unreadable entry counts as populated, which is always safe.
  bool populated(uint64_t offset) {
    const uint64_t page = (reinterpret_cast<uintptr_t>(base_) + offset) / kHostPageSize;
    if (page < firstPage_ || page >= firstPage_ + entryCount_) {
      ssize_t n = pread(pagemap_, entries_, sizeof entries_, off_t(page * sizeof(uint64_t)));
      firstPage_ = page;
      entryCount_ = n > 0 ? uint64_t(n) / sizeof(uint64_t) : 0;
      if (entryCount_ == 0) return true;
    }
    return (entries_[page - firstPage_] & (kPresent | kSwapped)) != 0;
  }

  const uint8_t* base_;
  int pagemap_ = -1;
  uint64_t entries_[kEntriesPerRead];
  uint64_t firstPage_ = 0;
  uint64_t entryCount_ = 0;
};

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
  // the kernel has never populated are skipped unread.
  const uint64_t bytes = snap->memoryBytes_;
  PopulatedPages populated(memory);
  uint64_t at = 0;
  while (at < bytes) {
    uint64_t end = bytes;
    if (!populated.next(bytes, at, end)) break;
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
