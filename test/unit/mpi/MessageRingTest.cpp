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

#include <algorithm>
#include <atomic>
#include <thread>
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

// The receiver polls the published count after a publication made in a
// burst and the next slot after one that ends a burst; either way it sees
// every publication, whichever kind follows which.
TEST(MessageRingTest, SeesPublicationsInAndOutOfBursts) {
  auto ring = std::make_unique<MessageRing>();
  int next = 0;
  for (int round = 0; round < 40; ++round) {
    int burst = round % 7;
    std::vector<int> expected;
    for (int i = 0; i < burst; ++i) {
      expected.push_back(next);
      commitTagged(*ring, next++);
      ring->publishBatch(4);
      // The receiver keeps up with the burst half the time.
      if (round % 2) {
        std::vector<int> seen = drainTags(*ring);
        ASSERT_LE(seen.size(), expected.size());
        EXPECT_TRUE(std::equal(seen.begin(), seen.end(), expected.begin()));
        expected.erase(expected.begin(), expected.begin() + seen.size());
      }
    }
    // A lone message after the burst, as a blocking send publishes it.
    expected.push_back(next);
    commitTagged(*ring, next++);
    EXPECT_TRUE(ring->publish());
    EXPECT_EQ(drainTags(*ring), expected);
    EXPECT_EQ(ring->front(), nullptr);
  }
}

// A sender thread in bursts of every length, ended by a publish() or not,
// and a receiver thread polling meanwhile: the receiver gets every message
// once, in order, and never a slot that was not published.
TEST(MessageRingTest, ReceiverRacingTheSenderSeesEveryMessageInOrder) {
  auto ring = std::make_unique<MessageRing>();
  constexpr int kMessages = 200000;
  std::atomic<bool> senderDone{false};
  std::thread sender([&] {
    int burst = 0, inBurst = 0;
    for (int message = 0; message < kMessages; ++message) {
      MessageRing::Slot* slot;
      while (!(slot = ring->reserve(1))) ring->publish();
      slot->envelope = Envelope{3, 1, message, 1};
      slot->reserveData(1)[0] = uint8_t(message);
      ring->commit();
      if (++inBurst < burst) {
        ring->publishBatch(16);
      } else {
        ring->publish();
        inBurst = 0;
        burst = (burst + 1) % 50;
      }
    }
    ring->publish();
    senderDone.store(true);
  });
  // Takes whatever front() offers until the sender is done, also after a
  // wrong message (so that a sender waiting for room finishes), but no
  // more than the ring could ever have held.
  int taken = 0, firstWrong = -1;
  while ((!senderDone.load() || ring->front()) && taken < kMessages + int(MessageRing::kSlots)) {
    MessageRing::Slot* slot = ring->front();
    if (!slot) continue;
    if (firstWrong < 0 && (slot->envelope.tag != taken || slot->data()[0] != uint8_t(taken)))
      firstWrong = taken;
    ring->pop();
    ++taken;
  }
  sender.join();
  EXPECT_EQ(firstWrong, -1);
  EXPECT_EQ(taken, kMessages);
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
