//===- PlacementPolicyTest.cpp - binpack, spread and locality -------------===//
#include "scheduler/PlacementPolicy.h"

#include <gtest/gtest.h>

using namespace synergy;
using synergy::scheduler::createPlacementPolicy;

namespace {

cluster::HostRecord host(const std::string& id, unsigned slots, unsigned freeSlots,
                         bool draining = false) {
  return {.id = id, .address = id + ":7100", .slots = slots, .freeSlots = freeSlots,
          .draining = draining};
}

const std::vector<cluster::HostRecord> kHosts = {host("a", 8, 3), host("b", 8, 6),
                                                 host("c", 8, 2), host("d", 8, 8, true)};

std::optional<std::string> place(const std::string& policy, unsigned ranks,
                                 const std::vector<cluster::JobRecord>& running = {},
                                 const std::vector<cluster::HostRecord>& hosts = kHosts) {
  return createPlacementPolicy(policy)->chooseHost(hosts, running, "app1", ranks);
}

TEST(PlacementPolicyTest, BinPackTakesTheFullestHostThatFits) {
  EXPECT_EQ(place("binpack", 1), "c");
  EXPECT_EQ(place("binpack", 3), "a");
  EXPECT_EQ(place("binpack", 4), "b");
  EXPECT_EQ(place("binpack", 7), std::nullopt) << "the draining host must not be used";
}

TEST(PlacementPolicyTest, SpreadTakesTheEmptiestHostThatFits) {
  EXPECT_EQ(place("spread", 1), "b");
  EXPECT_EQ(place("spread", 6), "b");
  EXPECT_EQ(place("spread", 7), std::nullopt);
}

TEST(PlacementPolicyTest, TiesGoToTheSmallerHostId) {
  std::vector<cluster::HostRecord> equal = {host("x", 4, 4), host("y", 4, 4)};
  EXPECT_EQ(place("binpack", 2, {}, equal), "x");
  EXPECT_EQ(place("spread", 2, {}, equal), "x");
}

TEST(PlacementPolicyTest, LocalityPrefersHostsRunningTheSameApp) {
  std::vector<cluster::JobRecord> running = {
      {.id = 1, .name = "other", .app = "app2", .ranks = 2, .host = "c"},
      {.id = 2, .name = "mine", .app = "app1", .ranks = 2, .host = "b"}};
  EXPECT_EQ(place("locality", 1, running), "b");
  // The host running the app has no room: fall back to binpack.
  EXPECT_EQ(place("locality", 7, running), std::nullopt);
  EXPECT_EQ(place("locality", 1, {}), "c");
}

TEST(PlacementPolicyTest, CompactPlacesNewJobsAsBinpack) {
  for (unsigned ranks : {1u, 3u, 4u, 7u})
    EXPECT_EQ(place("compact", ranks), place("binpack", ranks)) << ranks;
}

TEST(PlacementPolicyTest, UnknownPoliciesAreRefused) {
  EXPECT_EQ(createPlacementPolicy("random"), nullptr);
  EXPECT_EQ(createPlacementPolicy(""), nullptr);
}

using scheduler::HostShare;

std::vector<HostShare> share(const std::string& policy, unsigned ranks,
                             const std::vector<cluster::HostRecord>& hosts = kHosts) {
  return createPlacementPolicy(policy)->placeRanks(hosts, {}, "app1", ranks);
}

TEST(PlacementPolicyTest, BinPackSpansTheFewestHostsOnlyWhenNoHostFits) {
  EXPECT_EQ(share("binpack", 3), (std::vector<HostShare>{{"a", 3}}));
  EXPECT_EQ(share("binpack", 8), (std::vector<HostShare>{{"a", 2}, {"b", 6}}));
  EXPECT_EQ(share("binpack", 11), (std::vector<HostShare>{{"a", 3}, {"b", 6}, {"c", 2}}));
  EXPECT_EQ(share("binpack", 12), std::vector<HostShare>{}) << "the draining host must not be used";
  EXPECT_EQ(share("locality", 8), (std::vector<HostShare>{{"a", 2}, {"b", 6}}));
}

TEST(PlacementPolicyTest, SpreadBalancesRanksOverHosts) {
  std::vector<cluster::HostRecord> three = {host("h2", 2, 2), host("h3", 2, 2), host("h4", 2, 2)};
  EXPECT_EQ(share("spread", 3, three), (std::vector<HostShare>{{"h2", 1}, {"h3", 1}, {"h4", 1}}));
  EXPECT_EQ(share("spread", 5, three), (std::vector<HostShare>{{"h2", 2}, {"h3", 2}, {"h4", 1}}));
  EXPECT_EQ(share("spread", 7, three), std::vector<HostShare>{});
  // b (6 free) takes ranks until it has as few free as a (3); from then
  // on ties go to the smaller id.
  EXPECT_EQ(share("spread", 3), (std::vector<HostShare>{{"b", 3}}));
  EXPECT_EQ(share("spread", 4), (std::vector<HostShare>{{"a", 1}, {"b", 3}}));
  EXPECT_EQ(share("spread", 7), (std::vector<HostShare>{{"a", 2}, {"b", 5}}));
}

// placeRunningJob: where a running job would go now, its own slots free.
std::vector<HostShare> now(const std::string& policy, const std::vector<HostShare>& current,
                           const std::vector<cluster::HostRecord>& hosts) {
  return createPlacementPolicy(policy)->placeRunningJob(hosts, {}, "app1", current);
}

TEST(PlacementPolicyTest, RunningJobsCountTheirOwnSlotsAsFree) {
  // The job holds 2 of x's slots and 2 of y's; x has 2 more free.
  std::vector<cluster::HostRecord> hosts = {host("x", 4, 2), host("y", 4, 0)};
  std::vector<HostShare> job = {{"x", 2}, {"y", 2}};
  for (const char* policy : {"binpack", "locality", "compact"})
    EXPECT_EQ(now(policy, job, hosts), (std::vector<HostShare>{{"x", 4}})) << policy;
  EXPECT_EQ(now("spread", job, hosts), std::vector<HostShare>{});
  // On one host already: nothing to gain.
  EXPECT_EQ(now("compact", {{"x", 2}}, hosts), std::vector<HostShare>{});
  EXPECT_EQ(now("binpack", {{"x", 2}}, hosts), std::vector<HostShare>{});
}

TEST(PlacementPolicyTest, OnlyCompactMovesAJobOntoFewerHostsThatAreStillSeveral) {
  std::vector<cluster::HostRecord> hosts = {host("x", 3, 1), host("y", 3, 2), host("z", 3, 2)};
  std::vector<HostShare> job = {{"x", 2}, {"y", 1}, {"z", 1}};
  EXPECT_EQ(now("compact", job, hosts), (std::vector<HostShare>{{"x", 3}, {"y", 1}}));
  EXPECT_EQ(now("binpack", job, hosts), std::vector<HostShare>{});
  EXPECT_EQ(now("locality", job, hosts), std::vector<HostShare>{});
  // Fewer hosts cannot hold it: compact stays too.
  hosts = {host("x", 3, 0), host("y", 3, 0), host("z", 3, 0)};
  EXPECT_EQ(now("compact", job, hosts), std::vector<HostShare>{});
}

}  // namespace
