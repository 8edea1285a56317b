//===- WrittenPages.h - host pages written since the last look, from the kernel -===//
//
// A checkpoint rebuilds a rank's section over its last one and copies only
// the pages the rank wrote since (checkpoint/CheckpointFile.h,
// patchRankSection). The kernel says which: the memory is registered with
// a userfaultfd in asynchronous write-protect mode (Linux 6.7,
// UFFD_FEATURE_WP_ASYNC), where a write to a protected page only lifts its
// protection, with no fault reaching this process, and the PAGEMAP_SCAN
// ioctl on /proc/self/pagemap lists the pages whose protection was lifted
// and protects them again in one step. That costs about 1 us a written page
// and a fraction of a millisecond a scan at 64 MiB (measured on
// work-ckptpages), against the several milliseconds of reading every page.
//
// The list is a superset: a page never protected (the memory grew since, or
// a page was zapped) counts as written. Where the kernel lacks either
// feature, create() fails and the caller copies everything, as before.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace synergy::snapshot {

class WrittenPages {
 public:
  // Tracks [base, base + bytes) (page-aligned; private anonymous memory,
  // accessible or not yet), every page protected from now on. Null, with
  // `error`, when the kernel or the mapping does not allow it.
  static std::unique_ptr<WrittenPages> create(uint8_t* base, uint64_t bytes, std::string& error);
  ~WrittenPages();
  WrittenPages(const WrittenPages&) = delete;
  WrittenPages& operator=(const WrittenPages&) = delete;

  uint8_t* base() const { return base_; }
  uint64_t bytes() const { return bytes_; }

  // The 4 KiB pages of [base, base + prefixBytes) written since create()
  // or the last take(), ascending, into `pages`; protects them again in the
  // same step. Call it while nothing writes the range. False, with
  // `error`, when the scan fails (some part of the range is no longer
  // tracked: a mapping was put over it): then nothing is known, and the
  // tracker should be dropped.
  bool take(uint64_t prefixBytes, std::vector<uint64_t>& pages, std::string& error);

 private:
  WrittenPages(int uffd, int pagemap, uint8_t* base, uint64_t bytes)
      : uffd_(uffd), pagemap_(pagemap), base_(base), bytes_(bytes) {}
  int uffd_ = -1;
  int pagemap_ = -1;
  uint8_t* base_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace synergy::snapshot
