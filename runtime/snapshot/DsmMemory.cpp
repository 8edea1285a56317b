//===- DsmMemory.cpp - threads sharing one memory through replicas and diffs ===//
#include "snapshot/DsmMemory.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>

#include "snapshot/MemoryDiff.h"
#include "snapshot/Snapshot.h"

namespace synergy::snapshot {
namespace {

constexpr uint64_t kPagesPerGroup = 64;
// A pull that brings at most this many changed pages copies them at once,
// as a lazy fetch costs a fault and two mprotects a page: a few threads
// passing a lock change a few pages each time. More are fetched lazily.
constexpr size_t kMaxEagerPullPages = 32;
// A pull invalidates the changed pages run by run up to this many runs, and
// every clean page (one mprotect, whatever the memory's layout) past it: a
// mapping split per run costs more than a fault per later-touched page.
constexpr size_t kMaxInvalidatedRuns = 16;

struct AtomicStatistics {
  std::atomic<uint64_t> replicas{0}, pushes{0}, pushedBytes{0}, pulls{0}, pulledPages{0};
};
AtomicStatistics gStatistics;

void count(std::atomic<uint64_t>& counter, uint64_t amount = 1) {
  counter.fetch_add(amount, std::memory_order_relaxed);
}

uint64_t hostPages(const LinearMemory& memory) { return memory.sizeBytes() / kHostPageSize; }

// Calls `copy(firstPage, pageCount)` for each run of consecutive pages.
template <typename Copy>
void forEachRun(const std::vector<uint64_t>& pages, Copy copy) {
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1) ++j;
    copy(pages[i], uint64_t(j - i));
    i = j;
  }
}

}  // namespace

DsmStatistics dsmStatistics() {
  DsmStatistics statistics;
  statistics.replicas = gStatistics.replicas.load();
  statistics.pushes = gStatistics.pushes.load();
  statistics.pushedBytes = gStatistics.pushedBytes.load();
  statistics.pulls = gStatistics.pulls.load();
  statistics.pulledPages = gStatistics.pulledPages.load();
  return statistics;
}

DsmMain::DsmMain(LinearMemory& main) : main_(main) { growTo(main.pages()); }

uint64_t DsmMain::version() {
  std::lock_guard<std::mutex> lock(mutex_);
  return version_;
}

std::vector<uint64_t> DsmMain::pagesChangedSince(uint64_t since, uint64_t& now) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint64_t> changed;
  for (uint64_t group = 0; group < groupVersions_.size(); ++group) {
    if (groupVersions_[group] <= since) continue;
    uint64_t end = std::min((group + 1) * kPagesPerGroup, uint64_t(pageVersions_.size()));
    for (uint64_t page = group * kPagesPerGroup; page < end; ++page)
      if (pageVersions_[page] > since) changed.push_back(page);
  }
  now = version_;
  return changed;
}

bool DsmMain::growTo(uint64_t pages) {
  if (main_.pages() < pages && main_.grow(pages - main_.pages()) < 0) return false;
  pageVersions_.resize(hostPages(main_), 0);
  groupVersions_.resize((pageVersions_.size() + kPagesPerGroup - 1) / kPagesPerGroup, 0);
  return true;
}

void DsmMain::markChanged(uint64_t offset, uint64_t length, uint64_t version) {
  uint64_t last = (offset + length - 1) / kHostPageSize;
  for (uint64_t page = offset / kHostPageSize; page <= last; ++page) {
    pageVersions_[page] = version;
    groupVersions_[page / kPagesPerGroup] = version;
  }
}

std::unique_ptr<DsmReplica> DsmMain::createReplica(std::string& error) {
  std::vector<std::unique_ptr<DsmReplica>> replicas = createReplicas(1, error);
  return replicas.empty() ? nullptr : std::move(replicas.front());
}

std::vector<std::unique_ptr<DsmReplica>> DsmMain::createReplicas(size_t count,
                                                                 std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  growTo(main_.pages());
  std::unique_ptr<Snapshot> snapshot = Snapshot::capture(main_, {}, error);
  if (!snapshot) return {};
  std::vector<std::unique_ptr<DsmReplica>> replicas;
  for (size_t i = 0; i < count; ++i) {
    std::unique_ptr<DsmReplica> replica(new DsmReplica(*this, nullptr));
    if (!replica->start(*snapshot, false, error)) return {};
    replicas.push_back(std::move(replica));
  }
  // The replicas' mappings keep the snapshot's pages alive; the Snapshot
  // object itself is no longer needed.
  return replicas;
}

std::unique_ptr<DsmReplica> DsmMain::adoptReplica(LinearMemory& memory, std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  growTo(main_.pages());
  if (memory.pages() != main_.pages()) {
    error = "an adopted replica must have the main copy's size";
    return nullptr;
  }
  std::unique_ptr<Snapshot> snapshot = Snapshot::capture(main_, {}, error);
  if (!snapshot) return nullptr;
  std::unique_ptr<DsmReplica> replica(new DsmReplica(*this, &memory));
  if (!replica->start(*snapshot, true, error)) return nullptr;
  return replica;
}

bool DsmReplica::start(const Snapshot& snapshot, bool adopted, std::string& error) {
  uint64_t maxPages = main_.main_.maxPages();
  copyVersionsBytes_ = std::max<uint64_t>(maxPages * kWasmPageSize / kHostPageSize, 1) *
                       sizeof(uint64_t);
  void* versions = mmap(nullptr, copyVersionsBytes_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (versions == MAP_FAILED) {
    error = "cannot allocate a replica's page versions";
    return false;
  }
  copyVersions_ = static_cast<uint64_t*>(versions);
  if ((!adopted && !ownMemory_.create(0, maxPages, error)) || !baseline_.create(0, maxPages, error))
    return false;
  if ((!adopted && !snapshot.restoreInto(ownMemory_)) || !snapshot.restoreInto(baseline_)) {
    error = "cannot map the main copy's snapshot into a replica";
    return false;
  }
  tracker_ = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  if (!tracker_) return false;
  tracker_->setPageSource(this);
  if (!tracker_->start(memory_.base(), memory_.sizeBytes(), error)) return false;
  pulledVersion_ = startVersion_ = main_.version_;
  count(gStatistics.replicas);
  return true;
}

DsmReplica::~DsmReplica() {
  // An adopted memory outlives the replica: bring its invalid pages up to
  // date before the tracker lets them be read as they are.
  if (tracker_ && &memory_ != &ownMemory_) prepareHostWrite(memory_.base(), memory_.sizeBytes());
  tracker_.reset();
  if (copyVersions_) munmap(copyVersions_, copyVersionsBytes_);
}

void DsmReplica::refresh(uint64_t page) {
  std::lock_guard<std::mutex> lock(main_.mutex_);
  if (page >= main_.pageVersions_.size() || page >= baseline_.sizeBytes() / kHostPageSize) return;
  uint64_t version = main_.pageVersions_[page];
  if (version <= std::max(copyVersions_[page], startVersion_)) return;
  uint64_t offset = page * kHostPageSize;
  std::memcpy(memory_.base() + offset, main_.main_.base() + offset, kHostPageSize);
  std::memcpy(baseline_.base() + offset, main_.main_.base() + offset, kHostPageSize);
  copyVersions_[page] = version;
  count(gStatistics.pulledPages);
}

bool DsmReplica::growTo(uint64_t pages) {
  pages = std::max(pages, memory_.pages());
  if (memory_.pages() < pages && memory_.grow(pages - memory_.pages()) < 0) return false;
  // Pages a memory grows by are zero, which is also their baseline.
  if (baseline_.pages() < pages && baseline_.grow(pages - baseline_.pages()) < 0) return false;
  std::string error;
  return tracker_->bytes() == memory_.sizeBytes() || tracker_->extend(memory_.sizeBytes(), error);
}

bool DsmReplica::push(const std::vector<MergeRegion>& regions) {
  std::lock_guard<std::mutex> lock(main_.mutex_);
  // The replica may have grown on its own (memory.grow in guest code); its
  // new pages are reported dirty and diffed against their zero baseline.
  if (!growTo(memory_.pages()) || !main_.growTo(memory_.pages())) return false;
  std::vector<uint64_t> dirty = tracker_->dirtyPages();
  if (dirty.empty()) return true;
  MemoryDiff& diff = pushDiff_;
  diffPages(memory_.base(), baseline_.base(), dirty, kHostPageSize, diff);
  pushMerger_.reset();
  pushMerger_.merge(main_.main_.base(), baseline_.base(), diff, regions);
  const std::vector<ByteRange>& touched = pushMerger_.touchedRanges();
  if (!touched.empty()) {
    count(gStatistics.pushes);
    ++main_.version_;
    for (const ByteRange& range : touched) {
      main_.markChanged(range.offset, range.length, main_.version_);
      count(gStatistics.pushedBytes, range.length);
    }
  }
  // The baseline now holds what the main copy has seen from this replica, so
  // the next push sends only later writes (and a Sum region only the later
  // change).
  diff.apply(baseline_.base());
  tracker_->clear();
  return true;
}

bool DsmReplica::pull() {
  std::vector<uint64_t> changed;
  {
    std::lock_guard<std::mutex> lock(main_.mutex_);
    if (!main_.growTo(main_.main_.pages()) || !growTo(main_.main_.pages())) return false;
    for (uint64_t group = 0; group < main_.groupVersions_.size(); ++group) {
      if (main_.groupVersions_[group] <= pulledVersion_) continue;
      uint64_t end = std::min((group + 1) * kPagesPerGroup, uint64_t(main_.pageVersions_.size()));
      for (uint64_t page = group * kPagesPerGroup; page < end; ++page)
        if (main_.pageVersions_[page] > pulledVersion_) changed.push_back(page);
    }
    pulledVersion_ = main_.version_;
  }
  if (changed.empty()) return true;
  count(gStatistics.pulls);
  bool eager = changed.size() <= kMaxEagerPullPages;
  // Copied pages must be writable, and current where they were invalid:
  // prepareHostWrite refreshes them (taking the main copy's mutex, so
  // before this thread takes it) and marks them dirty.
  if (eager)
    forEachRun(changed, [&](uint64_t first, uint64_t count) {
      prepareHostWrite(memory_.base() + first * kHostPageSize, count * kHostPageSize);
    });
  {
    std::lock_guard<std::mutex> lock(main_.mutex_);
    // Copied now: every changed page when they are few, else those this
    // replica wrote and has not pushed, whose unpushed bytes keep their
    // value in the replica and in its baseline, so a later push still sends
    // that change. (Other pages copied here are equal to their baseline.)
    std::vector<uint64_t> copied;
    if (eager) {
      copied = changed;
    } else {
      std::vector<uint64_t> dirty = tracker_->dirtyPages();
      std::set_intersection(changed.begin(), changed.end(), dirty.begin(), dirty.end(),
                            std::back_inserter(copied));
    }
    count(gStatistics.pulledPages, copied.size());
    MemoryDiff unpushed = diffPages(memory_.base(), baseline_.base(), copied, kHostPageSize);
    MemoryDiff unpushedBaseline;
    for (const DiffRange& range : unpushed.ranges())
      unpushedBaseline.append(range.offset, baseline_.base() + range.offset, range.length);
    const uint8_t* main = main_.main_.base();
    forEachRun(copied, [&](uint64_t first, uint64_t count) {
      uint64_t offset = first * kHostPageSize, bytes = count * kHostPageSize;
      std::memcpy(memory_.base() + offset, main + offset, bytes);
      std::memcpy(baseline_.base() + offset, main + offset, bytes);
      for (uint64_t page = first; page < first + count; ++page)
        copyVersions_[page] = main_.pageVersions_[page];
    });
    unpushed.apply(memory_.base());
    unpushedBaseline.apply(baseline_.base());
  }
  if (eager) return true;

  // The other changed pages are fetched on first touch. Invalidating takes
  // no lock: a page whose mapping the kernel will not split is refreshed at
  // once, through refresh(), which takes the main copy's mutex.
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  forEachRun(changed, [&](uint64_t first, uint64_t count) { runs.emplace_back(first, count); });
  if (runs.size() > kMaxInvalidatedRuns)
    return tracker_->invalidate(0, memory_.sizeBytes() / kHostPageSize);
  for (const auto& [first, count] : runs)
    if (!tracker_->invalidate(first, count)) return false;
  return true;
}

}  // namespace synergy::snapshot
