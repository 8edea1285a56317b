//===- DirtyTracker.h - which host pages of a region were written ----------===//
//
// A DSM replica only has to diff the pages it wrote, so the runtime needs to
// know which 4 KiB host pages of a linear memory changed since a point in
// time. Two mechanisms provide that behind one interface:
//
//  - Mprotect write-protects the region; the first write to a clean page
//    faults, the fault handler marks the page dirty and makes it writable.
//    Works everywhere, costs one fault per page per tracking interval, and
//    needs SIGSEGV to reach handleDirtyTrackingFault (the granule runtime's
//    handler calls it first; other processes call
//    installDirtyTrackingFaultHandler).
//  - SoftDirty reads the kernel's soft-dirty bit (bit 55 of
//    /proc/self/pagemap) and resets it through /proc/self/clear_refs. No
//    faults, but the reset is process-wide (see SoftDirtyTracker below) and
//    the kernel must be built with CONFIG_MEM_SOFT_DIRTY.
//
// Both work on a linear memory's private anonymous pages and on the
// MAP_PRIVATE copy-on-write mappings LinearMemory::mapCopyOnWrite creates.
//
// An Mprotect tracker can also invalidate clean pages: they become
// inaccessible, and the first access to one (a read too) asks the region's
// PageSource to bring it up to date. A --dsm replica pulls that way, lazily:
// at an acquire it invalidates what others changed and fetches only the
// pages its thread then touches, instead of copying every changed page.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace synergy::snapshot {

inline constexpr uint64_t kHostPageSize = 4096;

enum class DirtyTrackingMode { Mprotect, SoftDirty };

// Refreshes invalidated pages of a tracked region on first access.
class PageSource {
 public:
  virtual ~PageSource() = default;
  // Brings page `page` (an index from the region's base) up to date. Called
  // on the thread that touched it, from its SIGSEGV handler or from
  // prepareHostWrite, with the page writable; it must not take a lock that
  // thread may hold while touching tracked memory.
  virtual void refresh(uint64_t page) = 0;
};

class DirtyTracker {
 public:
  virtual ~DirtyTracker() = default;

  // Starts tracking [base, base + bytes): page-aligned, mapped readable and
  // writable, and considered clean from now on. A tracker tracks one region
  // at a time; regions of different trackers must not overlap.
  virtual bool start(uint8_t* base, uint64_t bytes, std::string& error) = 0;

  // The region grew in place to `bytes` (a linear memory grew). The added
  // pages count as dirty until the next clear(), since nothing saw them clean.
  virtual bool extend(uint64_t bytes, std::string& error) = 0;

  // Indices (from the region's base, in kHostPageSize units) of the pages
  // written since start() or the last clear(), ascending.
  virtual std::vector<uint64_t> dirtyPages() = 0;

  // Makes every page clean again. Writes to the region that race with
  // clear() may go unrecorded: call it while no thread writes the region.
  virtual void clear() = 0;

  // dirtyPages() and clear() in one step, for a region other threads keep
  // writing (a thread host's copy, omp/ThreadHostSync.h): the pages returned
  // are the ones made clean, so a write the list misses is recorded for the
  // next call. Read the pages after the call. Only Mprotect trackers give
  // that guarantee; others take the list and clear, with clear()'s race.
  virtual std::vector<uint64_t> takeDirtyPages() {
    std::vector<uint64_t> pages = dirtyPages();
    clear();
    return pages;
  }

  // Stops tracking and leaves the region readable and writable. Must happen
  // (or the tracker be destroyed) before the region is unmapped.
  virtual void stop() = 0;

  // Makes the clean pages of [firstPage, firstPage + count) inaccessible
  // until they are touched; the first access to one calls the PageSource
  // given to setPageSource, after which the page is clean again. Dirty pages
  // are left alone. Returns false (invalidating nothing) when the tracker has
  // no PageSource or cannot invalidate (SoftDirty).
  virtual bool invalidate(uint64_t firstPage, uint64_t count) = 0;

  // The source invalidated pages are refreshed from; set before start().
  void setPageSource(PageSource* source) { pageSource_ = source; }

  uint8_t* base() const { return base_; }
  uint64_t bytes() const { return bytes_; }

 protected:
  uint8_t* base_ = nullptr;
  uint64_t bytes_ = 0;
  PageSource* pageSource_ = nullptr;
};

// At most this many Mprotect trackers can be started at a time (one per
// --dsm replica); start() refuses more with an error that says so.
inline constexpr size_t kMaxTrackedRegions = 4096;

// Returns a tracker using `mode`, or nullptr with `error` set when the mode
// is unusable here (SoftDirty without kernel support, or a host page size
// other than kHostPageSize).
std::unique_ptr<DirtyTracker> createDirtyTracker(DirtyTrackingMode mode, std::string& error);

// Resolves a fault at `address` when it is a write to a clean page of a live
// Mprotect tracker: marks the page dirty and makes it writable, so returning
// from the signal handler retries the write. Returns false for any other
// fault. Async-signal-safe; a SIGSEGV handler should call it before anything
// else.
bool handleDirtyTrackingFault(void* address);

// For processes without the granule runtime's fault handler: installs a
// SIGSEGV handler that calls handleDirtyTrackingFault and passes any other
// fault to the handler installed before it (or to the default action).
// Installs once; later calls do nothing.
void installDirtyTrackingFaultHandler();

// Makes [address, address + bytes) of any Mprotect-tracked region writable
// and marks those pages dirty, without faulting (refreshing invalidated
// pages first). Host code that lets the
// kernel write into tracked memory (read(2) into a guest buffer) calls this
// first: a system call writing a write-protected page fails with EFAULT
// instead of faulting. Plain stores and memcpy need no such call.
void prepareHostWrite(void* address, uint64_t bytes);

}  // namespace synergy::snapshot
