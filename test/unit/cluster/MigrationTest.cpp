//===- MigrationTest.cpp - migration requests, plans and their limits ------===//
//
// The parts of cluster/Migration.h that need no Redis: the "host:count"
// lists a request record holds (read back from a store outside our trust
// boundary), the plans that fill a request in, --fragment's placement and
// the SYNERGY_FORCE_MIGRATION hook's syntax.
//
//===----------------------------------------------------------------------===//
#include "cluster/Migration.h"

#include <gtest/gtest.h>

using namespace synergy::cluster;

namespace {

std::vector<HostRecord> threeHosts(unsigned free2, unsigned free3, unsigned free4) {
  return {{"h2", "127.0.0.2:1", 2, free2, false},
          {"h3", "127.0.0.3:1", 2, free3, false},
          {"h4", "127.0.0.4:1", 4, free4, false}};
}

TEST(MigrationTest, HostCountsRoundTripAndRefuseMalformedLists) {
  HostCounts counts;
  ASSERT_TRUE(parseHostCounts("h2:1,h4:2", counts));
  EXPECT_EQ(counts, (HostCounts{{"h2", 1}, {"h4", 2}}));
  EXPECT_EQ(formatHostCounts(counts), "h2:1,h4:2");
  ASSERT_TRUE(parseHostCounts("", counts));
  EXPECT_TRUE(counts.empty());
  for (const char* bad : {"h2", "h2:", ":1", "h2:0", "h2:-1", "h2:1,", "h 2:1", "h2:1x",
                          "h2:4097", "h2:4096,h3:1", "h2:99999999999999999999999"})
    EXPECT_FALSE(parseHostCounts(bad, counts)) << bad;
}

TEST(MigrationTest, MovePlansTheNewPartsAndTheSlotsTheTargetNeeds) {
  std::string error;
  std::optional<MigrationRequest> move =
      planMove({"h2", "h3", "h4"}, {1}, "h4", threeHosts(1, 1, 3), 2, error);
  ASSERT_TRUE(move) << error;
  EXPECT_EQ(move->placement, (HostCounts{{"h2", 1}, {"h4", 2}}));
  EXPECT_EQ(move->claims, (HostCounts{{"h4", 1}}));
  EXPECT_EQ(move->at, 2u);
  EXPECT_EQ(move->what, "rank 1 to host h4");
  move = planMove({"h2", "h2", "h3"}, {0, 1}, "h3", threeHosts(0, 1, 4), 0, error);
  ASSERT_TRUE(move) << error;
  EXPECT_EQ(move->placement, (HostCounts{{"h3", 3}}));
  EXPECT_EQ(move->claims, (HostCounts{{"h3", 2}}));
  EXPECT_EQ(move->what, "ranks 0,1 to host h3");
}

TEST(MigrationTest, MoveMayLeaveAHostRanksThatAreNotConsecutive) {
  // Rank 0 joins rank 2 on h4: the placement's runs, in rank order, name h4
  // twice, and h4 claims the one slot more it needs.
  std::string error;
  std::optional<MigrationRequest> move =
      planMove({"h2", "h3", "h4"}, {0}, "h4", threeHosts(1, 1, 1), 0, error);
  ASSERT_TRUE(move) << error;
  EXPECT_EQ(formatHostCounts(move->placement), "h4:1,h3:1,h4:1");
  EXPECT_EQ(formatHostCounts(move->claims), "h4:1");
  HostCounts parsed;
  ASSERT_TRUE(parseHostCounts(formatHostCounts(move->placement), parsed));
  EXPECT_EQ(parsed, move->placement);
}

TEST(MigrationTest, MoveRefusesWhatCannotBePlaced) {
  std::string error;
  EXPECT_FALSE(planMove({"h2", "h3", "h4"}, {3}, "h4", threeHosts(1, 1, 3), 0, error));
  EXPECT_EQ(error, "the job has no rank 3 (it has 3)");
  EXPECT_FALSE(planMove({"h2", "h3", "h4"}, {1}, "h9", threeHosts(1, 1, 3), 0, error));
  EXPECT_EQ(error, "no live host 'h9' in the cluster");
  EXPECT_FALSE(planMove({"h2", "h3", "h4"}, {2}, "h4", threeHosts(1, 1, 3), 0, error));
  EXPECT_EQ(error, "rank 2 already run on host h4");
  EXPECT_FALSE(planMove({}, {0}, "h4", threeHosts(1, 1, 3), 0, error));
}

TEST(MigrationTest, ConsolidationGathersOnTheJobsLargestShareThatFits) {
  std::string error;
  // h2 holds the most ranks but has 2 slots; h4 has the slots for all 3.
  std::optional<MigrationRequest> plan =
      planConsolidation({"h2", "h2", "h4"}, threeHosts(0, 2, 3), 4, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->placement, (HostCounts{{"h4", 3}}));
  EXPECT_EQ(plan->claims, (HostCounts{{"h4", 2}}));
  EXPECT_EQ(plan->at, 4u);
  plan = planConsolidation({"h2", "h3"}, threeHosts(1, 1, 4), 1, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->placement, (HostCounts{{"h2", 2}}));
  EXPECT_EQ(plan->claims, (HostCounts{{"h2", 1}}));
  EXPECT_FALSE(planConsolidation({"h4", "h4"}, threeHosts(2, 2, 2), 1, error));
  EXPECT_EQ(error, "the job runs on one host already");
  EXPECT_FALSE(planConsolidation({"h2", "h3", "h3"}, threeHosts(1, 0, 4), 1, error));
  EXPECT_EQ(error, "no host of the job has the 3 slots to hold all its ranks");
}

TEST(MigrationTest, FragmentCutsTheRanksOverTheFreestHosts) {
  EXPECT_EQ(fragmentedPlacement(threeHosts(2, 1, 4), 4, 2), (HostCounts{{"h2", 2}, {"h4", 2}}));
  EXPECT_EQ(fragmentedPlacement(threeHosts(2, 2, 4), 5, 3),
            (HostCounts{{"h2", 2}, {"h3", 2}, {"h4", 1}}));
  EXPECT_TRUE(fragmentedPlacement(threeHosts(1, 1, 4), 4, 3).empty());  // h2 lacks its 2nd slot
  EXPECT_TRUE(fragmentedPlacement(threeHosts(2, 2, 4), 2, 3).empty());  // fewer ranks than parts
  EXPECT_TRUE(fragmentedPlacement(threeHosts(2, 2, 4), 4, 4).empty());  // fewer hosts than parts
}

TEST(MigrationTest, PlacementPlansClaimOnlyTheSlotsBeyondThoseHeld) {
  std::string error;
  std::optional<MigrationRequest> plan =
      planPlacement({"h2", "h2", "h3", "h4"}, {{"h2", 3}, {"h4", 1}}, 0, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(formatHostCounts(plan->placement), "h2:3,h4:1");
  EXPECT_EQ(formatHostCounts(plan->claims), "h2:1");
  EXPECT_EQ(plan->what, "its ranks to hosts h2:3,h4:1");
  plan = planPlacement({"h2", "h3"}, {{"h4", 2}}, 5, error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(formatHostCounts(plan->claims), "h4:2");
  EXPECT_EQ(plan->what, "every rank to host h4");
  EXPECT_EQ(plan->at, 5u);
  EXPECT_FALSE(planPlacement({"h2", "h3"}, {{"h2", 1}, {"h3", 1}}, 0, error));
  EXPECT_EQ(error, "the job is placed so already");
  EXPECT_FALSE(planPlacement({"h2", "h3"}, {{"h2", 3}}, 0, error));
  EXPECT_EQ(error, "the placement holds 3 ranks, not the job's 2");
  EXPECT_FALSE(planPlacement({"h2", "h3", "h4"}, {{"h2", 1}, {"h3", 1}, {"h2", 1}}, 0, error));
  EXPECT_EQ(error, "host h2 comes twice in the placement");
}

TEST(MigrationTest, ForcedMigrationSyntax) {
  ForcedMigration forced;
  std::string error;
  ASSERT_TRUE(parseForcedMigration("0,2@3:h4", forced, error)) << error;
  EXPECT_EQ(forced.ranks, (std::vector<unsigned>{0, 2}));
  EXPECT_EQ(forced.at, 3u);
  EXPECT_EQ(forced.host, "h4");
  for (const char* bad : {"", "1", "1@2", "1@0:h4", "@2:h4", "1,@2:h4", "1@2:", "1@x:h4",
                          "1@2:h 4", "4096@2:h4"}) {
    EXPECT_FALSE(parseForcedMigration(bad, forced, error)) << bad;
    EXPECT_EQ(error, "SYNERGY_FORCE_MIGRATION expects RANKS@N:HOST (e.g. 1@2:h3 or 0,2@2:h3), got '" +
                         std::string(bad) + "'");
  }
}

}  // namespace

TEST(MigrationTest, LiveMovesGoIntoRunningPartsThatKeepARank) {
  std::string why;
  MigrationRequest request;
  // Consolidation of np 2 over h2 and h3 onto h2: rank 1 into part 0.
  request.placement = {{"h2", 2}};
  auto plan = planLiveMoves(request, {"h2", "h3"}, {0, 1}, why);
  ASSERT_TRUE(plan) << why;
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].rank, 1u);
  EXPECT_EQ((*plan)[0].source, 1u);
  EXPECT_EQ((*plan)[0].target, 0u);
  // Onto h3: rank 0 would leave part 0 without a rank.
  request.placement = {{"h3", 2}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why));
  EXPECT_NE(why.find("part 0's last rank"), std::string::npos) << why;
  // Two ranks move into part 0, one a live round, in rank order.
  request.placement = {{"h2", 4}};
  plan = planLiveMoves(request, {"h2", "h2", "h3", "h3"}, {0, 0, 1, 1}, why);
  ASSERT_TRUE(plan) << why;
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[0].rank, 2u);
  EXPECT_EQ((*plan)[1].rank, 3u);
  EXPECT_EQ((*plan)[1].source, 1u);
  EXPECT_EQ((*plan)[1].target, 0u);
  // Every rank of part 0 moves: the restart path.
  request.placement = {{"h3", 4}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h2", "h3", "h3"}, {0, 0, 1, 1}, why));
  EXPECT_NE(why.find("every rank of part 0 moves"), std::string::npos) << why;
  // A rank into a host whose part's ranks all move away: no part keeps a
  // rank there.
  request.placement = {{"h2", 1}, {"h3", 1}, {"h2", 1}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h4", "h3"}, {0, 2, 1}, why));
  EXPECT_NE(why.find("host h3 runs no part of the job that keeps a rank"), std::string::npos)
      << why;
  // To a host the job does not run on.
  request.placement = {{"h2", 1}, {"h4", 1}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why));
  EXPECT_NE(why.find("runs no part"), std::string::npos) << why;
  // Rank 0 of three into part 2, part 0 keeping rank 1.
  request.placement = {{"h4", 1}, {"h2", 1}, {"h4", 1}};
  plan = planLiveMoves(request, {"h2", "h2", "h4"}, {0, 0, 1}, why);
  ASSERT_TRUE(plan) << why;
  EXPECT_EQ((*plan)[0].rank, 0u);
  EXPECT_EQ((*plan)[0].target, 1u);
  // Hostile records: placements that do not cover the ranks, or tables of
  // another length.
  request.placement = {{"h2", 1}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why));
  request.placement = {{"h2", 4096}, {"h3", 4096}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why));
  request.placement = {{"h2", 2}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0}, why));
  EXPECT_FALSE(planLiveMoves(request, {}, {}, why));
  // Nothing moves.
  request.placement = {{"h2", 1}, {"h3", 1}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why));
}

// A job that checkpoints only to be moved lets part 0 leave with its last
// rank (CheckpointAgreement.h, setMovesOnly): part 0's steps come last.
TEST(MigrationTest, Part0MayLeaveWithTheLastStep) {
  std::string why;
  MigrationRequest request;
  request.placement = {{"h3", 2}};
  auto plan = planLiveMoves(request, {"h2", "h3"}, {0, 1}, why, true);
  ASSERT_TRUE(plan) << why;
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].rank, 0u);
  EXPECT_EQ((*plan)[0].target, 1u);
  // One rank a host, all onto h3: rank 2's step first, part 0's last.
  request.placement = {{"h3", 3}};
  plan = planLiveMoves(request, {"h2", "h3", "h4"}, {0, 1, 2}, why, true);
  ASSERT_TRUE(plan) << why;
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[0].rank, 2u);
  EXPECT_EQ((*plan)[0].source, 2u);
  EXPECT_EQ((*plan)[1].rank, 0u);
  EXPECT_EQ((*plan)[1].source, 0u);
  // Two ranks of part 0 into part 1, in rank order.
  plan = planLiveMoves(request, {"h2", "h2", "h3"}, {0, 0, 1}, why, true);
  ASSERT_TRUE(plan) << why;
  ASSERT_EQ(plan->size(), 2u);
  EXPECT_EQ((*plan)[0].rank, 0u);
  EXPECT_EQ((*plan)[1].rank, 1u);
  // Without leave: the restart path, saying when part 0 may leave.
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h2", "h3"}, {0, 0, 1}, why));
  EXPECT_NE(why.find("checkpoints only to be moved"), std::string::npos) << why;
  // Still no part to go into on a host the job does not run on.
  request.placement = {{"h4", 2}};
  EXPECT_FALSE(planLiveMoves(request, {"h2", "h3"}, {0, 1}, why, true));
}
