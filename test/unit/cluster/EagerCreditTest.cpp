//===- EagerCreditTest.cpp - the eager credit between a job's parts -------===//
//
// A part holds another part's eager data only within its grant and gives
// it back in batches; a sender takes no more than it was granted, and the
// hostile numbers a MpiEagerGrant or MpiEagerCredit frame may carry (a
// second grant, none, one out of range, a return of more than is out, one
// that would overflow) are refused with a reason, changing nothing.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "cluster/EagerCredit.h"
#include "transport/FrameTypes.h"

using synergy::cluster::EagerCredit;

TEST(EagerCreditTest, HoldsAnotherPartsDataOnlyWithinTheGrant) {
  EagerCredit credit(3, 1000);
  std::string reason;
  EXPECT_TRUE(credit.hold(1, 600, reason));
  EXPECT_TRUE(credit.hold(1, 400, reason));
  EXPECT_FALSE(credit.hold(1, 1, reason));
  EXPECT_EQ(reason, "eager message of 1 bytes beyond the eager credit of 1000 bytes (1000 held)");
  // Each part has a grant of its own, and a message of no charge always fits.
  EXPECT_TRUE(credit.hold(2, 1000, reason));
  EXPECT_TRUE(credit.hold(1, 0, reason));
  // What a rank received makes room again.
  credit.release(1, 600);
  EXPECT_TRUE(credit.hold(1, 600, reason));
  EXPECT_FALSE(credit.hold(1, 1, reason));
}

TEST(EagerCreditTest, GivesBackInBatchesOfAnEighthOfTheGrant) {
  EagerCredit credit(2, 8000);
  std::string reason;
  ASSERT_TRUE(credit.hold(0, 8000, reason));
  EXPECT_EQ(credit.release(0, 400), 0) << "a batch is 1000 bytes";
  EXPECT_EQ(credit.release(0, 500), 0);
  EXPECT_EQ(credit.release(0, 300), 1200);
  EXPECT_EQ(credit.release(0, 5000), 5000);
  EXPECT_EQ(credit.release(0, 999), 0);
  EXPECT_EQ(credit.release(0, 1), 1000);
}

TEST(EagerCreditTest, ReleasingAllGivesBackWhatGatheredWhateverTheBatch) {
  EagerCredit credit(3, 8000);
  std::string reason;
  ASSERT_TRUE(credit.hold(1, 3000, reason));
  ASSERT_TRUE(credit.hold(2, 500, reason));
  EXPECT_EQ(credit.release(1, 300), 0);
  EXPECT_EQ(credit.release(1, 200), 0);
  EXPECT_EQ(credit.releaseAll(1, 100), 600) << "the gathered 500 and its own 100";
  EXPECT_EQ(credit.releaseAll(1, 0), 0) << "nothing left gathered";
  EXPECT_EQ(credit.release(1, 999), 0) << "the batch gathers afresh";
  EXPECT_EQ(credit.release(1, 1), 1000);
  EXPECT_EQ(credit.releaseAll(2, 0), 0) << "another part's gathering is its own";
  EXPECT_EQ(credit.releaseAll(2, 500), 500);
  // What was released made room again, up to the grant.
  EXPECT_TRUE(credit.hold(1, 8000 - 1400, reason)) << reason;
  EXPECT_FALSE(credit.hold(1, 1, reason));
}

TEST(EagerCreditTest, ASenderTakesNoMoreThanItWasGranted) {
  EagerCredit credit(3, 1);
  std::string reason;
  EXPECT_FALSE(credit.take(1, 1)) << "nothing before the grant";
  EXPECT_FALSE(credit.hasGrantFrom(1));
  ASSERT_TRUE(credit.granted(1, 1000, reason)) << reason;
  EXPECT_TRUE(credit.hasGrantFrom(1));
  EXPECT_FALSE(credit.hasGrantFrom(2));
  EXPECT_TRUE(credit.take(1, 700));
  EXPECT_FALSE(credit.take(1, 301)) << "too little left: nothing taken";
  EXPECT_TRUE(credit.take(1, 300));
  EXPECT_FALSE(credit.take(1, 1));
  EXPECT_FALSE(credit.take(2, 1)) << "another part's grant is its own";
  EXPECT_EQ(credit.shortfalls(), 4u);
  ASSERT_TRUE(credit.returned(1, 300, reason)) << reason;
  EXPECT_TRUE(credit.take(1, 300));
}

TEST(EagerCreditTest, RefusesHostileGrantsAndReturns) {
  EagerCredit credit(2, 1);
  std::string reason;
  EXPECT_FALSE(credit.returned(1, 1, reason)) << "a return before any grant";
  EXPECT_EQ(reason, "MpiEagerCredit returning 1 bytes where 0 of a grant of 0 are out");
  EXPECT_FALSE(credit.granted(1, 0, reason));
  EXPECT_FALSE(credit.granted(1, synergy::transport::kMaxMpiEagerGrantBytes + 1, reason));
  EXPECT_FALSE(credit.hasGrantFrom(1));
  ASSERT_TRUE(credit.granted(1, 1000, reason));
  EXPECT_FALSE(credit.granted(1, 1000, reason));
  EXPECT_EQ(reason, "MpiEagerGrant of 1000 bytes after a grant of 1000 (one grant, of 1 to " +
                        std::to_string(synergy::transport::kMaxMpiEagerGrantBytes) + ")");
  ASSERT_TRUE(credit.take(1, 600));
  EXPECT_FALSE(credit.returned(1, 601, reason)) << "more than is out";
  EXPECT_EQ(reason, "MpiEagerCredit returning 601 bytes where 600 of a grant of 1000 are out");
  EXPECT_FALSE(credit.returned(1, 0, reason));
  EXPECT_FALSE(credit.returned(1, ~uint64_t(0), reason)) << "an overflowing return";
  // None of that changed what is left: 400, and 600 out.
  EXPECT_FALSE(credit.take(1, 401));
  EXPECT_TRUE(credit.returned(1, 600, reason)) << reason;
  EXPECT_TRUE(credit.take(1, 1000));
}
