// Unit tests for merging replicas' diffs into the main copy and for the diff
// that sends the merged result back.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "snapshot/DiffMerger.h"

using namespace synergy::snapshot;

namespace {

constexpr uint64_t kPage = 256;
constexpr uint64_t kBytes = 4 * kPage;

struct Copy {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kBytes, 0);
  uint8_t* data() { return bytes.data(); }

  template <typename T>
  T get(uint64_t offset) const {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
  }
  template <typename T>
  void set(uint64_t offset, T value) {
    std::memcpy(bytes.data() + offset, &value, sizeof value);
  }
};

MemoryDiff diffAll(const Copy& current, const Copy& baseline) {
  return diffPages(current.bytes.data(), baseline.bytes.data(), {0, 1, 2, 3}, kPage);
}

}  // namespace

TEST(DiffMerger, BytesOutsideRegionsOverwriteAndOthersStayUntouched) {
  Copy baseline, main, replica;
  for (uint64_t i = 0; i < kBytes; ++i) baseline.bytes[i] = main.bytes[i] = uint8_t(i);
  replica = baseline;
  replica.bytes[10] = 0xee;
  replica.bytes[12] = 0xef;
  main.bytes[11] = 0x99;  // written concurrently by another thread
  mergeDiff(main.data(), baseline.data(), diffAll(replica, baseline), {});
  EXPECT_EQ(main.bytes[10], 0xee);
  EXPECT_EQ(main.bytes[11], 0x99);
  EXPECT_EQ(main.bytes[12], 0xef);
  EXPECT_EQ(main.bytes[13], 13);
}

TEST(DiffMerger, Table3TwoReplicasSumIntoMain) {
  // Main A0 = 100 in an int64 and a double; replicas R and S both started
  // from B0 and each changed the values. Overwrite would keep only S's.
  Copy baseline;
  baseline.set<int64_t>(64, 40);
  baseline.set<double>(128, 1.5);
  Copy main = baseline;
  main.set<int64_t>(64, 100);
  main.set<double>(128, 10.0);
  Copy r = baseline, s = baseline;
  r.set<int64_t>(64, 47);
  r.set<double>(128, 2.0);
  s.set<int64_t>(64, 30);
  s.set<double>(128, 5.25);
  std::vector<MergeRegion> regions = {{128, 8, MergeOp::Sum, MergeType::F64},
                                      {64, 8, MergeOp::Sum, MergeType::I64}};
  mergeDiff(main.data(), baseline.data(), diffAll(r, baseline), regions);
  mergeDiff(main.data(), baseline.data(), diffAll(s, baseline), regions);
  EXPECT_EQ(main.get<int64_t>(64), 100 + 7 - 10);
  EXPECT_EQ(main.get<double>(128), 10.0 + 0.5 + 3.75);
}

TEST(DiffMerger, PartlyTouchedElementIsMergedWhole) {
  Copy baseline;
  baseline.set<int32_t>(16, 0x100);
  Copy main = baseline;
  main.set<int32_t>(16, 0x2ff);
  Copy replica = baseline;
  replica.set<int32_t>(16, 0x105);  // only the low byte differs
  MemoryDiff diff = diffAll(replica, baseline);
  ASSERT_EQ(diff.changedBytes(), 1u);

  DiffMerger merger;
  merger.merge(main.data(), baseline.data(), diff, {{0, 64, MergeOp::Sum, MergeType::I32}});
  EXPECT_EQ(main.get<int32_t>(16), 0x304);  // the carry changed main's second byte
  ASSERT_EQ(merger.touchedRanges().size(), 1u);
  EXPECT_EQ(merger.touchedRanges()[0].offset, 16u);
  EXPECT_EQ(merger.touchedRanges()[0].length, 4u);
}

TEST(DiffMerger, ElementTouchedByTwoRangesIsMergedOnce) {
  Copy baseline;
  Copy main;
  main.set<int32_t>(8, 5);
  Copy replica;
  replica.set<int32_t>(8, 0x01000001);  // bytes 8 and 11 change, 9 and 10 do not
  MemoryDiff diff = diffAll(replica, baseline);
  ASSERT_EQ(diff.ranges().size(), 2u);
  mergeDiff(main.data(), baseline.data(), diff, {{8, 4, MergeOp::Sum, MergeType::I32}});
  EXPECT_EQ(main.get<int32_t>(8), 5 + 0x01000001);
}

TEST(DiffMerger, RunSpanningRegionAndPlainBytes) {
  Copy baseline, main;
  main.set<int32_t>(20, 1000);
  Copy replica;
  std::memset(replica.data() + 16, 0x01, 12);  // bytes 16..27: plain, region, plain
  mergeDiff(main.data(), baseline.data(), diffAll(replica, baseline),
            {{20, 4, MergeOp::Sum, MergeType::I32}});
  EXPECT_EQ(main.get<int32_t>(16), 0x01010101);
  EXPECT_EQ(main.get<int32_t>(20), 1000 + 0x01010101);
  EXPECT_EQ(main.get<int32_t>(24), 0x01010101);
}

TEST(DiffMerger, IgnoreRegionDropsChangesAndTrailingBytesOverwrite) {
  Copy baseline, main, replica;
  main.set<int32_t>(0, 77);
  replica.set<int32_t>(0, 5);
  replica.bytes[6] = 9;  // past the whole elements of a 7-byte I32 region
  mergeDiff(main.data(), baseline.data(), diffAll(replica, baseline),
            {{0, 7, MergeOp::Ignore, MergeType::I32}});
  EXPECT_EQ(main.get<int32_t>(0), 77);
  EXPECT_EQ(main.bytes[6], 9);
}

TEST(DiffMerger, AscendingDiffsCoalesceAndResetForgetsThem) {
  Copy baseline, main, r, s;
  for (uint64_t i = 10; i < 20; ++i) r.bytes[i] = 1;
  for (uint64_t i = 18; i < 30; ++i) s.bytes[i] = 2;
  s.bytes[100] = 3;
  DiffMerger merger;
  merger.merge(main.data(), baseline.data(), diffAll(r, baseline), {});
  merger.merge(main.data(), baseline.data(), diffAll(s, baseline), {});
  const std::vector<ByteRange>& touched = merger.touchedRanges();
  ASSERT_EQ(touched.size(), 2u);
  EXPECT_EQ(touched[0].offset, 10u);
  EXPECT_EQ(touched[0].length, 20u);
  EXPECT_EQ(touched[1].offset, 100u);
  EXPECT_EQ(touched[1].length, 1u);

  merger.reset();
  merger.merge(main.data(), baseline.data(), diffAll(r, baseline), {});
  ASSERT_EQ(merger.touchedRanges().size(), 1u);
  EXPECT_EQ(merger.touchedRanges()[0].offset, 10u);
  EXPECT_EQ(merger.touchedRanges()[0].length, 10u);
}

TEST(DiffMerger, UpdateBringsEveryReplicaUpToDate) {
  Copy baseline;
  for (uint64_t i = 0; i < kBytes; ++i) baseline.bytes[i] = uint8_t(i * 3);
  baseline.set<int32_t>(500, 10);
  Copy main = baseline;
  Copy r = baseline, s = baseline;
  r.bytes[3] = 0xaa;                         // only R
  s.bytes[700] = 0xbb;                       // only S
  r.bytes[300] = 1, s.bytes[301] = 2;        // same neighbourhood
  r.set<int32_t>(500, 13);                   // both add
  s.set<int32_t>(500, 1010);
  std::vector<MergeRegion> regions = {{500, 4, MergeOp::Sum, MergeType::I32}};

  DiffMerger merger;
  merger.merge(main.data(), baseline.data(), diffAll(r, baseline), regions);
  merger.merge(main.data(), baseline.data(), diffAll(s, baseline), regions);
  EXPECT_EQ(main.get<int32_t>(500), 10 + 3 + 1000);

  MemoryDiff update = merger.update(main.data());
  // Touched: 3, 300..301 (coalesced), 500..503, 700.
  ASSERT_EQ(update.ranges().size(), 4u);
  EXPECT_EQ(update.ranges()[1].offset, 300u);
  EXPECT_EQ(update.ranges()[1].length, 2u);
  EXPECT_EQ(update.changedBytes(), 1u + 2u + 4u + 1u);
  update.apply(r.data());
  update.apply(s.data());
  EXPECT_EQ(r.bytes, main.bytes);
  EXPECT_EQ(s.bytes, main.bytes);

  merger.reset();
  EXPECT_TRUE(merger.update(main.data()).empty());
}
