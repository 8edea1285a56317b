//===- PartFileChunksTest.cpp - part files carried to part 0 in chunks -----===//
//
// The chunks a part sends must put together exactly the file it wrote,
// whatever its pieces' sizes against the chunk size; and part 0 must drop
// every chunk a correct sender would not send (a wrong checkpoint, a gap,
// a replay, a changed length, bytes past the end, an absurd length, an
// empty or short chunk) without growing its memory by what a chunk claims.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkpoint/PartFileChunks.h"
#include "util/LittleEndian.h"

namespace synergy::checkpoint {
namespace {

std::vector<std::vector<uint8_t>> chunksOf(uint64_t sequence,
                                           const std::vector<std::string_view>& pieces) {
  std::vector<std::vector<uint8_t>> chunks;
  forEachPartChunk(sequence, pieces, [&](std::vector<uint8_t> chunk) { chunks.push_back(chunk); });
  return chunks;
}

std::vector<uint8_t> chunk(uint64_t sequence, uint64_t offset, uint64_t fileBytes, size_t bytes) {
  std::vector<uint8_t> payload;
  util::appendLittleEndian(payload, sequence, 8);
  util::appendLittleEndian(payload, offset, 8);
  util::appendLittleEndian(payload, fileBytes, 8);
  payload.resize(payload.size() + bytes, 0x5a);
  return payload;
}

TEST(PartFileChunks, ChunksPutTogetherTheFileAcrossPieceAndChunkBoundaries) {
  std::string head(100, 'h');
  std::string big(kMaxPartChunkBytes * 2 + 7, 'b');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char(i * 31);
  std::string tail(kMaxPartChunkBytes - 100, 't');
  auto chunks = chunksOf(9, {head, big, {}, tail});
  ASSERT_EQ(chunks.size(), 4u);  // 2 MiB + 7 + 1 MiB bytes in 1 MiB chunks
  PartFileAssembly assembly;
  std::string reason;
  for (const auto& c : chunks) {
    EXPECT_LE(c.size(), kPartChunkHeadBytes + kMaxPartChunkBytes);
    ASSERT_TRUE(assembly.take(c, 9, 1, reason)) << reason;
  }
  EXPECT_FALSE(assembly.takeWhole(8).has_value());
  auto whole = assembly.takeWhole(9);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(*whole, head + big + tail);
  EXPECT_FALSE(assembly.takeWhole(9).has_value());  // given up once
}

TEST(PartFileChunks, AFileNotWholeIsNotGivenUp) {
  PartFileAssembly assembly;
  std::string reason;
  ASSERT_TRUE(assembly.take(chunk(3, 0, 20, 10), 3, 1, reason)) << reason;
  EXPECT_FALSE(assembly.takeWhole(3).has_value());
  ASSERT_TRUE(assembly.take(chunk(3, 10, 20, 10), 3, 1, reason)) << reason;
  EXPECT_TRUE(assembly.takeWhole(3).has_value());
}

TEST(PartFileChunks, HostileChunksAreRefused) {
  struct Case {
    std::vector<std::vector<uint8_t>> before;  // accepted first
    std::vector<uint8_t> bad;
    std::string reasonStart;
  };
  std::vector<uint8_t> shortChunk(kPartChunkHeadBytes - 1, 0);
  std::vector<Case> cases = {
      {{}, shortChunk, "CheckpointPartData of 23 bytes"},
      {{}, chunk(3, 0, 10, 0), "CheckpointPartData of 24 bytes"},
      {{}, chunk(3, 0, kMaxPartChunkBytes + 1, kMaxPartChunkBytes + 1), "CheckpointPartData of"},
      {{}, chunk(2, 0, 10, 10), "CheckpointPartData of checkpoint 2, not 3"},
      {{}, chunk(3, 5, 10, 5), "CheckpointPartData out of order"},
      {{chunk(3, 0, 20, 10)}, chunk(3, 15, 20, 5), "CheckpointPartData out of order"},
      {{chunk(3, 0, 20, 10)}, chunk(3, 0 + 10, 30, 10), "CheckpointPartData out of order"},
      {{chunk(3, 0, 20, 10)}, chunk(3, 10, 20, 11), "CheckpointPartData past its part file's end"},
      {{}, chunk(3, 0, 5, 6), "CheckpointPartData past its part file's end"},
      {{}, chunk(3, 0, uint64_t(1) << 62, 10), "CheckpointPartData past its part file's end"},
      {{}, chunk(3, 0, UINT64_MAX, 10), "CheckpointPartData past its part file's end"},
  };
  for (const Case& c : cases) {
    PartFileAssembly assembly;
    std::string reason;
    for (const auto& good : c.before) ASSERT_TRUE(assembly.take(good, 3, 1, reason)) << reason;
    EXPECT_FALSE(assembly.take(c.bad, 3, 1, reason)) << c.reasonStart;
    EXPECT_EQ(reason.substr(0, c.reasonStart.size()), c.reasonStart);
  }
  PartFileAssembly undecided;
  std::string reason;
  EXPECT_FALSE(undecided.take(chunk(1, 0, 10, 10), 0, 1, reason));
  EXPECT_EQ(reason, "CheckpointPartData of checkpoint 1, when none was decided");
}

TEST(PartFileChunks, TheLimitGrowsWithTheRanks) {
  EXPECT_LT(maxSentPartFileBytes(1), maxSentPartFileBytes(2));
  EXPECT_GT(maxSentPartFileBytes(1), uint64_t(4) << 30);
  EXPECT_LT(maxSentPartFileBytes(4096), uint64_t(1) << 62);
}

}  // namespace
}  // namespace synergy::checkpoint
