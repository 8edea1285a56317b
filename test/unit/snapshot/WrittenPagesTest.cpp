// Unit tests for the kernel's list of written pages (userfaultfd
// asynchronous write-protection read by PAGEMAP_SCAN) over a linear memory.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "snapshot/DirtyTracker.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/WrittenPages.h"

using namespace synergy::snapshot;

namespace {

constexpr uint64_t kPagesPerWasmPage = kWasmPageSize / kHostPageSize;

// A memory of `pages` wasm pages (of at most 8) with the tracker over its
// whole reservation; skips where the kernel has no such tracking.
struct Tracked {
  LinearMemory memory;
  std::unique_ptr<WrittenPages> written;
};

bool track(Tracked& tracked, uint64_t pages, std::string& why) {
  std::string error;
  if (!tracked.memory.create(pages, 8, error)) {
    why = error;
    return false;
  }
  tracked.written =
      WrittenPages::create(tracked.memory.base(), 8 * kWasmPageSize, why);
  return tracked.written != nullptr;
}

TEST(WrittenPages, ListsTheWrittenPagesOnceAndNotTheReadOnes) {
  Tracked t;
  std::string why;
  if (!track(t, 2, why)) GTEST_SKIP() << "no asynchronous write-protection here: " << why;
  uint8_t* base = t.memory.base();
  std::vector<uint64_t> pages;
  std::string error;
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_TRUE(pages.empty());
  base[3 * kHostPageSize + 17] = 1;
  base[31 * kHostPageSize] = 2;  // the last page of the memory
  base[3 * kHostPageSize] = 3;   // the same page twice
  volatile uint8_t readByte = base[9 * kHostPageSize];
  (void)readByte;
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_EQ(pages, (std::vector<uint64_t>{3, 31}));
  // Protected again by the take: nothing since.
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_TRUE(pages.empty());
  // A write from another thread counts the same.
  std::thread([&] { base[5 * kHostPageSize] = 4; }).join();
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_EQ(pages, (std::vector<uint64_t>{5}));
  // And one by the kernel (a WASI fd_read lands there so), into a page
  // written before and into one never touched.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "abcdefgh", 8), 8);
  EXPECT_EQ(::read(fds[0], base + 3 * kHostPageSize + 8, 4), 4);
  EXPECT_EQ(::read(fds[0], base + 20 * kHostPageSize, 4), 4);
  close(fds[0]);
  close(fds[1]);
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_EQ(pages, (std::vector<uint64_t>{3, 20}));
}

TEST(WrittenPages, GrownAndZappedPagesCountAsWritten) {
  Tracked t;
  std::string why;
  if (!track(t, 1, why)) GTEST_SKIP() << "no asynchronous write-protection here: " << why;
  std::vector<uint64_t> pages;
  std::string error;
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  // Pages that became accessible since the tracker protected the range:
  // the written one is listed (this kernel protects the inaccessible part
  // too, so no more; a superset would do).
  ASSERT_EQ(t.memory.grow(1), 1);
  t.memory.base()[kWasmPageSize + 2 * kHostPageSize] = 1;
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_NE(std::find(pages.begin(), pages.end(), kPagesPerWasmPage + 2), pages.end());
  for (uint64_t page : pages) {
    EXPECT_GE(page, kPagesPerWasmPage);
    EXPECT_LT(page, 2 * kPagesPerWasmPage);
  }
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_TRUE(pages.empty());
  // A page given back to the kernel reads as zeros again: it changed.
  t.memory.base()[4 * kHostPageSize] = 1;
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  ASSERT_EQ(madvise(t.memory.base() + 4 * kHostPageSize, kHostPageSize, MADV_DONTNEED), 0);
  ASSERT_TRUE(t.written->take(t.memory.sizeBytes(), pages, error)) << error;
  EXPECT_EQ(pages, (std::vector<uint64_t>{4}));
}

TEST(WrittenPages, AMappingPutOverTheRangeFailsTheScan) {
  Tracked t;
  std::string why;
  if (!track(t, 1, why)) GTEST_SKIP() << "no asynchronous write-protection here: " << why;
  // A fresh mapping (as an MPI window's end puts back) is not registered:
  // its pages would be neither protected nor listed, so nothing is known.
  ASSERT_NE(mmap(t.memory.base(), kHostPageSize, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
            MAP_FAILED);
  std::vector<uint64_t> pages;
  std::string error;
  EXPECT_FALSE(t.written->take(t.memory.sizeBytes(), pages, error));
  EXPECT_FALSE(error.empty());
}

TEST(WrittenPages, RefusesRangesThatAreNotWholePages) {
  Tracked t;
  std::string why;
  if (!track(t, 1, why)) GTEST_SKIP() << "no asynchronous write-protection here: " << why;
  std::vector<uint64_t> pages;
  std::string error;
  EXPECT_FALSE(t.written->take(t.memory.sizeBytes() + 1, pages, error));
  EXPECT_FALSE(t.written->take(9 * kWasmPageSize, pages, error));
  std::string refused;
  EXPECT_EQ(WrittenPages::create(t.memory.base() + 1, kHostPageSize, refused), nullptr);
  EXPECT_FALSE(refused.empty());
}

}  // namespace
