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

}  // namespace
