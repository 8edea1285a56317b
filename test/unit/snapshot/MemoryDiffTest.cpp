// Unit tests for byte-wise memory diffs: exactness, application and the wire
// form.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "snapshot/MemoryDiff.h"

using namespace synergy::snapshot;

namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

Ranges rangesOf(const MemoryDiff& diff) {
  Ranges out;
  for (const DiffRange& range : diff.ranges()) out.emplace_back(range.offset, range.length);
  return out;
}

// The maximal runs of differing bytes over the listed pages, byte by byte.
Ranges referenceRanges(const std::vector<uint8_t>& current, const std::vector<uint8_t>& baseline,
                       const std::vector<uint64_t>& pages, uint64_t pageSize) {
  Ranges out;
  for (uint64_t page : pages)
    for (uint64_t i = page * pageSize; i < (page + 1) * pageSize; ++i) {
      if (current[i] == baseline[i]) continue;
      if (!out.empty() && out.back().first + out.back().second == i)
        ++out.back().second;
      else
        out.emplace_back(i, 1);
    }
  return out;
}

}  // namespace

TEST(MemoryDiff, EmitsExactlyTheChangedBytes) {
  constexpr uint64_t kPage = 4096;
  std::vector<uint8_t> baseline(3 * kPage);
  for (size_t i = 0; i < baseline.size(); ++i) baseline[i] = uint8_t(i * 13);
  std::vector<uint8_t> current = baseline;
  current[10] ^= 1;
  current[12] ^= 1;  // byte 11 is unchanged and must stay out of the diff
  for (uint64_t i = 100; i < 300; ++i) current[i] ^= 0xff;  // crosses words and blocks
  for (uint64_t i = kPage - 3; i < kPage + 2; ++i) current[i] ^= 0x10;  // crosses a page boundary
  current[2 * kPage + 7] ^= 4;  // on a page not listed

  MemoryDiff diff = diffPages(current.data(), baseline.data(), {0, 1}, kPage);
  EXPECT_EQ(rangesOf(diff), (Ranges{{10, 1}, {12, 1}, {100, 200}, {kPage - 3, 5}}));
  EXPECT_EQ(diff.changedBytes(), 1u + 1u + 200u + 5u);
  EXPECT_EQ(diff.dataOf(diff.ranges()[1])[0], current[12]);
  EXPECT_EQ(diff.dataOf(diff.ranges()[2])[199], current[299]);
  EXPECT_EQ(diff.end(), kPage + 2);

  std::vector<uint8_t> target = baseline;
  diff.apply(target.data());
  for (uint64_t i = 0; i < 2 * kPage; ++i) ASSERT_EQ(target[i], current[i]) << i;
  EXPECT_EQ(target[2 * kPage + 7], baseline[2 * kPage + 7]);
}

TEST(MemoryDiff, MatchesByteByByteReferenceOnRandomChanges) {
  std::mt19937_64 random(1234);
  for (uint64_t pageSize : {4096ull, 64ull, 100ull, 7ull}) {
    constexpr uint64_t kPages = 24;
    std::vector<uint8_t> baseline(kPages * pageSize);
    for (auto& byte : baseline) byte = uint8_t(random());
    std::vector<uint8_t> current = baseline;
    for (int change = 0; change < 400; ++change) {
      uint64_t at = random() % current.size();
      uint64_t length = 1 + random() % (change % 10 == 0 ? 300 : 12);
      for (uint64_t i = at; i < std::min<uint64_t>(at + length, current.size()); ++i)
        current[i] = random() % 3 == 0 ? baseline[i] : uint8_t(random());
    }
    std::vector<uint64_t> pages;
    for (uint64_t page = 0; page < kPages; ++page)
      if (random() % 3) pages.push_back(page);

    MemoryDiff diff = diffPages(current.data(), baseline.data(), pages, pageSize);
    EXPECT_EQ(rangesOf(diff), referenceRanges(current, baseline, pages, pageSize)) << pageSize;
    std::vector<uint8_t> target = baseline;
    diff.apply(target.data());
    for (uint64_t page : pages)
      for (uint64_t i = page * pageSize; i < (page + 1) * pageSize; ++i)
        ASSERT_EQ(target[i], current[i]) << "page size " << pageSize << " byte " << i;
  }
}

TEST(MemoryDiff, UnsortedAndRepeatedPagesGiveTheSameDiff) {
  std::vector<uint8_t> baseline(4 * 64, 0), current = baseline;
  current[3] = 1;
  current[64 * 2 + 5] = 2;
  current[64 * 3] = 3;
  MemoryDiff sorted = diffPages(current.data(), baseline.data(), {0, 2, 3}, 64);
  MemoryDiff unsorted = diffPages(current.data(), baseline.data(), {3, 0, 2, 3}, 64);
  EXPECT_EQ(rangesOf(unsorted), rangesOf(sorted));
  EXPECT_EQ(unsorted.bytes(), sorted.bytes());
  EXPECT_EQ(rangesOf(sorted), (Ranges{{3, 1}, {133, 1}, {192, 1}}));
}

TEST(MemoryDiff, RefilledDiffHoldsOnlyTheNewChanges) {
  std::vector<uint8_t> baseline(4 * 64, 0), first = baseline, second = baseline;
  for (int i = 0; i < 64; ++i) first[64 + i] = uint8_t(i + 1);
  second[200] = 7;
  MemoryDiff diff;
  diffPages(first.data(), baseline.data(), {0, 1, 2, 3}, 64, diff);
  EXPECT_EQ(rangesOf(diff), (Ranges{{64, 64}}));
  diffPages(second.data(), baseline.data(), {3}, 64, diff);
  EXPECT_EQ(rangesOf(diff), (Ranges{{200, 1}}));
  EXPECT_EQ(diff.bytes(), std::vector<uint8_t>{7});
  EXPECT_EQ(diff.ranges()[0].dataOffset, 0u);
}

TEST(MemoryDiff, EqualPagesGiveAnEmptyDiff) {
  std::vector<uint8_t> baseline(8192, 9);
  MemoryDiff diff = diffPages(baseline.data(), baseline.data(), {0, 1}, 4096);
  EXPECT_TRUE(diff.empty());
  EXPECT_EQ(diff.end(), 0u);
}

TEST(MemoryDiff, AppendExtendsAdjacentRanges) {
  MemoryDiff diff;
  const uint8_t bytes[] = {1, 2, 3, 4};
  diff.append(10, bytes, 2);
  diff.append(12, bytes + 2, 2);
  diff.append(20, bytes, 1);
  diff.append(30, bytes, 0);
  EXPECT_EQ(rangesOf(diff), (Ranges{{10, 4}, {20, 1}}));
  EXPECT_EQ(diff.bytes(), (std::vector<uint8_t>{1, 2, 3, 4, 1}));
  EXPECT_EQ(diff.ranges()[1].dataOffset, 4u);
}

TEST(MemoryDiff, SerialisationRoundTrips) {
  MemoryDiff diff;
  std::vector<uint8_t> bytes(300);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i);
  diff.append(0, bytes.data(), 3);
  diff.append(200, bytes.data() + 3, 200);
  diff.append((1ull << 32) + 5, bytes.data() + 203, 97);
  std::vector<uint8_t> wire = diff.serialise();
  // Count, three (gap, length) headers of at most 5 bytes each, the bytes.
  EXPECT_LE(wire.size(), 1 + 3 * 5 + diff.changedBytes());

  MemoryDiff parsed;
  std::string error;
  ASSERT_TRUE(MemoryDiff::deserialise(wire.data(), wire.size(), parsed, error)) << error;
  EXPECT_EQ(rangesOf(parsed), rangesOf(diff));
  EXPECT_EQ(parsed.bytes(), diff.bytes());
  EXPECT_EQ(parsed.ranges()[2].dataOffset, 203u);

  MemoryDiff empty;
  std::vector<uint8_t> emptyWire = empty.serialise();
  EXPECT_EQ(emptyWire, std::vector<uint8_t>{0});
  ASSERT_TRUE(MemoryDiff::deserialise(emptyWire.data(), emptyWire.size(), parsed, error)) << error;
  EXPECT_TRUE(parsed.empty());
}

TEST(MemoryDiff, DeserialiseRejectsMalformedInput) {
  MemoryDiff diff;
  const uint8_t bytes[] = {7, 8, 9};
  diff.append(5, bytes, 2);
  diff.append(100, bytes + 2, 1);
  std::vector<uint8_t> wire = diff.serialise();
  MemoryDiff parsed;
  std::string error;

  for (size_t cut = 0; cut < wire.size(); ++cut)
    EXPECT_FALSE(MemoryDiff::deserialise(wire.data(), cut, parsed, error)) << "cut at " << cut;
  std::vector<uint8_t> trailing = wire;
  trailing.push_back(0);
  EXPECT_FALSE(MemoryDiff::deserialise(trailing.data(), trailing.size(), parsed, error));

  const std::vector<uint8_t> zeroLength = {1, 5, 0};
  EXPECT_FALSE(MemoryDiff::deserialise(zeroLength.data(), zeroLength.size(), parsed, error));
  const std::vector<uint8_t> adjacent = {2, 0, 1, 0, 1, 7, 8};
  EXPECT_FALSE(MemoryDiff::deserialise(adjacent.data(), adjacent.size(), parsed, error));
  const std::vector<uint8_t> overflowing = {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 2, 0, 0};
  EXPECT_FALSE(MemoryDiff::deserialise(overflowing.data(), overflowing.size(), parsed, error));
  EXPECT_FALSE(error.empty());
  // A failed parse leaves the output alone.
  ASSERT_TRUE(MemoryDiff::deserialise(wire.data(), wire.size(), parsed, error)) << error;
  EXPECT_FALSE(MemoryDiff::deserialise(zeroLength.data(), zeroLength.size(), parsed, error));
  EXPECT_EQ(rangesOf(parsed), rangesOf(diff));
}
