//===- DirtyTracker.cpp - which host pages of a region were written --------===//
//
// The Mprotect trackers publish their regions in a fixed array of slots that
// the SIGSEGV handler scans without locks or allocation. A slot points to an
// immutable description of its region; replacing or retiring it waits until
// no handler still reads the old one (each slot counts the handlers inside
// it), so a handler never touches freed memory. Each slot also keeps a copy
// of its region's bounds, which the scan compares first: with one region
// per --dsm thread, a fault then enters (and bumps the reader count of) only
// the slot that holds it, not every slot.
//
// A page is in one of three states: clean (read-only), dirty (writable) or
// invalid (inaccessible, refreshed from the PageSource on first access, then
// clean). Invalid pages are never dirty, and a page turns writable only
// after it is marked dirty and, if it was invalid, refreshed.
//
// Marking a page dirty and making it writable (the fault handler), and
// taking the dirty bits and write-protecting their pages (takeDirtyPages),
// are each two steps; per region, one protection lock makes each pair one
// step against the other. Without it a thread host's copy, which its
// threads write while another thread takes its dirty pages, lost pages for
// good: the handler marked a page, a take cleared the mark and protected the
// page, then the handler made it writable, so the page stayed writable
// with no mark, and no later write to it was ever shipped (histogram.c's
// lost updates spread over hosts).
//
//===----------------------------------------------------------------------===//
#include "snapshot/DirtyTracker.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "snapshot/LinearMemory.h"

namespace synergy::snapshot {
namespace {

constexpr uint64_t kBitsPerWord = 64;

std::string systemError(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool hostPageSizeIsSupported(std::string& error) {
  if (uint64_t(sysconf(_SC_PAGESIZE)) == kHostPageSize) return true;
  error = "dirty tracking needs 4 KiB host pages";
  return false;
}

//===-- Mprotect ----------------------------------------------------------===//

struct TrackedRegion {
  uintptr_t begin;
  uintptr_t end;
  std::atomic<uint64_t>* dirtyBits;
  std::atomic<uint64_t>* invalidBits;
  PageSource* source;
  std::atomic<bool>* protecting;  // the tracker's protection lock
};

// Holds a region's protection lock. A spin lock, as a signal handler takes
// it; its holders only touch the bitmap and call mprotect, so it is never
// held for long, and never by a thread that faults on the region.
class ProtectionLock {
 public:
  explicit ProtectionLock(std::atomic<bool>& flag) : flag_(flag) {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) sched_yield();
  }
  ~ProtectionLock() { flag_.store(false, std::memory_order_release); }
  ProtectionLock(const ProtectionLock&) = delete;
  ProtectionLock& operator=(const ProtectionLock&) = delete;

 private:
  std::atomic<bool>& flag_;
};

struct RegionSlot {
  std::atomic<const TrackedRegion*> region{nullptr};
  // The region's bounds, for the scan's first test; [0, 0) when retired.
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<int> readers{0};
  bool claimed = false;  // guarded by gRegistryMutex
};

RegionSlot gSlots[kMaxTrackedRegions];
// Slots at or past this index have never been claimed; the handler stops here.
std::atomic<size_t> gSlotsInUse{0};
std::mutex gRegistryMutex;

// Sets the dirty bits of pages [from, to) a word at a time.
void markDirty(std::atomic<uint64_t>* dirtyBits, uint64_t from, uint64_t to) {
  while (from < to) {
    uint64_t bit = from % kBitsPerWord;
    uint64_t count = std::min(kBitsPerWord - bit, to - from);
    uint64_t mask = count == kBitsPerWord ? ~uint64_t(0) : ((uint64_t(1) << count) - 1) << bit;
    dirtyBits[from / kBitsPerWord].fetch_or(mask);
    from += count;
  }
}

// Clears the bits of pages [from, to) a word at a time.
void clearBits(std::atomic<uint64_t>* bits, uint64_t from, uint64_t to) {
  while (from < to) {
    uint64_t bit = from % kBitsPerWord;
    uint64_t count = std::min(kBitsPerWord - bit, to - from);
    uint64_t mask = count == kBitsPerWord ? ~uint64_t(0) : ((uint64_t(1) << count) - 1) << bit;
    bits[from / kBitsPerWord].fetch_and(~mask);
    from += count;
  }
}

bool isSet(const std::atomic<uint64_t>* bits, uint64_t page) {
  return bits[page / kBitsPerWord].load(std::memory_order_relaxed) >> (page % kBitsPerWord) & 1;
}

// Brings the invalid pages of [from, to) up to date and makes them clean.
// The span is made writable for the refresh, then read-only (a dirty page
// in it faults once more on its next write and is marked dirty again, which
// loses nothing). When the kernel will not split the mapping (ENOMEM), the
// span widens as in unprotectAsDirty.
bool refreshInvalidPages(const TrackedRegion& region, uint64_t from, uint64_t to) {
  bool any = false;
  for (uint64_t page = from; page < to && !any; ++page) any = isSet(region.invalidBits, page);
  if (!any) return true;
  uint64_t pageCount = (region.end - region.begin) / kHostPageSize;
  for (uint64_t span = 1;; span *= 32) {
    uint64_t first = from / span * span;
    uint64_t last = std::min(((to - 1) / span + 1) * span, pageCount);
    auto* start = reinterpret_cast<void*>(region.begin + first * kHostPageSize);
    uint64_t bytes = (last - first) * kHostPageSize;
    if (mprotect(start, bytes, PROT_READ | PROT_WRITE) == 0) {
      for (uint64_t page = first; page < last; ++page) {
        if (!isSet(region.invalidBits, page)) continue;
        region.source->refresh(page);
        clearBits(region.invalidBits, page, page + 1);
      }
      mprotect(start, bytes, PROT_READ);
      return true;
    }
    if (errno != ENOMEM || (first == 0 && last == pageCount)) return false;
  }
}

// Marks pages [first, last] of `region` dirty and makes them writable. Each
// write-enabled run splits the mapping; when the kernel refuses to split it
// further (ENOMEM, vm.max_map_count reached), this retries over ever larger
// aligned spans around the pages, up to the whole region, which split less.
// Extra dirty pages only cost diffing them.
bool unprotectAsDirty(const TrackedRegion& region, uint64_t first, uint64_t last) {
  uint64_t pageCount = (region.end - region.begin) / kHostPageSize;
  for (uint64_t span = 1;; span *= 32) {
    uint64_t from = first / span * span;
    uint64_t to = std::min((last / span + 1) * span, pageCount);
    if (span >= pageCount) {
      from = 0;
      to = pageCount;
    }
    if (!refreshInvalidPages(region, from, to)) return false;
    void* start = reinterpret_cast<void*>(region.begin + from * kHostPageSize);
    int failure = 0;
    {
      ProtectionLock lock(*region.protecting);
      markDirty(region.dirtyBits, from, to);
      if (mprotect(start, (to - from) * kHostPageSize, PROT_READ | PROT_WRITE) == 0) return true;
      failure = errno;
    }
    if (failure != ENOMEM || (from == 0 && to == pageCount)) return false;
  }
}

// Runs `visit(region)` for each live region overlapping [begin, end), holding
// the slot's reader count so the region cannot be freed meanwhile.
template <typename Visit>
void forEachOverlappingRegion(uintptr_t begin, uintptr_t end, Visit visit) {
  size_t inUse = gSlotsInUse.load();
  for (size_t i = 0; i < inUse; ++i) {
    RegionSlot& slot = gSlots[i];
    if (!(begin < slot.end.load() && slot.begin.load() < end)) continue;
    slot.readers.fetch_add(1);
    const TrackedRegion* region = slot.region.load();
    if (region && begin < region->end && region->begin < end) visit(*region);
    slot.readers.fetch_sub(1);
  }
}

void waitForReaders(RegionSlot& slot) {
  while (slot.readers.load() != 0) sched_yield();
}

class MprotectTracker final : public DirtyTracker {
 public:
  ~MprotectTracker() override {
    stop();
    if (dirtyBits_) munmap(dirtyBits_, bitmapBytes_);
  }

  bool start(uint8_t* base, uint64_t bytes, std::string& error) override {
    stop();
    if (reinterpret_cast<uintptr_t>(base) % kHostPageSize != 0 || bytes % kHostPageSize != 0) {
      error = "dirty tracking needs a page-aligned region";
      return false;
    }
    // Sized for the largest region a linear memory can grow to, so extend()
    // never moves the bitmap a signal handler may be writing. Untouched
    // bitmap pages cost no memory.
    uint64_t capacityPages = std::max(bytes, kReservationBytes) / kHostPageSize;
    // The dirty bits, then as many invalid bits.
    size_t bitmapBytes =
        2 * ((capacityPages + kBitsPerWord - 1) / kBitsPerWord * sizeof(uint64_t));
    if (dirtyBits_ && bitmapBytes_ < bitmapBytes) {
      munmap(dirtyBits_, bitmapBytes_);
      dirtyBits_ = nullptr;
    }
    if (!dirtyBits_) {
      void* bitmap = mmap(nullptr, bitmapBytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (bitmap == MAP_FAILED) {
        error = systemError("cannot allocate dirty bitmap");
        return false;
      }
      dirtyBits_ = static_cast<std::atomic<uint64_t>*>(bitmap);
      bitmapBytes_ = bitmapBytes;
    }
    capacityPages_ = bitmapBytes_ / 2 / sizeof(uint64_t) * kBitsPerWord;
    invalidBits_ = dirtyBits_ + capacityPages_ / kBitsPerWord;

    auto begin = reinterpret_cast<uintptr_t>(base);
    std::lock_guard<std::mutex> lock(gRegistryMutex);
    bool overlaps = false;
    forEachOverlappingRegion(begin, begin + bytes, [&](const TrackedRegion&) { overlaps = true; });
    if (overlaps) {
      error = "region is already dirty-tracked";
      return false;
    }
    size_t free = 0;
    while (free < kMaxTrackedRegions && gSlots[free].claimed) ++free;
    if (free == kMaxTrackedRegions) {
      error = "too many dirty-tracked regions (at most " + std::to_string(kMaxTrackedRegions) +
              " at a time)";
      return false;
    }
    slot_ = &gSlots[free];
    slot_->claimed = true;
    if (free >= gSlotsInUse.load()) gSlotsInUse.store(free + 1);
    base_ = base;
    bytes_ = bytes;
    // Published before the protection, so a write racing with start() finds
    // its region in the handler.
    publish();
    if (bytes > 0 && mprotect(base, bytes, PROT_READ) != 0) {
      error = systemError("cannot write-protect region");
      unpublishLocked();
      return false;
    }
    return true;
  }

  bool extend(uint64_t bytes, std::string& error) override {
    if (bytes < bytes_ || bytes % kHostPageSize != 0 || bytes / kHostPageSize > capacityPages_) {
      error = "dirty-tracked region cannot be extended to that size";
      return false;
    }
    // The added pages are left writable: they are dirty, and dirty pages
    // never fault.
    markDirty(dirtyBits_, bytes_ / kHostPageSize, bytes / kHostPageSize);
    std::lock_guard<std::mutex> lock(gRegistryMutex);
    bytes_ = bytes;
    publish();
    return true;
  }

  std::vector<uint64_t> dirtyPages() override {
    std::vector<uint64_t> pages;
    uint64_t words = (bytes_ / kHostPageSize + kBitsPerWord - 1) / kBitsPerWord;
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t bits = dirtyBits_[w].load(std::memory_order_relaxed);
      while (bits) {
        pages.push_back(w * kBitsPerWord + uint64_t(__builtin_ctzll(bits)));
        bits &= bits - 1;
      }
    }
    return pages;
  }

  void clear() override { takeDirtyPages(); }

  // Each word of bits is taken whole before its pages are re-protected: a
  // write after the exchange either lands before the protection (and is in
  // the page when the caller reads it) or faults and marks the page again.
  // The protection lock keeps a fault handler from making a page writable
  // between its mark and the page's re-protection here.
  std::vector<uint64_t> takeDirtyPages() override {
    std::vector<uint64_t> taken;
    ProtectionLock lock(protecting_);
    uint64_t pageCount = bytes_ / kHostPageSize;
    uint64_t words = (pageCount + kBitsPerWord - 1) / kBitsPerWord;
    // Re-protects maximal runs of dirty pages, one mprotect per run.
    uint64_t runStart = 0, runLength = 0;
    auto flush = [&] {
      // A run the kernel would not protect stays writable, so it stays dirty.
      if (runLength &&
          mprotect(base_ + runStart * kHostPageSize, runLength * kHostPageSize, PROT_READ) != 0)
        markDirty(dirtyBits_, runStart, runStart + runLength);
      runLength = 0;
    };
    for (uint64_t w = 0; w < words; ++w) {
      uint64_t bits = dirtyBits_[w].exchange(0, std::memory_order_relaxed);
      if (bits == 0) {
        flush();
        continue;
      }
      for (uint64_t b = 0; b < kBitsPerWord; ++b) {
        uint64_t page = w * kBitsPerWord + b;
        if (bits >> b & 1) {
          if (runLength == 0) runStart = page;
          ++runLength;
          taken.push_back(page);
        } else {
          flush();
        }
      }
    }
    flush();
    return taken;
  }

  bool invalidate(uint64_t firstPage, uint64_t count) override {
    uint64_t end = std::min(firstPage + count, bytes_ / kHostPageSize);
    if (!pageSource_ || !slot_) return false;
    // Invalidates maximal runs of clean pages, one mprotect per run. The
    // bits are set before the protection, so a page is never inaccessible
    // without the handler knowing why.
    for (uint64_t page = firstPage; page < end;) {
      if (isSet(dirtyBits_, page)) {
        ++page;
        continue;
      }
      uint64_t runEnd = page + 1;
      while (runEnd < end && !isSet(dirtyBits_, runEnd)) ++runEnd;
      markDirty(invalidBits_, page, runEnd);
      if (mprotect(base_ + page * kHostPageSize, (runEnd - page) * kHostPageSize, PROT_NONE) != 0) {
        // The kernel would not split the mapping: those pages stay clean and
        // are refreshed now instead.
        TrackedRegion region{reinterpret_cast<uintptr_t>(base_),
                             reinterpret_cast<uintptr_t>(base_) + bytes_, dirtyBits_, invalidBits_,
                             pageSource_, &protecting_};
        if (!refreshInvalidPages(region, page, runEnd)) return false;
      }
      page = runEnd;
    }
    return true;
  }

  // Invalid pages are made accessible as they are, not refreshed.
  void stop() override {
    if (!slot_) return;
    if (bytes_ > 0) mprotect(base_, bytes_, PROT_READ | PROT_WRITE);
    std::lock_guard<std::mutex> lock(gRegistryMutex);
    unpublishLocked();
  }

 private:
  // Retires the slot and forgets the region; called with gRegistryMutex held.
  void unpublishLocked() {
    const TrackedRegion* old = slot_->region.exchange(nullptr);
    waitForReaders(*slot_);
    delete old;
    slot_->begin.store(0);
    slot_->end.store(0);
    slot_->claimed = false;
    slot_ = nullptr;
    uint64_t words = (bytes_ / kHostPageSize + kBitsPerWord - 1) / kBitsPerWord;
    for (uint64_t w = 0; w < words; ++w) {
      dirtyBits_[w].store(0, std::memory_order_relaxed);
      invalidBits_[w].store(0, std::memory_order_relaxed);
    }
    base_ = nullptr;
    bytes_ = 0;
  }

  // Replaces the slot's region description; called with gRegistryMutex held.
  void publish() {
    auto* region = new TrackedRegion{reinterpret_cast<uintptr_t>(base_),
                                     reinterpret_cast<uintptr_t>(base_) + bytes_, dirtyBits_,
                                     invalidBits_, pageSource_, &protecting_};
    const TrackedRegion* old = slot_->region.exchange(region);
    slot_->begin.store(region->begin);
    slot_->end.store(region->end);
    waitForReaders(*slot_);
    delete old;
  }

  RegionSlot* slot_ = nullptr;
  std::atomic<bool> protecting_{false};
  std::atomic<uint64_t>* dirtyBits_ = nullptr;
  std::atomic<uint64_t>* invalidBits_ = nullptr;
  size_t bitmapBytes_ = 0;
  uint64_t capacityPages_ = 0;
};

//===-- SoftDirty ---------------------------------------------------------===//

constexpr uint64_t kSoftDirtyBit = uint64_t(1) << 55;

class SoftDirtyTracker;
// Live soft-dirty trackers; clearing the bits for one folds the others'
// current bits into their pending sets first, so they lose nothing written
// before the clear.
std::mutex gSoftDirtyMutex;
std::vector<SoftDirtyTracker*> gSoftDirtyTrackers;

// Reads the soft-dirty bits of `pageCount` pages from `base` and calls
// `dirty(pageIndex)` for each set one. Returns false when pagemap is unreadable.
template <typename Dirty>
bool readSoftDirtyBits(int pagemap, const uint8_t* base, uint64_t pageCount, Dirty dirty) {
  constexpr uint64_t kEntriesPerRead = 512;
  uint64_t entries[kEntriesPerRead];
  uint64_t firstEntry = reinterpret_cast<uintptr_t>(base) / kHostPageSize;
  for (uint64_t done = 0; done < pageCount;) {
    uint64_t want = std::min(kEntriesPerRead, pageCount - done);
    ssize_t got = pread(pagemap, entries, want * sizeof(uint64_t),
                        off_t((firstEntry + done) * sizeof(uint64_t)));
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return false;
    }
    uint64_t count = uint64_t(got) / sizeof(uint64_t);
    for (uint64_t i = 0; i < count; ++i)
      if (entries[i] & kSoftDirtyBit) dirty(done + i);
    done += count;
  }
  return true;
}

// Resets the soft-dirty bits of the whole process; gSoftDirtyMutex held.
bool clearSoftDirtyBitsLocked();

class SoftDirtyTracker final : public DirtyTracker {
 public:
  explicit SoftDirtyTracker(int pagemap) : pagemap_(pagemap) {}
  ~SoftDirtyTracker() override {
    stop();
    close(pagemap_);
  }

  bool start(uint8_t* base, uint64_t bytes, std::string& error) override {
    stop();
    if (reinterpret_cast<uintptr_t>(base) % kHostPageSize != 0 || bytes % kHostPageSize != 0) {
      error = "dirty tracking needs a page-aligned region";
      return false;
    }
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    base_ = base;
    bytes_ = bytes;
    pending_.assign(words(), 0);
    gSoftDirtyTrackers.push_back(this);
    if (!clearSoftDirtyBitsLocked()) {
      error = systemError("cannot reset soft-dirty bits");
      gSoftDirtyTrackers.pop_back();
      base_ = nullptr;
      bytes_ = 0;
      return false;
    }
    std::fill(pending_.begin(), pending_.end(), 0);
    return true;
  }

  bool extend(uint64_t bytes, std::string& error) override {
    if (bytes < bytes_ || bytes % kHostPageSize != 0) {
      error = "dirty-tracked region cannot be extended to that size";
      return false;
    }
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    uint64_t oldPages = bytes_ / kHostPageSize;
    bytes_ = bytes;
    pending_.resize(words(), 0);
    for (uint64_t page = oldPages; page < bytes / kHostPageSize; ++page)
      pending_[page / kBitsPerWord] |= uint64_t(1) << (page % kBitsPerWord);
    return true;
  }

  std::vector<uint64_t> dirtyPages() override {
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    std::vector<uint64_t> bits = pending_;
    readSoftDirtyBits(pagemap_, base_, bytes_ / kHostPageSize, [&](uint64_t page) {
      bits[page / kBitsPerWord] |= uint64_t(1) << (page % kBitsPerWord);
    });
    std::vector<uint64_t> pages;
    for (uint64_t w = 0; w < bits.size(); ++w)
      for (uint64_t word = bits[w]; word; word &= word - 1)
        pages.push_back(w * kBitsPerWord + uint64_t(__builtin_ctzll(word)));
    return pages;
  }

  // Resets the bits of every page in the process. Other SoftDirty trackers
  // keep what was recorded for them so far, but a write another thread makes
  // to their region during this call may be missed.
  void clear() override {
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    clearSoftDirtyBitsLocked();
    std::fill(pending_.begin(), pending_.end(), 0);
  }

  void stop() override {
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    gSoftDirtyTrackers.erase(std::remove(gSoftDirtyTrackers.begin(), gSoftDirtyTrackers.end(), this),
                             gSoftDirtyTrackers.end());
    base_ = nullptr;
    bytes_ = 0;
    pending_.clear();
  }

  bool invalidate(uint64_t, uint64_t) override { return false; }

  // Moves the kernel's current bits for this region into pending_.
  void foldKernelBits() {
    readSoftDirtyBits(pagemap_, base_, bytes_ / kHostPageSize, [&](uint64_t page) {
      pending_[page / kBitsPerWord] |= uint64_t(1) << (page % kBitsPerWord);
    });
  }

 private:
  uint64_t words() const { return (bytes_ / kHostPageSize + kBitsPerWord - 1) / kBitsPerWord; }

  int pagemap_;
  std::vector<uint64_t> pending_;
};

bool clearSoftDirtyBitsLocked() {
  for (SoftDirtyTracker* tracker : gSoftDirtyTrackers) tracker->foldKernelBits();
  int clearRefs = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (clearRefs < 0) return false;
  bool written = write(clearRefs, "4", 1) == 1;
  close(clearRefs);
  return written;
}

// Whether writing a page after a reset really sets its soft-dirty bit; the
// files exist even on kernels built without soft-dirty support.
bool softDirtyWorks(int pagemap, std::string& error) {
  void* probe = mmap(nullptr, kHostPageSize, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) {
    error = systemError("mmap");
    return false;
  }
  auto* page = static_cast<volatile uint8_t*>(probe);
  page[0] = 1;
  auto probeIsDirty = [&] {
    bool dirty = false;
    readSoftDirtyBits(pagemap, static_cast<uint8_t*>(probe), 1, [&](uint64_t) { dirty = true; });
    return dirty;
  };
  bool cleared, dirtied;
  {
    std::lock_guard<std::mutex> lock(gSoftDirtyMutex);
    cleared = clearSoftDirtyBitsLocked() && !probeIsDirty();
  }
  page[0] = 2;
  dirtied = probeIsDirty();
  munmap(probe, kHostPageSize);
  if (!cleared || !dirtied) {
    error = "soft-dirty page bits are unusable (kernel without CONFIG_MEM_SOFT_DIRTY?)";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<DirtyTracker> createDirtyTracker(DirtyTrackingMode mode, std::string& error) {
  if (!hostPageSizeIsSupported(error)) return nullptr;
  if (mode == DirtyTrackingMode::Mprotect) return std::make_unique<MprotectTracker>();
  int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    error = systemError("cannot open /proc/self/pagemap");
    return nullptr;
  }
  if (!softDirtyWorks(pagemap, error)) {
    close(pagemap);
    return nullptr;
  }
  return std::make_unique<SoftDirtyTracker>(pagemap);
}

bool handleDirtyTrackingFault(void* address) {
  int savedErrno = errno;
  auto at = reinterpret_cast<uintptr_t>(address);
  bool resolved = false;
  forEachOverlappingRegion(at, at + 1, [&](const TrackedRegion& region) {
    uint64_t page = (at - region.begin) / kHostPageSize;
    // An invalid page is refreshed and left clean: a read needs no more, and
    // a write faults once more and finds it clean.
    resolved = isSet(region.invalidBits, page) ? refreshInvalidPages(region, page, page + 1)
                                               : unprotectAsDirty(region, page, page);
  });
  errno = savedErrno;
  return resolved;
}

void prepareHostWrite(void* address, uint64_t bytes) {
  if (bytes == 0) return;
  auto begin = reinterpret_cast<uintptr_t>(address);
  uintptr_t end = begin + bytes;
  forEachOverlappingRegion(begin, end, [&](const TrackedRegion& region) {
    uint64_t first = (std::max(begin, region.begin) - region.begin) / kHostPageSize;
    uint64_t last = (std::min(end, region.end) - 1 - region.begin) / kHostPageSize;
    unprotectAsDirty(region, first, last);
  });
}

namespace {

struct sigaction gPreviousSegvAction;

void onSegv(int signal, siginfo_t* info, void* context) {
  if (handleDirtyTrackingFault(info->si_addr)) return;
  const struct sigaction& previous = gPreviousSegvAction;
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) return previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    return previous.sa_handler(signal);
  }
  // Default action: a hardware fault recurs when we return; a signal sent by
  // kill() has to be raised again.
  struct sigaction fallback = {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  if (info->si_code <= 0) raise(signal);
}

}  // namespace

void installDirtyTrackingFaultHandler() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action = {};
    action.sa_sigaction = onSegv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &gPreviousSegvAction);
  });
}

}  // namespace synergy::snapshot
