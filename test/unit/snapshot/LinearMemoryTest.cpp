// Unit tests for the guard-page, private anonymous linear memory and snapshots.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "snapshot/HugePagePolicy.h"
#include "snapshot/LinearMemory.h"
#include "snapshot/Snapshot.h"

using namespace synergy::snapshot;

TEST(LinearMemory, GrowKeepsBaseAndContents) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 100, error)) << error;
  uint8_t* base = memory.base();
  std::memset(base, 0xab, kWasmPageSize);
  EXPECT_EQ(memory.grow(3), 1);
  EXPECT_EQ(memory.base(), base);
  EXPECT_EQ(memory.pages(), 4u);
  EXPECT_EQ(base[kWasmPageSize - 1], 0xab);
  EXPECT_EQ(base[kWasmPageSize], 0);  // new pages are zero
  base[4 * kWasmPageSize - 1] = 7;    // and writable
  EXPECT_EQ(memory.grow(200), -1);    // past the maximum
  EXPECT_EQ(memory.pages(), 4u);
}

TEST(LinearMemory, ReservationCoversEveryWasm32AddressPlusOffset) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(1, 10, error)) << error;
  EXPECT_TRUE(memory.reservationContains(memory.base() + 0xffffffffull + 0xffffffffull));
  EXPECT_FALSE(memory.reservationContains(memory.base() + kReservationBytes));
}

// Two memories mapping one file at the same offset see each other's stores
// there and nowhere else; after unmapping, the range is private zero pages.
TEST(LinearMemory, SharedFileRangeIsSharedUntilUnmapped) {
  LinearMemory first, second;
  std::string error;
  ASSERT_TRUE(first.create(3, 10, error)) << error;
  ASSERT_TRUE(second.create(3, 10, error)) << error;
  int fd = memfd_create("linear-memory-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t(kWasmPageSize)), 0);
  first.base()[kWasmPageSize] = 5;  // overwritten by the file's zeros
  ASSERT_TRUE(first.mapSharedFile(kWasmPageSize, fd, kWasmPageSize));
  ASSERT_TRUE(second.mapSharedFile(kWasmPageSize, fd, kWasmPageSize));
  close(fd);  // the mappings keep the file
  EXPECT_EQ(first.base()[kWasmPageSize], 0);
  first.base()[kWasmPageSize + 17] = 42;
  EXPECT_EQ(second.base()[kWasmPageSize + 17], 42);
  second.base()[0] = 9;  // outside the shared range: private
  EXPECT_EQ(first.base()[0], 0);
  // Unaligned, empty or out-of-memory ranges are refused.
  EXPECT_FALSE(first.mapSharedFile(100, 3, kWasmPageSize));
  EXPECT_FALSE(first.mapSharedFile(kWasmPageSize, 3, 0));
  EXPECT_FALSE(first.mapSharedFile(3 * kWasmPageSize, 3, kWasmPageSize));
  EXPECT_FALSE(first.unmapSharedFile(2 * kWasmPageSize, 2 * kWasmPageSize));
  ASSERT_TRUE(first.unmapSharedFile(kWasmPageSize, kWasmPageSize));
  EXPECT_EQ(first.base()[kWasmPageSize + 17], 0);
  first.base()[kWasmPageSize + 17] = 1;
  EXPECT_EQ(second.base()[kWasmPageSize + 17], 42);
  EXPECT_EQ(first.pages(), 3u);
}

TEST(Snapshot, RestoreYieldsIdenticalMemoryAndGlobals) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(2, 100, error)) << error;
  for (uint64_t i = 0; i < memory.sizeBytes(); ++i) memory.base()[i] = uint8_t(i * 31 + 7);
  std::vector<uint8_t> globals = {1, 2, 3, 4, 5, 6, 7, 8};
  auto snap = Snapshot::capture(memory, globals, error);
  ASSERT_TRUE(snap) << error;

  // Diverge: write everywhere and grow.
  std::memset(memory.base(), 0, memory.sizeBytes());
  ASSERT_EQ(memory.grow(2), 2);

  ASSERT_TRUE(snap->restoreInto(memory));
  EXPECT_EQ(memory.pages(), 2u);
  for (uint64_t i = 0; i < memory.sizeBytes(); ++i)
    ASSERT_EQ(memory.base()[i], uint8_t(i * 31 + 7)) << "at byte " << i;
  EXPECT_EQ(snap->globals(), globals);

  // Writes after a restore are private: the snapshot stays intact.
  memory.base()[10] = 0xee;
  LinearMemory other;
  ASSERT_TRUE(other.create(1, 100, error));
  ASSERT_TRUE(snap->restoreInto(other));
  EXPECT_EQ(other.base()[10], uint8_t(10 * 31 + 7));

  // The memory can grow again after a restore, with zeroed pages.
  ASSERT_EQ(memory.grow(1), 2);
  EXPECT_EQ(memory.base()[2 * kWasmPageSize + 5], 0);
}

namespace {

// Anonymous (privately copied) kilobytes in the mapping that starts at `start`,
// from /proc/self/smaps; -1 when the mapping is not found.
long anonymousKilobytesAt(const void* start) {
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (!smaps) return -1;
  char line[512];
  bool inMapping = false;
  long anonymous = -1;
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long from, to;
    if (std::sscanf(line, "%lx-%lx ", &from, &to) == 2) {
      inMapping = from == reinterpret_cast<unsigned long>(start);
      continue;
    }
    if (inMapping && std::sscanf(line, "Anonymous: %ld kB", &anonymous) == 1) break;
  }
  std::fclose(smaps);
  return anonymous;
}

// The header line and VmFlags of the mapping that starts at `start`, from
// /proc/self/smaps; empty strings when the mapping is not found.
std::pair<std::string, std::string> mappingHeaderAndFlags(const void* start) {
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (!smaps) return {};
  char line[512];
  bool inMapping = false;
  std::pair<std::string, std::string> result;
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long from, to;
    if (std::sscanf(line, "%lx-%lx ", &from, &to) == 2) {
      if (inMapping) break;
      inMapping = from == reinterpret_cast<unsigned long>(start);
      if (inMapping) result.first = line;
      continue;
    }
    if (inMapping && std::strncmp(line, "VmFlags:", 8) == 0) result.second = line;
  }
  std::fclose(smaps);
  return result;
}

}  // namespace

// The accessible memory is private anonymous memory (the cheap fault path,
// and nothing to free a second time at exit) and starts on a 2 MiB boundary.
// The initial memory and a small growth keep 4 KiB pages (one mapping, no
// MADV_HUGEPAGE "hg": a huge page there would zero 2 MiB for a few touched
// kilobytes), while one growth of at least 2 MiB carries MADV_HUGEPAGE, so
// transparent huge pages in madvise mode can back a large array, unless the
// machine is a guest that reports its free memory to the host.
TEST(LinearMemory, OnlyLargeGrowthIsHugePageAdvised) {
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(64, 1000, error)) << error;
  ASSERT_EQ(memory.grow(1), 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.base()) % (2u << 20), 0u);
  const uint64_t smallBytes = memory.sizeBytes();
  ASSERT_EQ(memory.grow(64), 65);

  auto [header, flags] = mappingHeaderAndFlags(memory.base());
  ASSERT_FALSE(header.empty()) << "no mapping starts at the memory's base";
  unsigned long from, to;
  char permissions[5] = {};
  unsigned long offset;
  char device[16] = {};
  unsigned long inode = 1;
  ASSERT_EQ(std::sscanf(header.c_str(), "%lx-%lx %4s %lx %15s %lu", &from, &to, permissions,
                        &offset, device, &inode),
            6)
      << header;
  EXPECT_STREQ(permissions, "rw-p") << header;
  EXPECT_EQ(inode, 0u) << "backed by a file: " << header;
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
  if (!largeGrowthWantsHugePages()) {
    // Nothing advised: the large growth continues the same mapping.
    EXPECT_EQ(to - from, memory.sizeBytes()) << header;
    return;
  }
  EXPECT_EQ(to - from, smallBytes) << header;

  auto [largeHeader, largeFlags] = mappingHeaderAndFlags(memory.base() + smallBytes);
  ASSERT_FALSE(largeHeader.empty()) << "the large growth is not a mapping of its own";
  ASSERT_EQ(std::sscanf(largeHeader.c_str(), "%lx-%lx %4s", &from, &to, permissions), 3)
      << largeHeader;
  EXPECT_STREQ(permissions, "rw-p") << largeHeader;
  EXPECT_EQ(to - from, 64 * kWasmPageSize) << largeHeader;
  EXPECT_NE(largeFlags.find(" hg"), std::string::npos) << largeFlags;
}

// Huge pages are asked for exactly where no balloon device reports free
// memory to the host.
TEST(HugePagePolicy, FollowsFreePageReporting) {
  EXPECT_EQ(largeGrowthWantsHugePages(), !freePageReportingActive("/sys"));
}

namespace {

// A scratch sysfs tree holding a virtio balloon driver directory, removed
// again on destruction.
class FakeSysfs {
 public:
  FakeSysfs() {
    char pattern[] = "/tmp/synergy-sysfs-XXXXXX";
    if (mkdtemp(pattern)) root_ = pattern;
  }
  ~FakeSysfs() {
    std::error_code ignored;
    if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
  }
  const std::string& root() const { return root_; }
  bool makeDriver() const { return std::filesystem::create_directories(driver()); }
  // Adds a device directory `name` whose features file holds `bits`.
  bool addDevice(const std::string& name, const std::string& bits) const {
    const std::string device = driver() + "/" + name;
    if (!std::filesystem::create_directories(device)) return false;
    std::ofstream features(device + "/features");
    features << bits;
    return bool(features.flush());
  }

 private:
  std::string driver() const { return root_ + "/bus/virtio/drivers/virtio_balloon"; }
  std::string root_;
};

}  // namespace

// Free page reporting is VIRTIO_BALLOON_F_REPORTING, bit 5 of a bound balloon
// device's negotiated features ("01100101..." is what a Firecracker guest
// shows); any other bit, a short file, a non-device entry or no driver at all
// is no reporting.
TEST(HugePagePolicy, FreePageReportingIsBalloonFeatureBitFive) {
  FakeSysfs sysfs;
  ASSERT_FALSE(sysfs.root().empty());
  EXPECT_FALSE(freePageReportingActive(sysfs.root()));
  ASSERT_TRUE(sysfs.makeDriver());
  EXPECT_FALSE(freePageReportingActive(sysfs.root()));
  ASSERT_TRUE(sysfs.addDevice("virtio0", "01100"));
  EXPECT_FALSE(freePageReportingActive(sysfs.root()));
  ASSERT_TRUE(sysfs.addDevice("virtio1", "0111100100000000"));
  EXPECT_FALSE(freePageReportingActive(sysfs.root()));
  ASSERT_TRUE(sysfs.addDevice("module", "0000010000000000"));
  EXPECT_FALSE(freePageReportingActive(sysfs.root()));
  ASSERT_TRUE(sysfs.addDevice("virtio2", "0110010100000000"));
  EXPECT_TRUE(freePageReportingActive(sysfs.root()));
}

// Restoring 256 MiB must be a remapping: right after the restore no page of
// the memory is a private copy (smaps "Anonymous" is 0), and writing one page
// copies exactly that page. A memcpy-based restore would show 256 MiB.
TEST(Snapshot, SparseMemoryRestoresEveryByte) {
  // Capture skips all-zero host pages; a page whose only non-zero byte is
  // its last, and runs of zero and non-zero pages, must still come back.
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(2, 100, error)) << error;
  uint8_t* base = memory.base();
  base[4096 - 1] = 1;
  base[3 * 4096] = 2;
  std::memset(base + 5 * 4096, 3, 2 * 4096);
  base[memory.sizeBytes() - 1] = 4;
  std::vector<uint8_t> expected(base, base + memory.sizeBytes());
  auto snap = Snapshot::capture(memory, {}, error);
  ASSERT_TRUE(snap) << error;

  std::memset(base, 0x55, memory.sizeBytes());
  ASSERT_TRUE(snap->restoreInto(memory));
  ASSERT_EQ(memory.sizeBytes(), expected.size());
  EXPECT_EQ(std::memcmp(memory.base(), expected.data(), expected.size()), 0);

  // The restored memory is now a view of the snapshot's file, where a page
  // the kernel has not populated may still hold data, so a capture of it
  // must read every page rather than skip unpopulated ones.
  EXPECT_FALSE(memory.isAnonymous());
  auto again = Snapshot::capture(memory, {}, error);
  ASSERT_TRUE(again) << error;
  LinearMemory other;
  ASSERT_TRUE(other.create(0, 100, error)) << error;
  ASSERT_TRUE(again->restoreInto(other));
  EXPECT_EQ(std::memcmp(other.base(), expected.data(), expected.size()), 0);
}

TEST(Snapshot, RestoreOf256MiBIsARemapNotACopy) {
  constexpr uint64_t kPages = (256ull << 20) / kWasmPageSize;
  LinearMemory memory;
  std::string error;
  ASSERT_TRUE(memory.create(kPages, kPages, error)) << error;
  for (uint64_t i = 0; i < memory.sizeBytes(); i += 4096) memory.base()[i] = uint8_t(i >> 12);
  auto snap = Snapshot::capture(memory, {}, error);
  ASSERT_TRUE(snap) << error;

  LinearMemory target;
  ASSERT_TRUE(target.create(1, kPages, error)) << error;
  ASSERT_TRUE(snap->restoreInto(target));
  ASSERT_EQ(target.sizeBytes(), 256ull << 20);

  EXPECT_EQ(target.base()[4096 * 77], uint8_t(77));
  EXPECT_EQ(target.base()[target.sizeBytes() - 4096], uint8_t((target.sizeBytes() - 4096) >> 12));
  EXPECT_EQ(anonymousKilobytesAt(target.base()), 0);
  target.base()[4096 * 5] = 1;
  EXPECT_EQ(anonymousKilobytesAt(target.base()), 4);
}
