// Unit tests for dirty-page tracking (mprotect faults and soft-dirty bits) on
// private anonymous and copy-on-write linear memories.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "snapshot/DirtyTracker.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/Snapshot.h"

using namespace synergy::snapshot;

namespace {

constexpr uint64_t kHostPagesPerWasmPage = kWasmPageSize / kHostPageSize;

// Memories belong to the fixture and are declared before the trackers, so a
// tracker always stops before its region is unmapped, also when a test
// returns early.
class DirtyTrackerModes : public testing::TestWithParam<DirtyTrackingMode> {
 protected:
  void SetUp() override {
    installDirtyTrackingFaultHandler();
    std::string error;
    tracker_ = createDirtyTracker(GetParam(), error);
    if (!tracker_) {
      ASSERT_FALSE(error.empty());
      GTEST_SKIP() << "dirty tracking mode unavailable here: " << error;
    }
  }

  LinearMemory& newMemory(uint64_t initialPages) {
    memories_.push_back(std::make_unique<LinearMemory>());
    std::string error;
    EXPECT_TRUE(memories_.back()->create(initialPages, 10, error)) << error;
    return *memories_.back();
  }

  DirtyTracker& newTracker() {
    std::string error;
    others_.push_back(createDirtyTracker(GetParam(), error));
    EXPECT_TRUE(others_.back()) << error;
    return *others_.back();
  }

  std::vector<std::unique_ptr<LinearMemory>> memories_;
  std::unique_ptr<DirtyTracker> tracker_;
  std::vector<std::unique_ptr<DirtyTracker>> others_;
};

// Fills `memory` with a recognisable pattern so tests can tell pages apart.
void fillPattern(LinearMemory& memory) {
  for (uint64_t i = 0; i < memory.sizeBytes(); ++i) memory.base()[i] = uint8_t(i * 7 + 3);
}

std::vector<uint64_t> pages(std::initializer_list<uint64_t> list) { return list; }

}  // namespace

TEST_P(DirtyTrackerModes, TracksStoresToSharedMemfdMemory) {
  LinearMemory& memory = newMemory(2);
  fillPattern(memory);
  std::string error;
  ASSERT_TRUE(tracker_->start(memory.base(), memory.sizeBytes(), error)) << error;
  EXPECT_EQ(tracker_->dirtyPages(), pages({}));

  uint8_t* base = memory.base();
  EXPECT_EQ(base[5 * kHostPageSize + 1], uint8_t((5 * kHostPageSize + 1) * 7 + 3));  // reads are free
  base[3 * kHostPageSize + 100] = 0xaa;
  base[17 * kHostPageSize] = 0xbb;
  base[17 * kHostPageSize + 4095] = 0xcc;
  base[31 * kHostPageSize + 4095] = 0xdd;
  EXPECT_EQ(tracker_->dirtyPages(), pages({3, 17, 31}));
  EXPECT_EQ(base[3 * kHostPageSize + 100], 0xaa);
  EXPECT_EQ(base[17 * kHostPageSize + 4095], 0xcc);

  tracker_->clear();
  EXPECT_EQ(tracker_->dirtyPages(), pages({}));
  base[17 * kHostPageSize + 1] = 1;
  base[0] = 2;
  EXPECT_EQ(tracker_->dirtyPages(), pages({0, 17}));
}

TEST_P(DirtyTrackerModes, TracksStoresToCopyOnWriteMemoryAndKeepsSnapshotIntact) {
  LinearMemory& source = newMemory(1);
  fillPattern(source);
  std::string error;
  auto snap = Snapshot::capture(source, {}, error);
  ASSERT_TRUE(snap) << error;

  LinearMemory& memory = newMemory(1);
  ASSERT_TRUE(snap->restoreInto(memory));
  ASSERT_TRUE(tracker_->start(memory.base(), memory.sizeBytes(), error)) << error;
  memory.base()[2 * kHostPageSize + 9] = 0x55;
  memory.base()[15 * kHostPageSize] = 0x66;
  EXPECT_EQ(tracker_->dirtyPages(), pages({2, 15}));
  EXPECT_EQ(memory.base()[2 * kHostPageSize + 9], 0x55);

  LinearMemory& other = newMemory(1);
  ASSERT_TRUE(snap->restoreInto(other));
  EXPECT_EQ(other.base()[2 * kHostPageSize + 9], uint8_t((2 * kHostPageSize + 9) * 7 + 3));
}

TEST_P(DirtyTrackerModes, TracksHostMemcpyAcrossPages) {
  LinearMemory& memory = newMemory(1);
  std::string error;
  ASSERT_TRUE(tracker_->start(memory.base(), memory.sizeBytes(), error)) << error;
  std::vector<uint8_t> source(3 * kHostPageSize, 0x42);
  std::memcpy(memory.base() + 4 * kHostPageSize + 10, source.data(), source.size());
  EXPECT_EQ(tracker_->dirtyPages(), pages({4, 5, 6, 7}));
  EXPECT_EQ(memory.base()[7 * kHostPageSize + 9], 0x42);
  EXPECT_EQ(memory.base()[7 * kHostPageSize + 10], 0);
}

TEST_P(DirtyTrackerModes, GrowAfterCopyOnWriteRestoreIsZeroedAndTrackedAfterExtend) {
  LinearMemory& source = newMemory(1);
  fillPattern(source);
  std::string error;
  auto snap = Snapshot::capture(source, {}, error);
  ASSERT_TRUE(snap) << error;
  LinearMemory& memory = newMemory(3);
  std::memset(memory.base(), 0x77, memory.sizeBytes());
  ASSERT_TRUE(snap->restoreInto(memory));
  ASSERT_TRUE(tracker_->start(memory.base(), memory.sizeBytes(), error)) << error;

  ASSERT_EQ(memory.grow(2), 1);
  for (uint64_t i = kWasmPageSize; i < memory.sizeBytes(); i += 997) ASSERT_EQ(memory.base()[i], 0) << i;
  EXPECT_EQ(memory.base()[kWasmPageSize - 1], uint8_t((kWasmPageSize - 1) * 7 + 3));
  memory.base()[kWasmPageSize + 5] = 1;  // the grown pages are writable before extend()

  ASSERT_TRUE(tracker_->extend(memory.sizeBytes(), error)) << error;
  std::vector<uint64_t> dirty = tracker_->dirtyPages();
  ASSERT_EQ(dirty.size(), 2 * kHostPagesPerWasmPage);
  EXPECT_EQ(dirty.front(), kHostPagesPerWasmPage);
  EXPECT_EQ(dirty.back(), 3 * kHostPagesPerWasmPage - 1);

  tracker_->clear();
  memory.base()[2 * kWasmPageSize + 3 * kHostPageSize] = 9;
  memory.base()[kHostPageSize] = 9;
  EXPECT_EQ(tracker_->dirtyPages(), pages({1, 2 * kHostPagesPerWasmPage + 3}));
  EXPECT_EQ(memory.base()[kWasmPageSize + 5], 1);
}

TEST_P(DirtyTrackerModes, TrackersOnDifferentRegionsAreIndependent) {
  LinearMemory& first = newMemory(1);
  LinearMemory& second = newMemory(1);
  DirtyTracker& other = newTracker();
  std::string error;
  ASSERT_TRUE(tracker_->start(first.base(), first.sizeBytes(), error)) << error;
  ASSERT_TRUE(other.start(second.base(), second.sizeBytes(), error)) << error;
  first.base()[kHostPageSize] = 1;
  second.base()[2 * kHostPageSize] = 1;
  // Clearing one tracker keeps what the other has recorded (for SoftDirty
  // the reset is process-wide, so this is the interesting part).
  other.clear();
  EXPECT_EQ(tracker_->dirtyPages(), pages({1}));
  EXPECT_EQ(other.dirtyPages(), pages({}));
  second.base()[3 * kHostPageSize] = 1;
  EXPECT_EQ(other.dirtyPages(), pages({3}));
  EXPECT_EQ(tracker_->dirtyPages(), pages({1}));
}

INSTANTIATE_TEST_SUITE_P(, DirtyTrackerModes,
                         testing::Values(DirtyTrackingMode::Mprotect, DirtyTrackingMode::SoftDirty),
                         [](const testing::TestParamInfo<DirtyTrackingMode>& info) {
                           return info.param == DirtyTrackingMode::Mprotect ? "Mprotect" : "SoftDirty";
                         });

TEST(DirtyTracker, SoftDirtyIsEitherAvailableOrExplained) {
  std::string error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::SoftDirty, error);
  if (tracker) {
    EXPECT_TRUE(error.empty()) << error;
  } else {
    EXPECT_NE(error.find("soft-dirty"), std::string::npos) << error;
  }
}

TEST(DirtyTracker, MprotectTrackersOnManyThreadsAtOnce) {
  installDirtyTrackingFaultHandler();
  constexpr int kThreads = 8;
  std::vector<std::vector<uint64_t>> seen(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen, &errors] {
      LinearMemory memory;
      std::string error;
      auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
      if (!tracker || !memory.create(1, 4, error) ||
          !tracker->start(memory.base(), memory.sizeBytes(), error)) {
        errors[t] = error;
        return;
      }
      // Each thread writes its own page set, many times, so faults of
      // different trackers interleave.
      for (int round = 0; round < 50; ++round)
        for (uint64_t page = uint64_t(t) % 3; page < kHostPagesPerWasmPage; page += 3)
          memory.base()[page * kHostPageSize + uint64_t(round)] = uint8_t(t + 1);
      seen[t] = tracker->dirtyPages();
      tracker->stop();
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(errors[t].empty()) << errors[t];
    std::vector<uint64_t> expected;
    for (uint64_t page = uint64_t(t) % 3; page < kHostPagesPerWasmPage; page += 3) expected.push_back(page);
    EXPECT_EQ(seen[t], expected) << "thread " << t;
  }
}

TEST(DirtyTracker, MprotectRegionWrittenByManyThreads) {
  installDirtyTrackingFaultHandler();
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(4, 4, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), memory.sizeBytes(), error)) << error;
  // Four threads race on the even pages (same pages, different bytes).
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&memory, t] {
      for (uint64_t page = 0; page < 4 * kHostPagesPerWasmPage; page += 2)
        memory.base()[page * kHostPageSize + uint64_t(t)] = uint8_t(t + 1);
    });
  for (auto& thread : threads) thread.join();
  std::vector<uint64_t> dirty = tracker->dirtyPages();
  ASSERT_EQ(dirty.size(), 2 * kHostPagesPerWasmPage);
  for (size_t i = 0; i < dirty.size(); ++i) EXPECT_EQ(dirty[i], 2 * i);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(memory.base()[62 * kHostPageSize + uint64_t(t)], t + 1);
}

// takeDirtyPages while another thread keeps writing: a copy that takes in
// only the pages returned, read after each call, ends equal to the memory,
// so no write fell between the list and the re-protection.
TEST(DirtyTracker, MprotectTakeDirtyPagesMissesNoRacingWrite) {
  installDirtyTrackingFaultHandler();
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(2, 2, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), memory.sizeBytes(), error)) << error;
  std::vector<uint8_t> copy(memory.sizeBytes(), 0);
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> writes{0};
  uint64_t pages = memory.sizeBytes() / kHostPageSize;
  std::thread writer([&] {
    uint32_t x = 12345;
    for (uint32_t round = 1; !stop.load(std::memory_order_relaxed); ++round) {
      x = x * 1103515245u + 12345u;
      uint64_t page = (x >> 8) % pages;
      memory.base()[page * kHostPageSize + (x >> 20) % kHostPageSize] = uint8_t(round | 1);
      writes.store(round, std::memory_order_relaxed);
    }
  });
  auto takeIn = [&] {
    for (uint64_t page : tracker->takeDirtyPages())
      std::memcpy(copy.data() + page * kHostPageSize, memory.base() + page * kHostPageSize,
                  kHostPageSize);
  };
  // Takes at least 1000 times, until the writer has made 200000 writes
  // (at most 60 s).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int takes = 0; (takes < 1000 || writes.load(std::memory_order_relaxed) < 200000) &&
                      std::chrono::steady_clock::now() < deadline;
       ++takes)
    takeIn();
  stop = true;
  writer.join();
  takeIn();
  EXPECT_GE(writes.load(), 200000u);
  EXPECT_EQ(std::memcmp(copy.data(), memory.base(), copy.size()), 0);
  EXPECT_TRUE(tracker->takeDirtyPages().empty());
}

// Several threads keep faulting on the same two pages while another takes
// them (a thread host's copy while a lock's release ships it). A take that
// cleared a page's mark between the fault handler's mark and its unprotect
// used to leave the page writable and unmarked for good: the copy then
// missed later writes, and a write after the last take went unrecorded.
TEST(DirtyTracker, MprotectTakeDirtyPagesWithManyFaultingWritersKeepsEveryPageTracked) {
  installDirtyTrackingFaultHandler();
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 1, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), memory.sizeBytes(), error)) << error;
  constexpr int kWriters = 3;
  constexpr uint64_t kWrittenPages = 2;
  std::vector<uint8_t> copy(memory.sizeBytes(), 0);
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t)
    writers.emplace_back([&, t] {
      for (uint32_t round = 1; !stop.load(std::memory_order_relaxed); ++round) {
        uint64_t page = round % kWrittenPages;
        memory.base()[page * kHostPageSize + uint64_t(t) * 64 + round % 64] = uint8_t(round | 1);
      }
    });
  auto takeIn = [&] {
    uint64_t taken = 0;
    for (uint64_t page : tracker->takeDirtyPages()) {
      std::memcpy(copy.data() + page * kHostPageSize, memory.base() + page * kHostPageSize,
                  kHostPageSize);
      ++taken;
    }
    return taken;
  };
  // 100000 takes that found pages, or 10 s, whichever comes first.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (uint64_t productive = 0;
       productive < 100000 && std::chrono::steady_clock::now() < deadline;)
    productive += takeIn() != 0;
  stop = true;
  for (std::thread& writer : writers) writer.join();
  takeIn();
  EXPECT_EQ(std::memcmp(copy.data(), memory.base(), copy.size()), 0);
  // Every page is clean now, so a write to any of them must be recorded.
  for (uint64_t page = 0; page < kWrittenPages; ++page) {
    memory.base()[page * kHostPageSize + 4000] = 7;
    EXPECT_EQ(tracker->takeDirtyPages(), std::vector<uint64_t>{page}) << "page " << page;
  }
}

// Every write-enabled page splits the mapping; past vm.max_map_count the
// kernel refuses, and the tracker has to unprotect (and report) more pages.
TEST(DirtyTracker, MprotectKeepsTrackingPastTheKernelMappingLimit) {
  installDirtyTrackingFaultHandler();
  uint64_t maxMapCount = 0;
  if (FILE* limit = std::fopen("/proc/sys/vm/max_map_count", "r")) {
    if (std::fscanf(limit, "%lu", &maxMapCount) != 1) maxMapCount = 0;
    std::fclose(limit);
  }
  if (maxMapCount == 0 || maxMapCount > 100000)
    GTEST_SKIP() << "mapping limit unknown or too high to reach cheaply: " << maxMapCount;
  uint64_t wasmPages = (maxMapCount + 2048) / kHostPagesPerWasmPage + 1;
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(wasmPages, wasmPages, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), memory.sizeBytes(), error)) << error;
  uint64_t hostPages = memory.sizeBytes() / kHostPageSize;
  for (uint64_t page = 0; page < hostPages; page += 2) memory.base()[page * kHostPageSize + 1] = 1;

  std::vector<uint64_t> dirty = tracker->dirtyPages();
  std::vector<bool> isDirty(hostPages);
  for (uint64_t page : dirty) isDirty[page] = true;
  for (uint64_t page = 0; page < hostPages; page += 2) ASSERT_TRUE(isDirty[page]) << page;
  EXPECT_GT(dirty.size(), hostPages / 2);  // the fallback reported extra pages
  EXPECT_EQ(memory.base()[(hostPages - 2) * kHostPageSize + 1], 1);

  tracker->clear();
  memory.base()[3 * kHostPageSize] = 5;
  EXPECT_EQ(tracker->dirtyPages(), pages({3}));
}

TEST(DirtyTracker, MprotectRejectsOverlappingRegionsAndMisalignment) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 4, error)) << error;
  auto first = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  auto second = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(first && second) << error;
  ASSERT_TRUE(first->start(memory.base() + kHostPageSize, 2 * kHostPageSize, error)) << error;
  EXPECT_FALSE(second->start(memory.base(), 2 * kHostPageSize, error));
  EXPECT_NE(error.find("already"), std::string::npos) << error;
  EXPECT_FALSE(second->start(memory.base() + 1, kHostPageSize, error));
  EXPECT_TRUE(second->start(memory.base() + 3 * kHostPageSize, kHostPageSize, error)) << error;
}

TEST(DirtyTracker, FaultsOutsideLiveRegionsAreNotHandled) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 4, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), kHostPageSize, error)) << error;
  EXPECT_FALSE(handleDirtyTrackingFault(memory.base() + kHostPageSize));
  EXPECT_FALSE(handleDirtyTrackingFault(memory.base() - 1));
  // A write fault to the tracked page, resolved directly.
  EXPECT_TRUE(handleDirtyTrackingFault(memory.base() + 100));
  EXPECT_EQ(tracker->dirtyPages(), pages({0}));
  tracker->stop();
  EXPECT_FALSE(handleDirtyTrackingFault(memory.base() + 100));
  memory.base()[kHostPageSize - 1] = 3;  // stop() left it writable
  EXPECT_EQ(memory.base()[kHostPageSize - 1], 3);
}

TEST(DirtyTracker, SystemCallsWriteTrackedMemoryAfterPrepareHostWrite) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 4, error)) << error;
  auto tracker = createDirtyTracker(DirtyTrackingMode::Mprotect, error);
  ASSERT_TRUE(tracker) << error;
  ASSERT_TRUE(tracker->start(memory.base(), memory.sizeBytes(), error)) << error;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const char message[] = "hello from the kernel";
  uint8_t* target = memory.base() + 2 * kHostPageSize - 5;  // straddles pages 1 and 2

  ASSERT_EQ(write(fds[1], message, sizeof message), ssize_t(sizeof message));
  errno = 0;
  EXPECT_EQ(read(fds[0], target, sizeof message), -1);  // write-protected: no fault, EFAULT
  EXPECT_EQ(errno, EFAULT);

  prepareHostWrite(target, sizeof message);
  EXPECT_EQ(read(fds[0], target, sizeof message), ssize_t(sizeof message));
  EXPECT_STREQ(reinterpret_cast<char*>(target), message);
  EXPECT_EQ(tracker->dirtyPages(), pages({1, 2}));
  close(fds[0]);
  close(fds[1]);
}

namespace {

void exitWith42(int) { _exit(42); }

// Writes to a read-only page no tracker knows about.
void writeUntrackedReadOnlyPage() {
  void* page = mmap(nullptr, kHostPageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile uint8_t*>(page) = 1;
}

}  // namespace

TEST(DirtyTrackerDeathTest, OtherFaultsReachThePreviousHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        signal(SIGSEGV, exitWith42);
        installDirtyTrackingFaultHandler();
        writeUntrackedReadOnlyPage();
      },
      testing::ExitedWithCode(42), "");
}

TEST(DirtyTrackerDeathTest, OtherFaultsGetTheDefaultActionWithoutPreviousHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        signal(SIGSEGV, SIG_DFL);
        installDirtyTrackingFaultHandler();
        writeUntrackedReadOnlyPage();
      },
      testing::KilledBySignal(SIGSEGV), "");
}
