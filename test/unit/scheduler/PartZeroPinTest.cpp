//===- PartZeroPinTest.cpp - a restart's part 0 on a checkpoint holder ----===//
#include "scheduler/PartZeroPin.h"

#include <gtest/gtest.h>

using namespace synergy;
using synergy::scheduler::choosePartZeroHost;
using synergy::scheduler::HostShare;
using synergy::scheduler::pinPartZero;

namespace {

cluster::HostRecord host(const std::string& id, unsigned slots, unsigned freeSlots,
                         bool draining = false) {
  return {.id = id, .address = id + ":7100", .slots = slots, .freeSlots = freeSlots,
          .draining = draining};
}

TEST(PartZeroPinTest, TheFirstHolderWithAFreeSlotNow) {
  std::vector<cluster::HostRecord> hosts = {host("h1", 2, 2), host("h2", 2, 1), host("h3", 2, 1)};
  EXPECT_EQ(choosePartZeroHost({"h3", "h2"}, hosts), "h3");
  EXPECT_EQ(choosePartZeroHost({"h2", "h3"}, hosts), "h2");
}

TEST(PartZeroPinTest, AFullHolderGivesWayToOneWithAFreeSlot) {
  // Part 0's host has since been filled by another job; the mirror has room.
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 0), host("h3", 2, 1)};
  EXPECT_EQ(choosePartZeroHost({"h2", "h3"}, hosts), "h3");
}

TEST(PartZeroPinTest, ThePlacementsOwnChoiceStaysWhenItIsAHolderWithRoom) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 1), host("h3", 2, 1), host("h4", 2, 0)};
  EXPECT_EQ(choosePartZeroHost({"h2", "h3"}, hosts, "h3"), "h3");
  EXPECT_EQ(choosePartZeroHost({"h2", "h3"}, hosts, "h1"), "h2") << "h1 holds no copy";
  EXPECT_EQ(choosePartZeroHost({"h4", "h3"}, hosts, "h4"), "h3") << "h4 has no free slot";
}

TEST(PartZeroPinTest, WhenEveryHolderIsFullTheJobWaitsForTheFirst) {
  std::vector<cluster::HostRecord> hosts = {host("h2", 2, 0), host("h3", 1, 0)};
  EXPECT_EQ(choosePartZeroHost({"h3", "h2"}, hosts), "h3");
}

TEST(PartZeroPinTest, DrainingGoneAndSlotlessHoldersAreNotUsed) {
  std::vector<cluster::HostRecord> hosts = {host("h1", 4, 4), host("h2", 2, 2, true),
                                            host("h4", 0, 0)};
  EXPECT_EQ(choosePartZeroHost({"h2", "h3", "h4"}, hosts), std::nullopt);
  EXPECT_EQ(choosePartZeroHost({}, hosts), std::nullopt);
  EXPECT_EQ(choosePartZeroHost({"h2", "h1"}, hosts), "h1");
}

TEST(PartZeroPinTest, PinningMovesOrTakesOneRank) {
  std::vector<HostShare> shares = {{"h1", 2}, {"h3", 1}};
  pinPartZero(shares, "h3");
  EXPECT_EQ(shares, (std::vector<HostShare>{{"h3", 1}, {"h1", 2}}));
  shares = {{"h1", 2}, {"h4", 1}};
  pinPartZero(shares, "h2");
  EXPECT_EQ(shares, (std::vector<HostShare>{{"h2", 1}, {"h1", 2}}));
  shares = {{"h1", 1}, {"h4", 2}};
  pinPartZero(shares, "h2");
  EXPECT_EQ(shares, (std::vector<HostShare>{{"h2", 1}, {"h1", 1}, {"h4", 1}}));
}

}  // namespace
