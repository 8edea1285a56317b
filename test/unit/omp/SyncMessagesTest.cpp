// Unit tests for the synchronisation messages between a spread region's
// hosts: requests and replies survive the wire exactly, fit their frames,
// and malformed ones are refused with a reason.
#include <gtest/gtest.h>

#include "omp/Allocators.h"
#include "omp/SyncMessages.h"
#include "transport/FrameTypes.h"

using namespace synergy::omp;

namespace {

TEST(SyncMessagesTest, RequestRoundTripsAndFitsItsFrame) {
  SyncRequest request{SyncOp::OrderedEnter, 5, {7, 0xfffffffe, uint64_t(1) << 40, 35, 3}};
  SyncRequest nested{SyncOp::Lock, 4, {0x1000}, 0xfffffff0};
  std::vector<uint8_t> bytes = encodeSyncRequest(request);
  ASSERT_EQ(bytes.size(), kSyncRequestBytes);
  ASSERT_EQ(bytes.size(), synergy::transport::kOmpSyncRequestBytes);
  SyncRequest decoded;
  std::string error;
  ASSERT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
  EXPECT_EQ(decoded.op, SyncOp::OrderedEnter);
  EXPECT_EQ(decoded.threadNum, 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(decoded.arguments[i], request.arguments[i]) << i;
  EXPECT_EQ(decoded.waiter, 0u);
  bytes = encodeSyncRequest(nested);
  ASSERT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
  EXPECT_EQ(decoded.op, SyncOp::Lock);
  EXPECT_EQ(decoded.threadNum, 4u);
  EXPECT_EQ(decoded.arguments[0], 0x1000u);
  EXPECT_EQ(decoded.waiter, 0xfffffff0u);
}

TEST(SyncMessagesTest, ReplyRoundTripsAndFitsItsFrame) {
  SyncReply reply{3, true, {UINT64_MAX, 12}, 77};
  std::vector<uint8_t> bytes = encodeSyncReply(reply);
  ASSERT_EQ(bytes.size(), kSyncReplyBytes);
  ASSERT_EQ(bytes.size(), synergy::transport::kOmpSyncReplyBytes);
  SyncReply decoded;
  std::string error;
  ASSERT_TRUE(decodeSyncReply(bytes.data(), bytes.size(), decoded, error)) << error;
  EXPECT_EQ(decoded.threadNum, 3u);
  EXPECT_TRUE(decoded.withUpdate);
  EXPECT_EQ(decoded.results[0], UINT64_MAX);
  EXPECT_EQ(decoded.results[1], 12u);
  EXPECT_EQ(decoded.waiter, 77u);
}

TEST(SyncMessagesTest, RefusesWrongLengthsUnknownOperationsAndFlags) {
  std::vector<uint8_t> request = encodeSyncRequest(SyncRequest{SyncOp::Barrier, 1, {}});
  SyncRequest decodedRequest;
  std::string error;
  EXPECT_FALSE(decodeSyncRequest(request.data(), request.size() - 1, decodedRequest, error));
  EXPECT_EQ(error, "synchronisation request of 51 bytes, not 52");
  for (uint32_t op : {0u, kRetiredSyncOps[0], kRetiredSyncOps[1],
                      uint32_t(SyncOp::ReductionArrive), uint32_t(kLastSyncOp) + 1, 0xffffffffu}) {
    for (int i = 0; i < 4; ++i) request[size_t(i)] = uint8_t(op >> (8 * i));
    EXPECT_FALSE(decodeSyncRequest(request.data(), request.size(), decodedRequest, error));
    EXPECT_EQ(error, "unknown synchronisation operation " + std::to_string(op));
  }
  std::vector<uint8_t> reply = encodeSyncReply(SyncReply{1, false, {}});
  SyncReply decodedReply;
  EXPECT_FALSE(decodeSyncReply(reply.data(), 29, decodedReply, error));
  EXPECT_EQ(error, "synchronisation reply of 29 bytes, not 28");
  reply[4] = 2;
  EXPECT_FALSE(decodeSyncReply(reply.data(), reply.size(), decodedReply, error));
  EXPECT_EQ(error, "synchronisation reply with update flag 2");
}

TEST(SyncMessagesTest, OnlyNestedThreadsRequestsNameAWaiter) {
  // A nested team's thread asks as its spread thread, for itself: a lock,
  // libc's lock, an atomic... A barrier, worksharing or a join is the spread
  // thread's own, and one naming another waiter is refused.
  for (SyncOp op : {SyncOp::Lock, SyncOp::NestLock, SyncOp::TestLock, SyncOp::TestNestLock,
                    SyncOp::Unlock, SyncOp::LibcLock, SyncOp::LibcUnlock, SyncOp::Atomic,
                    SyncOp::Acquire, SyncOp::Release, SyncOp::AllocatorCreate,
                    SyncOp::PoolRefund, SyncOp::ThreadExit}) {
    std::vector<uint8_t> bytes = encodeSyncRequest(SyncRequest{op, 1, {}, 9});
    SyncRequest decoded;
    std::string error;
    EXPECT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
  }
  for (SyncOp op : {SyncOp::Join, SyncOp::Barrier, SyncOp::Single, SyncOp::Copyprivate,
                    SyncOp::LoopChunk, SyncOp::OrderedEnter, SyncOp::OrderedLeave,
                    SyncOp::OrderedSkip, SyncOp::PthreadCall, SyncOp::PthreadEnd}) {
    std::vector<uint8_t> bytes = encodeSyncRequest(SyncRequest{op, 1, {}, 9});
    SyncRequest decoded;
    std::string error;
    EXPECT_FALSE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error));
    EXPECT_EQ(error, "synchronisation operation " + std::to_string(uint32_t(op)) +
                         " of waiter 9, which only its thread itself makes");
    bytes = encodeSyncRequest(SyncRequest{op, 1, {}, 0});
    EXPECT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
  }
}

TEST(SyncMessagesTest, AllocatorRequestsAreOnTheWire) {
  for (SyncOp op : {SyncOp::AllocatorCreate, SyncOp::AllocatorDestroy, SyncOp::AllocatorTraits,
                    SyncOp::PoolReserve, SyncOp::PoolRefund}) {
    std::vector<uint8_t> bytes = encodeSyncRequest(SyncRequest{op, 2, {1025, 600}});
    SyncRequest decoded;
    std::string error;
    ASSERT_TRUE(decodeSyncRequest(bytes.data(), bytes.size(), decoded, error)) << error;
    EXPECT_EQ(decoded.op, op);
    EXPECT_FALSE(syncOpReleases(op)) << uint32_t(op);
  }
}

TEST(SyncMessagesTest, AllocatorTraitsRoundTrip) {
  for (AllocatorFallback fallback : {AllocatorFallback::DefaultMemory, AllocatorFallback::Null,
                                     AllocatorFallback::Abort, AllocatorFallback::Allocator}) {
    for (uint32_t alignment : {1u, 256u, 4096u, 0x80000000u}) {
      AllocatorTraits traits{alignment, 1000, fallback, 0xfffffffeu};
      uint64_t words[2];
      encodeAllocatorTraits(traits, words);
      EXPECT_NE(words[0], 0u);  // 0 answers "no such allocator"
      AllocatorTraits decoded;
      ASSERT_TRUE(decodeAllocatorTraits(words, decoded));
      EXPECT_EQ(decoded.alignment, alignment);
      EXPECT_EQ(decoded.poolBytes, 1000u);
      EXPECT_EQ(decoded.fallback, fallback);
      EXPECT_EQ(decoded.fallbackAllocator, 0xfffffffeu);
    }
  }
}

TEST(SyncMessagesTest, RefusesMalformedAllocatorTraits) {
  uint64_t words[2];
  encodeAllocatorTraits(AllocatorTraits{}, words);
  AllocatorTraits decoded;
  ASSERT_TRUE(decodeAllocatorTraits(words, decoded));
  const uint64_t good = words[0];
  for (uint64_t bad : {uint64_t(0), good & ~uint64_t(1u << 15), good | 32,  // alignment 2^32
                       good | uint64_t(4) << 8, good | uint64_t(1) << 16}) {
    words[0] = bad;
    EXPECT_FALSE(decodeAllocatorTraits(words, decoded)) << std::hex << bad;
  }
}

TEST(SyncMessagesTest, ExactlyTheReleasingOperationsFollowAnUpdate) {
  for (SyncOp op : {SyncOp::Join, SyncOp::Barrier, SyncOp::Unlock,
                    SyncOp::Release, SyncOp::OrderedLeave, SyncOp::LibcUnlock, SyncOp::Atomic})
    EXPECT_TRUE(syncOpReleases(op)) << uint32_t(op);
  for (SyncOp op : {SyncOp::Lock, SyncOp::NestLock, SyncOp::TestLock, SyncOp::TestNestLock,
                    SyncOp::Acquire, SyncOp::Single, SyncOp::Copyprivate,
                    SyncOp::LoopChunk, SyncOp::OrderedEnter, SyncOp::OrderedSkip,
                    SyncOp::LibcLock})
    EXPECT_FALSE(syncOpReleases(op)) << uint32_t(op);
}

}  // namespace
