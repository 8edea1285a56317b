// Unit tests for the walk over a memory's non-zero host pages, which both
// snapshots and checkpoint sections store: the runs must be exactly the
// pages holding a non-zero byte, whether or not the walk may skip
// never-populated pages, and skipping must leave such pages unread.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "snapshot/DirtyTracker.h"
#include "snapshot/NonZeroPages.h"

using namespace synergy::snapshot;

namespace {

constexpr uint64_t kPages = 64;

struct AnonymousRegion {
  AnonymousRegion() {
    void* mapped = mmap(nullptr, kPages * kHostPageSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base = mapped == MAP_FAILED ? nullptr : static_cast<uint8_t*>(mapped);
  }
  ~AnonymousRegion() {
    if (base) munmap(base, kPages * kHostPageSize);
  }
  uint8_t* base = nullptr;
};

using Runs = std::vector<std::pair<uint64_t, uint64_t>>;

Runs runsOf(const uint8_t* base, bool anonymous) {
  Runs runs;
  forEachNonZeroRun(base, kPages * kHostPageSize, anonymous, [&](uint64_t offset, uint64_t length) {
    runs.emplace_back(offset / kHostPageSize, length / kHostPageSize);
    return true;
  });
  return runs;
}

// Whether the kernel has populated page `page` of `base`; -1 without
// /proc/self/pagemap.
int populated(const uint8_t* base, uint64_t page) {
  int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  uint64_t entry = 0;
  uint64_t index = reinterpret_cast<uintptr_t>(base) / kHostPageSize + page;
  ssize_t n = pread(fd, &entry, sizeof entry, off_t(index * sizeof entry));
  close(fd);
  if (n != sizeof entry) return -1;
  return (entry >> 62) != 0;
}

}  // namespace

TEST(NonZeroPages, RunsAreThePagesHoldingANonZeroByte) {
  AnonymousRegion region;
  ASSERT_NE(region.base, nullptr);
  uint8_t* base = region.base;
  base[3 * kHostPageSize] = 1;                        // pages 3-4: one run
  base[5 * kHostPageSize - 1] = 2;
  base[11 * kHostPageSize - 1] = 3;                   // page 10 alone
  base[20 * kHostPageSize + 100] = 0;                 // populated, but zeros
  base[kPages * kHostPageSize - 1] = 4;               // the last page
  Runs expected{{3, 2}, {10, 1}, {kPages - 1, 1}};
  EXPECT_EQ(runsOf(base, /*anonymous=*/true), expected);
  EXPECT_EQ(runsOf(base, /*anonymous=*/false), expected);
  EXPECT_TRUE(isZeroHostPage(base + 20 * kHostPageSize));
  EXPECT_FALSE(isZeroHostPage(base + 10 * kHostPageSize));
}

TEST(NonZeroPages, AnonymousWalkLeavesUntouchedPagesUnread) {
  AnonymousRegion region;
  ASSERT_NE(region.base, nullptr);
  region.base[kHostPageSize] = 9;
  if (populated(region.base, 30) != 0) GTEST_SKIP() << "no usable /proc/self/pagemap";
  EXPECT_EQ(runsOf(region.base, /*anonymous=*/true), (Runs{{1, 1}}));
  EXPECT_EQ(populated(region.base, 30), 0);
  // Reading every page, as for a view of a file, maps the untouched ones.
  EXPECT_EQ(runsOf(region.base, /*anonymous=*/false), (Runs{{1, 1}}));
  EXPECT_EQ(populated(region.base, 30), 1);
}

TEST(NonZeroPages, AFalseVisitStopsTheWalk) {
  AnonymousRegion region;
  ASSERT_NE(region.base, nullptr);
  region.base[0] = 1;
  region.base[10 * kHostPageSize] = 1;
  int visits = 0;
  EXPECT_FALSE(forEachNonZeroRun(region.base, kPages * kHostPageSize, true,
                                 [&](uint64_t, uint64_t) { return ++visits < 1; }));
  EXPECT_EQ(visits, 1);
}
