//===- DsmMemory.h - threads sharing one memory through replicas and diffs -===//
//
// In --dsm mode every thread of a granule runs on its own copy-on-write
// replica of the main copy of linear memory, and threads see each other's
// writes only at synchronisation points (barriers, locks, the end of a
// parallel region), where the OpenMP runtime calls:
//
//  - push(): the replica's writes since its last push, found by dirty
//    tracking and diffed byte-wise against the replica's baseline, are merged
//    into the main copy (merge regions combine reductions, other bytes
//    overwrite). Bytes the replica did not change are never written, so
//    threads writing disjoint bytes of one page do not undo each other.
//  - pull(): every page of the main copy changed by a push since the
//    replica's last pull is brought into the replica; a few such pages
//    are copied at once, more of them lazily: pull() then only
//    invalidates such pages (DirtyTracker::invalidate), and the first access
//    to one copies it from the main copy, if the main copy changed it since
//    the replica last had it. A thread so copies only the pages it touches:
//    in a team of N threads each pushing its own stack page, an eager pull
//    would copy N pages per thread and per synchronisation (N^2 in all, and
//    as many mapping splits, which vm.max_map_count ends near N = 256).
//    When the changed pages form few runs, only they are invalidated;
//    otherwise every clean page is, with one mprotect, and per-page versions
//    keep the pages that did not change from being copied.
//
// A replica's baseline is the snapshot it was created from, overlaid with
// everything it pushed or pulled since; it is kept as a second copy-on-write
// view of the snapshot, so it costs memory only for the pages that changed.
//
// A replica normally gets a memory of its own. adoptReplica instead turns
// an existing memory that holds the main copy's bytes into a replica in
// place: a thread whose AOT code has the memory's base hoisted into locals
// (the main thread of a pthread program) can then take part without moving.
//
// Replicas are dirty-tracked with DirtyTrackingMode::Mprotect, so SIGSEGV
// must reach handleDirtyTrackingFault (the granule runtime's handler, or
// installDirtyTrackingFaultHandler).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "snapshot/DiffMerger.h"
#include "snapshot/DirtyTracker.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/MergeOp.h"

namespace synergy::snapshot {

class DsmReplica;
class Snapshot;

// Totals over every DsmMain of the process since it started (what
// synergy-run prints for SYNERGY_DSM_STATS=1).
struct DsmStatistics {
  uint64_t replicas = 0;     // created or adopted
  uint64_t pushes = 0;       // pushes that changed a main copy
  uint64_t pushedBytes = 0;  // bytes those pushes changed
  uint64_t pulls = 0;        // pulls that brought changed pages
  uint64_t pulledPages = 0;  // host pages those pulls copied
};
DsmStatistics dsmStatistics();

class DsmMain {
 public:
  // `main` is the main copy; it must outlive this object, which must outlive
  // its replicas. Nothing but push() may write `main` while replicas exist.
  explicit DsmMain(LinearMemory& main);

  // A replica holding the main copy as it is now. Returns nullptr and sets
  // `error` on failure.
  std::unique_ptr<DsmReplica> createReplica(std::string& error);
  // `count` replicas sharing one capture of the main copy (one copy of its
  // bytes instead of `count`). Empty and `error` set on failure.
  std::vector<std::unique_ptr<DsmReplica>> createReplicas(size_t count, std::string& error);
  // Makes `memory` itself a replica, without moving or copying it: it must
  // hold exactly the main copy's bytes now, must outlive the replica, and
  // keeps its mapping (and its owner) when the replica is destroyed. Returns
  // nullptr and sets `error` on failure.
  std::unique_ptr<DsmReplica> adoptReplica(LinearMemory& memory, std::string& error);

  LinearMemory& memory() { return main_; }
  // Number of pushes that changed the main copy so far.
  uint64_t version();
  // The host pages (kHostPageSize units) a push changed after version
  // `since`, ascending; `now` is the version they bring the reader to. What
  // keeps another host's copy current (omp/HostSyncService.h) compares only
  // these instead of the whole memory.
  std::vector<uint64_t> pagesChangedSince(uint64_t since, uint64_t& now);

 private:
  friend class DsmReplica;

  // Grows the main copy and its page versions to `pages` wasm pages.
  bool growTo(uint64_t pages);
  // Records that a push changed [offset, offset + length) of the main copy.
  void markChanged(uint64_t offset, uint64_t length, uint64_t version);

  std::mutex mutex_;
  LinearMemory& main_;
  uint64_t version_ = 0;
  // Per host page, the push that last changed it; per group of
  // kPagesPerGroup pages, the newest of those, so a pull skips unchanged
  // stretches of a large memory quickly.
  std::vector<uint64_t> pageVersions_;
  std::vector<uint64_t> groupVersions_;
};

class DsmReplica : private PageSource {
 public:
  ~DsmReplica();
  DsmReplica(const DsmReplica&) = delete;
  DsmReplica& operator=(const DsmReplica&) = delete;

  // The replica's memory (its own, or the adopted one); its base never
  // moves, also not when it grows.
  LinearMemory& memory() { return memory_; }

  // Merges this replica's writes since its last push into the main copy,
  // growing the main copy first when the replica has grown. Bytes inside
  // `regions` are merged with the region's op, all others overwrite.
  // Returns false when the main copy cannot grow (nothing is merged then).
  bool push(const std::vector<MergeRegion>& regions = {});

  // Brings every page the main copy changed since this replica's last pull
  // (or its creation) into the replica, growing it first when the main copy
  // has grown. Writes this replica has not pushed yet are kept: they are
  // laid over the pulled page, so pulling before pushing loses nothing.
  // Returns false when the replica cannot grow.
  bool pull();

  // Only one thread at a time may use a replica (normally the thread that
  // runs on it); different replicas may be used concurrently.

 private:
  friend class DsmMain;
  // With `adopted` null the replica gets a memory of its own.
  DsmReplica(DsmMain& main, LinearMemory* adopted)
      : main_(main), memory_(adopted ? *adopted : ownMemory_) {}

  // Maps `snapshot` (the main copy's bytes) as the baseline, and as the
  // memory unless it is adopted, and starts dirty tracking.
  bool start(const Snapshot& snapshot, bool adopted, std::string& error);
  // Grows the replica, its baseline and its tracking to `pages` wasm pages.
  bool growTo(uint64_t pages);
  // Copies host page `page` from the main copy into the replica and its
  // baseline when the main copy changed it since the replica last had it
  // (the lazy half of pull()). Runs in the fault handler of the replica's
  // thread, which never touches an invalid page while holding the main
  // copy's mutex.
  void refresh(uint64_t page) override;

  DsmMain& main_;
  LinearMemory ownMemory_;
  LinearMemory& memory_;
  LinearMemory baseline_;
  std::unique_ptr<DirtyTracker> tracker_;
  // The main copy's version at the last pull, and at start().
  uint64_t pulledVersion_ = 0;
  uint64_t startVersion_ = 0;
  // Per host page up to the largest memory, the main copy's version of the
  // page when the replica last copied it (0: as at start()). Mapped without
  // reserve, so only the stretches of pages a thread refreshes cost memory.
  uint64_t* copyVersions_ = nullptr;
  size_t copyVersionsBytes_ = 0;
  // Kept from push to push: a replica's diffs are often megabytes, and
  // fresh buffers would cost a page fault per page at every push.
  MemoryDiff pushDiff_;
  DiffMerger pushMerger_;
};

}  // namespace synergy::snapshot
