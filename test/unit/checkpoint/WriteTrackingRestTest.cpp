//===- WriteTrackingRestTest.cpp - a rank that rewrites its memory rests ---===//
//
// The coordinator drops a rank's write tracker when tracked() says so and
// makes a new one only when mayTrack() allows it. A rank that writes less
// than half its pages is always tracked; one that writes at least half
// rests for 1, 2, 4, 8, 8 ... checkpoints, each rest followed by one
// tracked interval; a look that finds less ends the rest at once.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <string>

#include "checkpoint/WriteTrackingRest.h"

namespace synergy::checkpoint {
namespace {

// Runs `checkpoints` checkpoints of a rank that writes `written` of `total`
// pages in every interval, as encodeInPlace asks: 'T' for a checkpoint
// that took a tracker's pages, 'w' for one built whole while resting.
std::string pattern(WriteTrackingRest& rest, uint64_t written, uint64_t total, int checkpoints) {
  std::string seen;
  bool tracking = true;  // armed at the first section
  for (int i = 0; i < checkpoints; ++i) {
    seen += tracking ? 'T' : 'w';
    if (tracking && rest.tracked(written, total)) tracking = false;
    if (!tracking) {
      EXPECT_TRUE(rest.resting());
      tracking = rest.mayTrack();
    }
  }
  return seen;
}

TEST(WriteTrackingRest, LessThanHalfWrittenIsAlwaysTracked) {
  WriteTrackingRest rest;
  EXPECT_EQ(pattern(rest, 511, 1024, 20), std::string(20, 'T'));
  EXPECT_FALSE(rest.resting());
  EXPECT_EQ(pattern(rest, 0, 1024, 5), "TTTTT");
  // No memory: nothing to weigh, no rest.
  EXPECT_FALSE(rest.tracked(0, 0));
  EXPECT_TRUE(rest.mayTrack());
}

TEST(WriteTrackingRest, RestsDoubleUpToTheMostWhileEverythingIsWritten) {
  WriteTrackingRest rest;
  // Rests of 1, 2, 4, 8 and 8 whole builds, each after one tracked interval.
  EXPECT_EQ(pattern(rest, 1024, 1024, 28),
            "T" "w" "T" "ww" "T" "wwww" "T" "wwwwwwww" "T" "wwwwwwww");
  EXPECT_EQ(WriteTrackingRest::kMaxRest, 8u);
}

TEST(WriteTrackingRest, HalfIsEnoughAndAnOddTotalRoundsUp) {
  WriteTrackingRest half;
  EXPECT_TRUE(half.tracked(512, 1024));
  WriteTrackingRest odd;
  EXPECT_FALSE(odd.tracked(2, 5));
  EXPECT_TRUE(odd.tracked(3, 5));
}

TEST(WriteTrackingRest, ALookThatFindsLessEndsTheRest) {
  WriteTrackingRest rest;
  EXPECT_TRUE(rest.tracked(900, 1000));
  EXPECT_FALSE(rest.mayTrack());  // the checkpoint that dropped the tracker
  EXPECT_TRUE(rest.mayTrack());   // the next one looks again
  EXPECT_TRUE(rest.tracked(1000, 1000));
  EXPECT_FALSE(rest.mayTrack());
  EXPECT_FALSE(rest.mayTrack());
  EXPECT_TRUE(rest.mayTrack());
  // The rank now writes little: tracked from here on, and a later burst
  // starts again from the shortest rest.
  EXPECT_FALSE(rest.tracked(10, 1000));
  EXPECT_FALSE(rest.resting());
  EXPECT_TRUE(rest.mayTrack());
  EXPECT_TRUE(rest.tracked(1000, 1000));
  EXPECT_FALSE(rest.mayTrack());
  EXPECT_TRUE(rest.mayTrack());
}

}  // namespace
}  // namespace synergy::checkpoint
