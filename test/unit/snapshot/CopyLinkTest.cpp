// Unit tests for CopyLink: a thread host's copy of the main memory built from
// one shipped snapshot and kept current with diffs, its threads' writes
// merged back through a replica as --dsm merges a local thread's, and every
// malformed or out-of-order payload refused without changing anything.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "snapshot/CopyLink.h"
#include "snapshot/DsmMemory.h"

using namespace synergy::snapshot;

namespace {

constexpr uint64_t kMaxPages = 16;
constexpr uint64_t kNoLimit = 64ull << 20;

template <typename Body>
void onThread(Body body) {
  std::thread thread(body);
  thread.join();
}

bool sameBytes(const LinearMemory& a, const LinearMemory& b) {
  return a.pages() == b.pages() && std::memcmp(a.base(), b.base(), a.sizeBytes()) == 0;
}

uint64_t nonZeroBytes(const LinearMemory& memory) {
  uint64_t count = 0;
  for (uint64_t i = 0; i < memory.sizeBytes(); ++i) count += memory.base()[i] != 0;
  return count;
}

// Delivers `payloads` to `link` as a receiver would: parse, grow, accept.
void deliver(const std::vector<std::vector<uint8_t>>& payloads, CopyLink& link,
             LinearMemory& memory) {
  for (const auto& payload : payloads) {
    CopyUpdate update;
    std::string error;
    ASSERT_TRUE(parseCopyUpdate(payload.data(), payload.size(), kMaxPages, update, error)) << error;
    if (update.pages > memory.pages()) ASSERT_GE(memory.grow(update.pages - memory.pages()), 0);
    ASSERT_TRUE(link.accept(update, memory, error)) << error;
  }
  EXPECT_TRUE(link.updateComplete());
}

// The main host's memory and link, and one thread host's copy and link.
class CopyLinkTest : public testing::Test {
 protected:
  void SetUp() override {
    installDirtyTrackingFaultHandler();
    std::string error;
    ASSERT_TRUE(main_.create(3, kMaxPages, error)) << error;
    // Sparse contents: a zero page in the middle ships nothing.
    for (uint64_t i = 0; i < kWasmPageSize; ++i) main_.base()[i] = uint8_t(i * 7 + 1);
    for (uint64_t i = 2 * kWasmPageSize; i < 2 * kWasmPageSize + 100; ++i) main_.base()[i] = 9;
    ASSERT_TRUE(copy_.create(0, kMaxPages, error)) << error;
    ASSERT_TRUE(mainLink_.start(kMaxPages, error)) << error;
    ASSERT_TRUE(hostLink_.start(kMaxPages, error)) << error;
  }

  std::vector<std::vector<uint8_t>> ship(CopyLink& link, const LinearMemory& memory,
                                         uint64_t limit = kNoLimit) {
    std::vector<std::vector<uint8_t>> payloads;
    std::string error;
    EXPECT_TRUE(link.ship(memory, limit, payloads, error)) << error;
    return payloads;
  }

  LinearMemory main_;
  LinearMemory copy_;
  CopyLink mainLink_;
  CopyLink hostLink_;
};

}  // namespace

TEST_F(CopyLinkTest, FirstUpdateIsTheWholeMemoryThenOnlyChanges) {
  uint64_t contents = nonZeroBytes(main_);
  deliver(ship(mainLink_, main_), hostLink_, copy_);
  EXPECT_TRUE(sameBytes(main_, copy_));
  EXPECT_EQ(mainLink_.shippedBytes(), contents);

  main_.base()[5] ^= 0xff;
  main_.base()[kWasmPageSize + 3] = 1;
  deliver(ship(mainLink_, main_), hostLink_, copy_);
  EXPECT_TRUE(sameBytes(main_, copy_));
  EXPECT_EQ(mainLink_.shippedBytes(), contents + 2);

  // Nothing changed: an empty update still arrives, and carries growth.
  ASSERT_GE(main_.grow(2), 0);
  deliver(ship(mainLink_, main_), hostLink_, copy_);
  EXPECT_EQ(copy_.pages(), 5u);
  EXPECT_EQ(mainLink_.shippedBytes(), contents + 2);
}

// Two regions: the host's threads and a local thread write disjoint bytes of
// one page; the host's writes come back as exactly those bytes and enter the
// main copy through a replica's push, so neither undoes the other; the
// second region ships only what the host lacks.
TEST_F(CopyLinkTest, HostWritesMergeLikeALocalReplicasAndComeBackOnlyOnce) {
  DsmMain dsm(main_);
  std::string error;
  std::vector<std::unique_ptr<DsmReplica>> replicas = dsm.createReplicas(2, error);
  ASSERT_EQ(replicas.size(), 2u) << error;
  DsmReplica& local = *replicas[0];
  DsmReplica& proxy = *replicas[1];
  deliver(ship(mainLink_, main_), hostLink_, copy_);

  // The thread host runs its two threads on replicas of its copy.
  DsmMain hostDsm(copy_);
  std::vector<std::unique_ptr<DsmReplica>> hostReplicas = hostDsm.createReplicas(2, error);
  ASSERT_EQ(hostReplicas.size(), 2u) << error;
  for (int t = 0; t < 2; ++t)
    onThread([&, t] {
      for (uint64_t i = 0; i < 10; ++i) hostReplicas[size_t(t)]->memory().base()[100 + 20 * t + i] = 0xa0;
      ASSERT_TRUE(hostReplicas[size_t(t)]->push());
    });
  onThread([&] {
    for (uint64_t i = 0; i < 10; ++i) local.memory().base()[200 + i] = 0xb0;
    ASSERT_TRUE(local.push());
  });
  std::vector<std::vector<uint8_t>> join = ship(hostLink_, copy_);
  EXPECT_EQ(hostLink_.shippedBytes(), 20u);
  onThread([&] {
    deliver(join, mainLink_, proxy.memory());
    ASSERT_TRUE(proxy.push());
  });
  for (uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(main_.base()[100 + i], 0xa0);
    EXPECT_EQ(main_.base()[120 + i], 0xa0);
    EXPECT_EQ(main_.base()[200 + i], 0xb0);
  }
  EXPECT_EQ(main_.base()[110], uint8_t(110 * 7 + 1));

  // Region two: the host lacks only the local thread's 10 bytes.
  uint64_t before = mainLink_.shippedBytes();
  deliver(ship(mainLink_, main_), hostLink_, copy_);
  EXPECT_EQ(mainLink_.shippedBytes() - before, 10u);
  EXPECT_TRUE(sameBytes(main_, copy_));
}

TEST_F(CopyLinkTest, LargeUpdatesTravelInChunksInOrder) {
  std::vector<std::vector<uint8_t>> payloads = ship(mainLink_, main_, 4096);
  ASSERT_GT(payloads.size(), 16u);
  for (const auto& payload : payloads) EXPECT_LE(payload.size(), 4096u);
  std::string error;
  CopyUpdate second;
  ASSERT_TRUE(parseCopyUpdate(payloads[1].data(), payloads[1].size(), kMaxPages, second, error));
  ASSERT_GE(copy_.grow(second.pages), 0);
  EXPECT_FALSE(hostLink_.accept(second, copy_, error));
  EXPECT_NE(error.find("out of order"), std::string::npos) << error;
  EXPECT_EQ(nonZeroBytes(copy_), 0u);
  deliver(payloads, hostLink_, copy_);
  EXPECT_TRUE(sameBytes(main_, copy_));
}

TEST_F(CopyLinkTest, ForgedPayloadsAreRefusedAndChangeNothing) {
  std::vector<std::vector<uint8_t>> first = ship(mainLink_, main_, 4096);
  std::string error;
  CopyUpdate update;
  auto refused = [&](std::vector<uint8_t> payload, const char* reason) {
    error.clear();
    EXPECT_FALSE(parseCopyUpdate(payload.data(), payload.size(), kMaxPages, update, error))
        << reason;
    EXPECT_FALSE(error.empty()) << reason;
  };
  refused({1, 2, 3}, "shorter than the header");
  std::vector<uint8_t> payload = first[0];
  payload[0] = 0;
  refused(payload, "sequence 0");
  payload = first[0];
  payload[8] = uint8_t(kMaxPages + 1);
  refused(payload, "over the maximum pages");
  payload = first[0];
  payload[20] = 0;
  payload[21] = payload[22] = payload[23] = 0;
  refused(payload, "no chunks");
  payload = first[0];
  payload.pop_back();
  refused(payload, "diff bytes cut short");
  // One page, and a range starting past its end: 1 range, gap 65540, 1 byte.
  payload.assign(kCopyUpdateHeaderBytes, 0);
  payload[0] = 1;
  payload[8] = 1;
  payload[20] = 1;
  for (uint8_t byte : {0x01, 0x84, 0x80, 0x04, 0x01, 0x2a}) payload.push_back(byte);
  refused(payload, "range past the memory");
  payload[8] = 2;  // the same range fits two pages
  ASSERT_TRUE(parseCopyUpdate(payload.data(), payload.size(), kMaxPages, update, error)) << error;
  // ...but not a copy the receiver has not grown.
  ASSERT_GE(copy_.grow(1), 0);
  EXPECT_FALSE(hostLink_.accept(update, copy_, error));
  EXPECT_EQ(nonZeroBytes(copy_), 0u);

  // The genuine update still applies after all that.
  deliver(first, hostLink_, copy_);
  EXPECT_TRUE(sameBytes(main_, copy_));
  // Replayed, it is out of sequence.
  ASSERT_TRUE(parseCopyUpdate(first[0].data(), first[0].size(), kMaxPages, update, error));
  EXPECT_FALSE(hostLink_.accept(update, copy_, error));
  EXPECT_TRUE(sameBytes(main_, copy_));
}

// shipPages compares only the host pages it is given: a change elsewhere
// waits for an update that names its page.
TEST_F(CopyLinkTest, ShipPagesComparesOnlyTheGivenPages) {
  deliver(ship(mainLink_, main_), hostLink_, copy_);
  uint64_t before = mainLink_.shippedBytes();
  main_.base()[2 * kHostPageSize + 1] ^= 0xff;
  main_.base()[5 * kHostPageSize + 2] ^= 0xff;
  std::vector<std::vector<uint8_t>> payloads;
  std::string error;
  ASSERT_TRUE(mainLink_.shipPages(main_, {2, 1u << 30}, kNoLimit, payloads, error)) << error;
  deliver(payloads, hostLink_, copy_);
  EXPECT_EQ(mainLink_.shippedBytes(), before + 1);
  EXPECT_EQ(copy_.base()[2 * kHostPageSize + 1], main_.base()[2 * kHostPageSize + 1]);
  EXPECT_NE(copy_.base()[5 * kHostPageSize + 2], main_.base()[5 * kHostPageSize + 2]);
  payloads.clear();
  ASSERT_TRUE(mainLink_.shipPages(main_, {5}, kNoLimit, payloads, error)) << error;
  deliver(payloads, hostLink_, copy_);
  EXPECT_TRUE(sameBytes(main_, copy_));
}
