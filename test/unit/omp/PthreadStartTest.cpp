// Unit tests for OmpPthreadStart (omp/RemotePthreads.h): a start survives the
// wire exactly and fits its frame; a malformed one (wrong length, an id no
// pthread has, a stack or TLS block outside the memory) is refused with a
// reason; the two pthread operations release and decode.
#include <gtest/gtest.h>

#include "omp/RemotePthreads.h"
#include "omp/SyncMessages.h"
#include "transport/FrameTypes.h"

using namespace synergy::omp;

namespace {

constexpr uint64_t kMemoryBytes = 1 << 20;

TEST(PthreadStartTest, RoundTripsAndFitsItsFrame) {
  PthreadStart start{uint64_t(1) << 40, 7, 12, 33, 0xfffff0, 0x80000, 0x80010};
  std::vector<uint8_t> bytes = encodePthreadStart(start);
  ASSERT_EQ(bytes.size(), kPthreadStartBytes);
  ASSERT_EQ(bytes.size(), synergy::transport::kOmpPthreadStartBytes);
  PthreadStart decoded;
  std::string error;
  ASSERT_TRUE(decodePthreadStart(bytes.data(), bytes.size(), kMemoryBytes, decoded, error))
      << error;
  EXPECT_EQ(decoded.copySequence, start.copySequence);
  EXPECT_EQ(decoded.id, 7u);
  EXPECT_EQ(decoded.globalThreadId, 12u);
  EXPECT_EQ(decoded.startRoutine, 33u);
  EXPECT_EQ(decoded.argument, 0xfffff0u);
  EXPECT_EQ(decoded.stackTop, 0x80000u);
  EXPECT_EQ(decoded.tlsBlock, 0x80010u);
}

TEST(PthreadStartTest, RefusesMalformedStarts) {
  PthreadStart decoded;
  std::string error;
  std::vector<uint8_t> bytes = encodePthreadStart(PthreadStart{1, 2, 3, 4, 5, 4096, 8192});
  EXPECT_FALSE(decodePthreadStart(bytes.data(), bytes.size() - 1, kMemoryBytes, decoded, error));
  EXPECT_EQ(error, "a pthread start of 31 bytes, not 32");
  bytes = encodePthreadStart(PthreadStart{1, 1, 3, 4, 5, 4096, 8192});
  EXPECT_FALSE(decodePthreadStart(bytes.data(), bytes.size(), kMemoryBytes, decoded, error));
  EXPECT_EQ(error, "a pthread start of thread 1, not a pthread's id");
  bytes = encodePthreadStart(PthreadStart{1, 2, 3, 4, 5, uint32_t(kMemoryBytes) + 16, 8192});
  EXPECT_FALSE(decodePthreadStart(bytes.data(), bytes.size(), kMemoryBytes, decoded, error));
  EXPECT_EQ(error, "a pthread start whose stack top 1048592 or TLS block 8192 lies outside the "
                   "memory");
  bytes = encodePthreadStart(PthreadStart{1, 2, 3, 4, 5, 4096, uint32_t(kMemoryBytes)});
  EXPECT_FALSE(decodePthreadStart(bytes.data(), bytes.size(), kMemoryBytes, decoded, error));
  bytes = encodePthreadStart(PthreadStart{1, 2, 3, 4, 5, 0, 8192});
  EXPECT_FALSE(decodePthreadStart(bytes.data(), bytes.size(), kMemoryBytes, decoded, error));
}

TEST(PthreadStartTest, PthreadOperationsReleaseAndDecode) {
  for (SyncOp op : {SyncOp::PthreadCall, SyncOp::PthreadEnd}) {
    EXPECT_TRUE(syncOpReleases(op));
    std::vector<uint8_t> bytes = encodeSyncRequest(SyncRequest{op, 9, {3, 4}});
    SyncRequest decoded;
    std::string error;
    ASSERT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
    EXPECT_EQ(decoded.op, op);
    EXPECT_EQ(decoded.threadNum, 9u);
  }
}

}  // namespace
