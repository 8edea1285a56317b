//===- MigrationDecisionsTest.cpp - the background scheduler's decisions ---===//
//
// decideMigrations is pure: hosts and running jobs in, moves out. These
// tests feed it many placements and check each move (or its absence), and
// against brute force that a move always spans fewer hosts, fits the free
// slots and keeps the job's rank count.
//
//===----------------------------------------------------------------------===//
#include "scheduler/MigrationDecisions.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace synergy;
using scheduler::DecisionLimits;
using scheduler::decideMigrations;
using scheduler::MigrationDecision;
using scheduler::RunningJobView;

namespace {

constexpr int64_t kNow = 1'000'000'000;

cluster::HostRecord host(const std::string& id, unsigned slots, unsigned freeSlots,
                         bool draining = false) {
  return {.id = id, .address = id + ":7100", .slots = slots, .freeSlots = freeSlots,
          .draining = draining};
}

// A movable running job of `policy` placed as `placement` ("h2:2,h3:2").
RunningJobView job(uint64_t id, const std::string& policy, const std::string& placement) {
  cluster::HostCounts counts;
  EXPECT_TRUE(cluster::parseHostCounts(placement, counts)) << placement;
  RunningJobView view;
  view.job.id = id;
  view.job.app = "app";
  view.job.name = "job" + std::to_string(id);
  for (const auto& [hostId, ranks] : counts)
    view.rankHosts.insert(view.rankHosts.end(), ranks, hostId);
  view.job.ranks = unsigned(view.rankHosts.size());
  view.job.host = counts.front().first;
  view.policy = policy;
  view.movable = true;
  return view;
}

// "job:placement" of each decision, e.g. "1:h2:4".
std::vector<std::string> moves(const std::vector<cluster::HostRecord>& hosts,
                               const std::vector<RunningJobView>& jobs,
                               DecisionLimits limits = {}, int64_t now = kNow) {
  std::vector<std::string> out;
  for (const MigrationDecision& decision : decideMigrations(hosts, jobs, limits, now))
    out.push_back(std::to_string(decision.jobId) + ":" +
                  cluster::formatHostCounts(decision.request.placement));
  return out;
}

using Moves = std::vector<std::string>;

TEST(MigrationDecisionsTest, CompactGathersAFragmentedJobOnceAHostHasRoom) {
  // Job 1 holds 2 slots on each of h2 and h3; h2 has 2 more free.
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2), host("h4", 4, 4)};
  EXPECT_EQ(moves(hosts, {job(1, "compact", "h2:2,h3:2")}), Moves{"1:h2:4"});
  std::vector<MigrationDecision> decided =
      decideMigrations(hosts, {job(1, "compact", "h2:2,h3:2")}, {}, kNow);
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(decided[0].request.state, "requested");
  EXPECT_EQ(decided[0].request.at, 0u) << "applied at the job's next control point";
  EXPECT_EQ(cluster::formatHostCounts(decided[0].request.claims), "h2:2");
  EXPECT_EQ(decided[0].request.what, "every rank to host h2");
  EXPECT_EQ(decided[0].hostsBefore, 2u);
}

TEST(MigrationDecisionsTest, NothingMovesWhileNoHostHasRoom) {
  // Another job holds the rest of h2, h3 and h4.
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 0), host("h3", 4, 1), host("h4", 4, 1)};
  EXPECT_EQ(moves(hosts, {job(1, "compact", "h2:2,h3:2")}), Moves{});
  EXPECT_EQ(moves(hosts, {job(1, "binpack", "h2:2,h3:2")}), Moves{});
}

TEST(MigrationDecisionsTest, CompactTakesPartialStepsBinpackWaitsForOneHost) {
  // Job 1 spans three hosts, one rank each; h2 has room for one more, so
  // two hosts can hold it but no single host can.
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 1), host("h3", 2, 1), host("h4", 2, 1)};
  EXPECT_EQ(moves(hosts, {job(1, "compact", "h2:1,h3:1,h4:1")}), Moves{"1:h2:2,h3:1"});
  EXPECT_EQ(moves(hosts, {job(1, "binpack", "h2:1,h3:1,h4:1")}), Moves{});
  EXPECT_EQ(moves(hosts, {job(1, "locality", "h2:1,h3:1,h4:1")}), Moves{});
}

TEST(MigrationDecisionsTest, AJobWithGapsCountsEachHostOnce) {
  // Ranks 0 and 2 on h4, rank 1 on h3 (after a move): two hosts, not three
  // runs. With no host to gather it on, nothing moves: in particular not
  // a restart onto the same two hosts that only makes h4's ranks
  // consecutive.
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 2), host("h3", 2, 1), host("h4", 2, 0)};
  EXPECT_EQ(moves(hosts, {job(1, "compact", "h4:1,h3:1,h4:1")}), Moves{});
  // Once h4 has a free slot, compact gathers the job there, from two hosts.
  hosts = {host("h2", 2, 2), host("h3", 2, 1), host("h4", 3, 1)};
  std::vector<MigrationDecision> decided =
      decideMigrations(hosts, {job(1, "compact", "h4:1,h3:1,h4:1")}, {}, kNow);
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_EQ(cluster::formatHostCounts(decided[0].request.placement), "h4:3");
  EXPECT_EQ(decided[0].hostsBefore, 2u);
}

TEST(MigrationDecisionsTest, SpreadAndSingleHostJobsAreNeverMoved) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 8, 6), host("h3", 8, 6), host("h4", 8, 8)};
  EXPECT_EQ(moves(hosts, {job(1, "spread", "h2:1,h3:1")}), Moves{});
  EXPECT_EQ(moves(hosts, {job(2, "binpack", "h2:2")}), Moves{});
  EXPECT_EQ(moves(hosts, {job(3, "compact", "h2:2")}), Moves{});
}

TEST(MigrationDecisionsTest, BinpackGoesToTheFullestHostThatHoldsTheJob) {
  // h4 (3 free) is fuller than h2 (5 free with the job's 2): binpack's pick.
  std::vector<cluster::HostRecord> hosts = {host("h2", 8, 3), host("h3", 8, 6), host("h4", 8, 3)};
  EXPECT_EQ(moves(hosts, {job(1, "binpack", "h2:2,h3:1")}), Moves{"1:h4:3"});
}

TEST(MigrationDecisionsTest, LocalityPrefersAHostRunningTheSameApp) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 8, 6), host("h3", 8, 7), host("h4", 8, 4)};
  RunningJobView other = job(2, "binpack", "h3:1");
  other.movable = false;
  EXPECT_EQ(moves(hosts, {job(1, "locality", "h2:1,h4:1"), other}), Moves{"1:h3:2"});
  other.job.app = "another";
  EXPECT_EQ(moves(hosts, {job(1, "locality", "h2:1,h4:1"), other}), Moves{"1:h4:2"});
}

TEST(MigrationDecisionsTest, JobsThatAreNotMovableOrUnknownStayPut) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2)};
  RunningJobView fixed = job(1, "compact", "h2:2,h3:2");
  fixed.movable = false;
  EXPECT_EQ(moves(hosts, {fixed}), Moves{});
  EXPECT_EQ(moves(hosts, {job(1, "random", "h2:2,h3:2")}), Moves{});
  RunningJobView torn = job(1, "compact", "h2:2,h3:2");
  torn.job.ranks = 5;  // a rank table that does not match the job
  EXPECT_EQ(moves(hosts, {torn}), Moves{});
}

TEST(MigrationDecisionsTest, DrainingAndGoneHostsAreNoTargets) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2, true), host("h3", 4, 2),
                                            host("h4", 8, 8, true)};
  EXPECT_EQ(moves(hosts, {job(1, "compact", "h2:2,h3:2")}), Moves{"1:h3:4"});
  EXPECT_EQ(moves({host("h3", 4, 2)}, {job(1, "compact", "h2:2,h3:2")}), Moves{"1:h3:4"})
      << "h2 is gone from the cluster: its ranks move too";
}

TEST(MigrationDecisionsTest, APendingMoveIsNotDecidedAgainAndItsClaimsCount) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2), host("h4", 4, 2)};
  RunningJobView pending = job(1, "compact", "h2:2,h3:2");
  pending.migrationState = "requested";
  pending.migrationClaims = {{"h2", 2}};
  EXPECT_EQ(moves(hosts, {pending}), Moves{});
  pending.migrationState = "stopping";
  EXPECT_EQ(moves(hosts, {pending}), Moves{});
  // Job 2 would gather on h2 but for job 1's pending claim of h2's two
  // free slots; h3 and h4 have no room, so it stays.
  hosts = {host("h2", 4, 2), host("h3", 4, 0), host("h4", 4, 0)};
  RunningJobView second = job(2, "compact", "h3:1,h4:1");
  pending.migrationState = "requested";
  EXPECT_EQ(moves(hosts, {second}), Moves{"2:h2:2"});
  EXPECT_EQ(moves(hosts, {pending, second}), Moves{});
}

TEST(MigrationDecisionsTest, AMovedJobWaitsOutItsCoolDown) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2)};
  RunningJobView moved = job(1, "compact", "h2:2,h3:2");
  DecisionLimits limits{.coolDownMs = 30000, .abortBackoffMs = 60000, .maxPerRound = 1};
  moved.movedAtMs = kNow - 29999;
  EXPECT_EQ(moves(hosts, {moved}, limits), Moves{});
  moved.movedAtMs = kNow - 30000;
  EXPECT_EQ(moves(hosts, {moved}, limits), Moves{"1:h2:4"});
}

// A move taken live (issue 22) leaves the job's scheduling record as its
// client wrote it: the window runs from the migration record's moved-at.
TEST(MigrationDecisionsTest, AJobMovedLiveWaitsOutItsCoolDown) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2)};
  RunningJobView moved = job(1, "compact", "h2:2,h3:2");
  DecisionLimits limits{.coolDownMs = 30000, .abortBackoffMs = 60000, .maxPerRound = 1};
  moved.movedAtMs = kNow - 600000;
  moved.migrationState = "done";
  moved.migrationMovedAtMs = kNow - 29999;
  EXPECT_EQ(moves(hosts, {moved}, limits), Moves{});
  moved.migrationMovedAtMs = kNow - 30000;
  EXPECT_EQ(moves(hosts, {moved}, limits), Moves{"1:h2:4"});
}

TEST(MigrationDecisionsTest, AnAbortedMoveIsNotRetriedBeforeItsBackoff) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 4, 2), host("h3", 4, 2)};
  RunningJobView aborted = job(1, "compact", "h2:2,h3:2");
  aborted.migrationState = "aborted";
  aborted.decidedAtMs = kNow - 1000;
  DecisionLimits limits{.coolDownMs = 30000, .abortBackoffMs = 60000, .maxPerRound = 1};
  for (int64_t later : {0, 1000, 30000, 58999})
    EXPECT_EQ(moves(hosts, {aborted}, limits, kNow + later), Moves{}) << later;
  EXPECT_EQ(moves(hosts, {aborted}, limits, kNow + 59000), Moves{"1:h2:4"});
  // An abort of a move asked by hand (no decision of ours) is no reason to wait.
  aborted.decidedAtMs = 0;
  EXPECT_EQ(moves(hosts, {aborted}, limits), Moves{"1:h2:4"});
  // A job whose last move went through ("done", an old record) is free too.
  aborted.migrationState = "done";
  aborted.decidedAtMs = kNow - 1000;
  EXPECT_EQ(moves(hosts, {aborted}, limits), Moves{"1:h2:4"});
}

TEST(MigrationDecisionsTest, OneRoundMovesAtMostTheLimitAndNeverPromisesASlotTwice) {
  // Jobs 1 and 2 each span h2 and h3 (1 + 1); h4 has room for one job of 2.
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 0), host("h3", 2, 0), host("h4", 2, 2)};
  std::vector<RunningJobView> jobs = {job(2, "compact", "h2:1,h3:1"),
                                      job(1, "compact", "h2:1,h3:1")};
  EXPECT_EQ(moves(hosts, jobs), Moves{"1:h4:2"}) << "the oldest job first, one a round";
  DecisionLimits many{.coolDownMs = 0, .abortBackoffMs = 0, .maxPerRound = 8};
  EXPECT_EQ(moves(hosts, jobs, many), Moves{"1:h4:2"}) << "h4's two slots go to one job only";
  hosts[2] = host("h4", 4, 4);
  EXPECT_EQ(moves(hosts, jobs, many), (Moves{"1:h4:2", "2:h4:2"}));
}

// Brute force over many random clusters: every move spans fewer hosts,
// keeps the rank count, lands only on live undrained hosts, and claims no
// more than each host has free after the moves before it.
TEST(MigrationDecisionsTest, RandomPlacementsOnlyEverMoveToFewerHostsThatFit) {
  std::mt19937 random(22);
  const char* policies[] = {"binpack", "spread", "locality", "compact"};
  unsigned decided = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<cluster::HostRecord> hosts;
    unsigned hostCount = 2 + random() % 4;
    for (unsigned i = 0; i < hostCount; ++i) {
      unsigned slots = 1 + random() % 6;
      hosts.push_back(host("h" + std::to_string(i), slots, random() % (slots + 1),
                           random() % 8 == 0));
    }
    std::vector<RunningJobView> jobs;
    unsigned jobCount = 1 + random() % 3;
    for (unsigned j = 0; j < jobCount; ++j) {
      std::string placement;
      unsigned parts = 1 + random() % hostCount;
      unsigned first = random() % (hostCount - parts + 1);
      for (unsigned p = 0; p < parts; ++p)
        placement += (p ? "," : "") + hosts[first + p].id + ":" + std::to_string(1 + random() % 3);
      jobs.push_back(job(j + 1, policies[random() % 4], placement));
    }
    DecisionLimits limits{.coolDownMs = 0, .abortBackoffMs = 0, .maxPerRound = 3};
    std::map<std::string, unsigned> freeLeft;
    for (const cluster::HostRecord& h : hosts) freeLeft[h.id] = h.freeSlots;
    for (const MigrationDecision& decision : decideMigrations(hosts, jobs, limits, kNow)) {
      ++decided;
      const RunningJobView& view = jobs[decision.jobId - 1];
      std::map<std::string, unsigned> before;
      for (const std::string& id : view.rankHosts) ++before[id];
      unsigned ranks = 0;
      for (const auto& [id, count] : decision.request.placement) {
        ranks += count;
        const cluster::HostRecord* target = nullptr;
        for (const cluster::HostRecord& h : hosts)
          if (h.id == id) target = &h;
        ASSERT_NE(target, nullptr);
        EXPECT_FALSE(target->draining) << "trial " << trial;
        unsigned extra = count > before[id] ? count - before[id] : 0;
        ASSERT_LE(extra, freeLeft[id]) << "trial " << trial << " " << id;
        freeLeft[id] -= extra;
      }
      EXPECT_EQ(ranks, view.job.ranks) << "trial " << trial;
      EXPECT_LT(decision.request.placement.size(), before.size()) << "trial " << trial;
      EXPECT_NE(view.policy, "spread") << "trial " << trial;
    }
  }
  EXPECT_GT(decided, 100u) << "the random clusters should give many moves to check";
}

}  // namespace
