#include "snapshot/WrittenPages.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "snapshot/DirtyTracker.h"

namespace synergy::snapshot {

namespace {

// The kernel's ABI (include/uapi/linux/fs.h and userfaultfd.h, Linux 6.7),
// which this system's headers may predate.
struct PageRegion {
  uint64_t start, end, categories;
};
struct PageMapScanArg {
  uint64_t size, flags, start, end, walkEnd, vec, vecLen, maxPages;
  uint64_t categoryInverted, categoryMask, categoryAnyofMask, returnMask;
};
constexpr unsigned long kPageMapScan = _IOWR('f', 16, PageMapScanArg);
constexpr uint64_t kScanWriteProtectMatching = 1 << 0;
constexpr uint64_t kScanCheckWriteProtectAsync = 1 << 1;
constexpr uint64_t kPageIsWritten = 1 << 1;
constexpr uint64_t kFeatureWriteProtectUnpopulated = 1 << 13;
constexpr uint64_t kFeatureWriteProtectAsync = 1 << 15;

std::string failed(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::unique_ptr<WrittenPages> WrittenPages::create(uint8_t* base, uint64_t bytes,
                                                   std::string& error) {
  if (!base || bytes == 0 || uintptr_t(base) % kHostPageSize || bytes % kHostPageSize) {
    error = "the range is not whole host pages";
    return nullptr;
  }
  int uffd = int(syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
  if (uffd < 0) {
    error = failed("userfaultfd");
    return nullptr;
  }
  int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) {
    error = failed("/proc/self/pagemap");
    close(uffd);
    return nullptr;
  }
  std::unique_ptr<WrittenPages> tracker(new WrittenPages(uffd, pagemap, base, bytes));
  uffdio_api api{};
  api.api = UFFD_API;
  api.features = kFeatureWriteProtectAsync | kFeatureWriteProtectUnpopulated;
  if (ioctl(uffd, UFFDIO_API, &api) != 0) {
    error = failed("userfaultfd asynchronous write-protection");
    return nullptr;
  }
  uffdio_register registration{};
  registration.range = {uint64_t(uintptr_t(base)), bytes};
  registration.mode = UFFDIO_REGISTER_MODE_WP;
  if (ioctl(uffd, UFFDIO_REGISTER, &registration) != 0) {
    error = failed("userfaultfd registration");
    return nullptr;
  }
  uffdio_writeprotect protect{};
  protect.range = {uint64_t(uintptr_t(base)), bytes};
  protect.mode = UFFDIO_WRITEPROTECT_MODE_WP;
  if (ioctl(uffd, UFFDIO_WRITEPROTECT, &protect) != 0) {
    error = failed("userfaultfd write-protection");
    return nullptr;
  }
  // A scan with nothing written proves PAGEMAP_SCAN is there (Linux 6.7).
  std::vector<uint64_t> none;
  if (!tracker->take(kHostPageSize, none, error)) return nullptr;
  return tracker;
}

WrittenPages::~WrittenPages() {
  // Closing the userfaultfd unregisters the range.
  if (uffd_ >= 0) close(uffd_);
  if (pagemap_ >= 0) close(pagemap_);
}

bool WrittenPages::take(uint64_t prefixBytes, std::vector<uint64_t>& pages, std::string& error) {
  pages.clear();
  if (prefixBytes > bytes_ || prefixBytes % kHostPageSize) {
    error = "the scanned prefix is not whole pages of the tracked range";
    return false;
  }
  PageRegion regions[256];
  uint64_t start = uint64_t(uintptr_t(base_));
  const uint64_t end = start + prefixBytes;
  while (start < end) {
    PageMapScanArg scan{};
    scan.size = sizeof scan;
    // Written pages are protected again as they are listed; a range of
    // which some part is not registered in asynchronous mode is refused.
    scan.flags = kScanWriteProtectMatching | kScanCheckWriteProtectAsync;
    scan.start = start;
    scan.end = end;
    scan.vec = uint64_t(uintptr_t(regions));
    scan.vecLen = sizeof regions / sizeof regions[0];
    scan.categoryMask = kPageIsWritten;
    scan.returnMask = kPageIsWritten;
    long found = ioctl(pagemap_, kPageMapScan, &scan);
    if (found < 0) {
      error = failed("PAGEMAP_SCAN");
      return false;
    }
    for (long i = 0; i < found; ++i) {
      // Whatever the kernel answers is checked against the range asked.
      if (regions[i].start < start || regions[i].end > end || regions[i].start >= regions[i].end) {
        error = "PAGEMAP_SCAN answered a region outside the range";
        return false;
      }
      for (uint64_t page = regions[i].start; page < regions[i].end; page += kHostPageSize)
        pages.push_back((page - uint64_t(uintptr_t(base_))) / kHostPageSize);
    }
    if (scan.walkEnd <= start || scan.walkEnd > end) {
      error = "PAGEMAP_SCAN made no progress";
      return false;
    }
    start = scan.walkEnd;
  }
  return true;
}

}  // namespace synergy::snapshot
