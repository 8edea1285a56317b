//===- MessageRingTest.cpp - committing and publishing ring messages ------===//
//
// The sender fills ring slots (commit) and shows them to the receiver
// separately (publish), in batches for bursts of nonblocking sends. These
// tests check that the receiver sees nothing that is not published, sees
// everything in commit order once it is, and that a burst publishes its
// first message at once and then batches that double up to the limit.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <vector>

#include "mpi/MessageRing.h"

using namespace synergy::mpi;

namespace {

// Commits a one-byte message with tag `tag`.
void commitTagged(MessageRing& ring, int tag) {
  MessageRing::Slot* slot = ring.reserve(1);
  ASSERT_NE(slot, nullptr);
  slot->envelope = Envelope{3, 1, tag, 1};
  slot->reserveData(1)[0] = uint8_t(tag);
  ring.commit();
}

// Takes every published message off the ring; their tags, in order.
std::vector<int> drainTags(MessageRing& ring) {
  std::vector<int> tags;
  while (MessageRing::Slot* slot = ring.front()) {
    EXPECT_EQ(slot->data()[0], uint8_t(slot->envelope.tag));
    tags.push_back(slot->envelope.tag);
    ring.pop();
  }
  return tags;
}

TEST(MessageRingTest, CommittedMessagesStayUnseenUntilPublished) {
  auto ring = std::make_unique<MessageRing>();
  for (int tag = 0; tag < 5; ++tag) commitTagged(*ring, tag);
  EXPECT_EQ(ring->unpublished(), 5u);
  EXPECT_EQ(ring->front(), nullptr);
  EXPECT_TRUE(ring->publish());
  EXPECT_EQ(ring->unpublished(), 0u);
  EXPECT_EQ(drainTags(*ring), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(ring->publish());
  commitTagged(*ring, 5);
  EXPECT_EQ(ring->front(), nullptr);
  ring->publish();
  EXPECT_EQ(drainTags(*ring), (std::vector<int>{5}));
}

TEST(MessageRingTest, BurstPublishesFirstAtOnceThenDoublingBatches) {
  auto ring = std::make_unique<MessageRing>();
  std::vector<int> publishedAt;
  for (int message = 1; message <= 60; ++message) {
    commitTagged(*ring, message);
    if (ring->publishBatch(16)) publishedAt.push_back(message);
  }
  EXPECT_EQ(publishedAt, (std::vector<int>{1, 3, 7, 15, 31, 47}));
  std::vector<int> seen = drainTags(*ring);
  ASSERT_EQ(seen.size(), 47u);
  for (int i = 0; i < 47; ++i) EXPECT_EQ(seen[i], i + 1);
  // A publish() ends the burst: the next one starts with a batch of one.
  ring->publish();
  EXPECT_EQ(drainTags(*ring).size(), 13u);
  commitTagged(*ring, 61);
  EXPECT_TRUE(ring->publishBatch(16));
  EXPECT_EQ(drainTags(*ring), (std::vector<int>{61}));
}

TEST(MessageRingTest, WrapsAroundManyTimes) {
  auto ring = std::make_unique<MessageRing>();
  int next = 0, expected = 0;
  for (int round = 0; round < 20; ++round) {
    // Fill the ring to the brim unpublished, then show it all.
    for (uint64_t i = 0; i < MessageRing::kSlots; ++i) commitTagged(*ring, next++ % 200);
    EXPECT_EQ(ring->reserve(1), nullptr);
    ring->publish();
    for (int tag : drainTags(*ring)) EXPECT_EQ(tag, expected++ % 200);
  }
  EXPECT_EQ(expected, next);
}

}  // namespace
