//===- NonZeroPages.cpp - the host pages of a memory that hold something --===//
//
// This file implements NonZeroPages.h.
//
//===----------------------------------------------------------------------===//
#include "snapshot/NonZeroPages.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "snapshot/DirtyTracker.h"

namespace synergy::snapshot {
namespace {

// The present and swapped bits of /proc/self/pagemap for the pages of one
// range, read in blocks. Without /proc every page counts as populated.
class PopulatedPages {
 public:
  PopulatedPages(const uint8_t* base, bool anonymous) : base_(base) {
    if (anonymous) pagemap_ = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
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

  // Whether the page at `offset` was ever populated. An unreadable entry
  // counts as populated, which is always safe.
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

}  // namespace

bool isZeroHostPage(const uint8_t* page) {
  uint64_t any = 0;
  for (uint64_t at = 0; at < kHostPageSize; at += 64) {
    uint64_t block[8];
    std::memcpy(block, page + at, sizeof block);
    for (uint64_t word : block) any |= word;
    if (any) return false;
  }
  return true;
}

bool forEachNonZeroRun(const uint8_t* base, uint64_t bytes, bool anonymous,
                       util::FunctionRef<bool(uint64_t offset, uint64_t length)> visit) {
  PopulatedPages populated(base, anonymous);
  uint64_t at = 0;
  while (at < bytes) {
    uint64_t end = bytes;
    if (!populated.next(bytes, at, end)) break;
    while (at < end) {
      while (at < end && isZeroHostPage(base + at)) at += kHostPageSize;
      uint64_t runEnd = at;
      while (runEnd < end && !isZeroHostPage(base + runEnd)) runEnd += kHostPageSize;
      if (runEnd > at && !visit(at, runEnd - at)) return false;
      at = runEnd;
    }
  }
  return true;
}

}  // namespace synergy::snapshot
