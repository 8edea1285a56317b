//===- RankRoutesTest.cpp - which part of a spread job runs each rank ----===//
//
// The layout a job starts with gives each part the run of ranks JobPart's
// counts say; a table in which a part holds ranks that are not consecutive
// (the layout after a live move) routes and lists them as well; a rank
// number read from a frame, however large, is never taken for a part's.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cluster/RankRoutes.h"

using synergy::cluster::RankRoutes;

TEST(RankRoutesTest, StartsWithEachPartsRunOfConsecutiveRanks) {
  RankRoutes routes = RankRoutes::consecutive({2, 3, 1});
  EXPECT_EQ(routes.worldSize(), 6u);
  EXPECT_EQ(routes.partCount(), 3u);
  std::vector<uint32_t> parts;
  for (uint32_t rank = 0; rank < routes.worldSize(); ++rank) parts.push_back(routes.partOf(rank));
  EXPECT_EQ(parts, (std::vector<uint32_t>{0, 0, 1, 1, 1, 2}));
  EXPECT_EQ(routes.ranksOf(0), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(routes.ranksOf(1), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(routes.ranksOf(2), (std::vector<uint32_t>{5}));
  EXPECT_EQ(routes.describe(0), "ranks 0-1");
  EXPECT_EQ(routes.describe(1), "ranks 2-4");
  EXPECT_EQ(routes.describe(2), "rank 5");
  // The status lines' form: a run of one rank as "5-5", as they always
  // printed it.
  EXPECT_EQ(routes.runs(0), "0-1");
  EXPECT_EQ(routes.runs(2), "5-5");
}

TEST(RankRoutesTest, APartMayHoldRanksThatAreNotConsecutive) {
  // Rank 1 of 0-2 on part 0 runs on part 1, which also runs 3-4.
  RankRoutes routes({0, 1, 0, 1, 1}, 2);
  EXPECT_EQ(routes.ranksOf(0), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(routes.ranksOf(1), (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_TRUE(routes.holds(1, 1));
  EXPECT_FALSE(routes.holds(0, 1));
  EXPECT_EQ(routes.describe(0), "ranks 0,2");
  EXPECT_EQ(routes.describe(1), "ranks 1,3-4");
  RankRoutes gaps({0, 1, 1, 1, 0, 2, 0, 0}, 3);
  EXPECT_EQ(gaps.describe(0), "ranks 0,4,6-7");
  EXPECT_EQ(gaps.describe(2), "rank 5");
  EXPECT_EQ(gaps.runs(0), "0-0,4-4,6-7");
  EXPECT_EQ(gaps.runs(1), "1-3");
}

TEST(RankRoutesTest, AFramesRankOutOfTheWorldIsNoPartsRank) {
  RankRoutes routes = RankRoutes::consecutive({2, 2});
  EXPECT_TRUE(routes.holds(1, 3));
  EXPECT_FALSE(routes.holds(1, 4));
  EXPECT_FALSE(routes.holds(0, 4));
  EXPECT_FALSE(routes.holds(0, UINT32_MAX));
  EXPECT_FALSE(routes.holds(0, uint64_t(1) << 32)) << "a 64-bit rank must not wrap to rank 0";
  EXPECT_FALSE(routes.holds(0, UINT64_MAX));
}
