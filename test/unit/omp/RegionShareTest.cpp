// Unit tests for RegionShare: the message that gives a thread host its
// threads of a parallel region survives the wire exactly, fits its frame,
// and every malformed one is refused with a reason.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "omp/RegionShare.h"
#include "transport/FrameTypes.h"

using namespace synergy::omp;

namespace {

constexpr uint64_t kMemoryBytes = 4 * 65536;

RegionShare sampleShare() {
  RegionShare share;
  share.copySequence = (uint64_t{7} << 32) | 3;
  share.microtask = 12;
  share.teamSize = 6;
  share.level = 1;
  share.activeLevel = 1;
  share.icvs.nthreads = 6;
  share.icvs.runScheduleKind = 3;
  share.icvs.runScheduleChunk = 5;
  share.icvs.defaultAllocator = 4;
  share.threads = {{2, 3, 0x20000, 0x20010}, {3, 4, 0x30000, 0x30010}, {5, 6, 0x3fff0, 0x3fff0}};
  share.arguments = {0x1000, 0x1004, 0xffffffff};
  return share;
}

// Encodes the sample, lets `forge` change the bytes, and expects a refusal
// whose message contains `reason`.
void expectRefused(const std::function<void(std::vector<uint8_t>&)>& forge, const char* reason) {
  std::vector<uint8_t> bytes = encodeRegionShare(sampleShare());
  forge(bytes);
  RegionShare share;
  std::string error;
  EXPECT_FALSE(decodeRegionShare(bytes.data(), bytes.size(), kMemoryBytes, share, error)) << reason;
  EXPECT_NE(error.find(reason), std::string::npos) << error;
}

void setWord(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  std::memcpy(bytes.data() + at, &value, 4);
}

// Byte offsets of the head's words.
constexpr size_t kTeamSize = 12, kActiveLevel = 20, kMaxLevels = 28, kThreadCount = 48;
constexpr size_t kFirstThread = 56;

}  // namespace

TEST(RegionShare, RoundTripsExactly) {
  RegionShare sent = sampleShare();
  std::vector<uint8_t> bytes = encodeRegionShare(sent);
  EXPECT_EQ(bytes.size(), kRegionShareHeadBytes + 3 * kRegionShareThreadBytes + 3 * 4);
  RegionShare got;
  std::string error;
  ASSERT_TRUE(decodeRegionShare(bytes.data(), bytes.size(), kMemoryBytes, got, error)) << error;
  EXPECT_EQ(got.copySequence, sent.copySequence);
  EXPECT_EQ(got.microtask, 12u);
  EXPECT_EQ(got.teamSize, 6u);
  EXPECT_EQ(got.icvs.runScheduleKind, 3);
  EXPECT_EQ(got.icvs.runScheduleChunk, 5);
  EXPECT_EQ(got.icvs.defaultAllocator, 4u);
  ASSERT_EQ(got.threads.size(), 3u);
  EXPECT_EQ(got.threads[2].threadNum, 5u);
  EXPECT_EQ(got.threads[2].globalThreadId, 6u);
  EXPECT_EQ(got.threads[1].stackTop, 0x30000u);
  EXPECT_EQ(got.threads[1].tlsBlock, 0x30010u);
  EXPECT_EQ(got.arguments, sent.arguments);
}

TEST(RegionShare, TheLargestShareFitsItsFrame) {
  EXPECT_EQ(synergy::transport::maxPayloadBytes(synergy::transport::FrameType::OmpRegionShare),
            kMaxRegionShareBytes);
}

TEST(RegionShare, MalformedSharesAreRefused) {
  expectRefused([](auto& b) { b.resize(20); }, "shorter than its head");
  expectRefused([](auto& b) { b.pop_back(); }, "where its counts make");
  expectRefused([](auto& b) { b.push_back(0); }, "where its counts make");
  expectRefused([](auto& b) { std::memset(b.data(), 0, 8); }, "no copy update");
  expectRefused([](auto& b) { setWord(b, kTeamSize, 1); }, "team of 1");
  expectRefused([](auto& b) { setWord(b, kActiveLevel, 2); }, "active level");
  expectRefused([](auto& b) { setWord(b, kMaxLevels, 256); }, "invalid ICVs");
  expectRefused([](auto& b) { setWord(b, kThreadCount, 6); }, "6 threads of a team of 6");
  expectRefused([](auto& b) { setWord(b, kThreadCount, 0xffffffff); }, "threads of a team");
  // Thread 0 stays on the main host; numbers ascend and stay in the team.
  expectRefused([](auto& b) { setWord(b, kFirstThread, 0); }, "thread number 0");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 16, 2); }, "thread number 2 after 2");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 32, 6); }, "thread number 6");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 4, 0); }, "global thread id 0");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 8, 0x40010); }, "outside the 262144-byte");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 8, 0x20008); }, "outside");
  expectRefused([](auto& b) { setWord(b, kFirstThread + 12, 0x40000); }, "outside");
}
