//===- CpuSharingTest.cpp - whether a job part's waiting ranks may spin ---===//
//
// Loopback addresses, in either family and in any spelling, are this
// machine's; documentation addresses (RFC 5737, 3849) and text that is no
// address are not. A part's ranks own their CPUs only when the job's ranks
// on this machine and one I/O thread per part here fit in the CPUs: parts
// on loopback addresses count, parts elsewhere and unknown addresses do
// not.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "cluster/CpuSharing.h"

using synergy::cluster::isAddressOfThisMachine;
using synergy::cluster::JobPart;
using synergy::cluster::partRanksOwnCpus;

TEST(CpuSharingTest, KnowsThisMachinesAddresses) {
  EXPECT_TRUE(isAddressOfThisMachine("127.0.0.1"));
  EXPECT_TRUE(isAddressOfThisMachine("127.0.0.3"));
  EXPECT_TRUE(isAddressOfThisMachine("127.255.0.9"));
  EXPECT_TRUE(isAddressOfThisMachine("::1"));
  EXPECT_TRUE(isAddressOfThisMachine("::ffff:127.0.0.4"));
  EXPECT_FALSE(isAddressOfThisMachine("198.51.100.1"));
  EXPECT_FALSE(isAddressOfThisMachine("2001:db8::1"));
  EXPECT_FALSE(isAddressOfThisMachine(""));
  EXPECT_FALSE(isAddressOfThisMachine("localhost"));
  EXPECT_FALSE(isAddressOfThisMachine("127.0.0.1:7100"));
}

TEST(CpuSharingTest, CountsTheJobsRanksAndIoThreadsOnThisMachine) {
  JobPart part;
  part.partIndex = 1;
  part.partRanks = {2, 1, 1};
  part.address = "127.0.0.3";
  // Every part on this machine: 4 ranks and 3 I/O threads.
  std::vector<std::string> allHere{"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  EXPECT_FALSE(partRanksOwnCpus(part, allHere, 2));
  EXPECT_FALSE(partRanksOwnCpus(part, allHere, 6));
  EXPECT_TRUE(partRanksOwnCpus(part, allHere, 7));
  // The others on other machines: this part's rank and its I/O thread.
  std::vector<std::string> aloneHere{"198.51.100.1", "127.0.0.3", "203.0.113.2"};
  EXPECT_TRUE(partRanksOwnCpus(part, aloneHere, 2));
  EXPECT_FALSE(partRanksOwnCpus(part, aloneHere, 1));
  // An address not known counts as another machine's.
  EXPECT_TRUE(partRanksOwnCpus(part, {"", "127.0.0.3", ""}, 2));
  // Part 0 here too: 3 ranks and 2 I/O threads.
  EXPECT_FALSE(partRanksOwnCpus(part, {"127.0.0.2", "127.0.0.3", "203.0.113.2"}, 4));
  EXPECT_TRUE(partRanksOwnCpus(part, {"127.0.0.2", "127.0.0.3", "203.0.113.2"}, 5));
}

TEST(CpuSharingTest, ALonePartHasNoIoThreadToWaitFor) {
  JobPart part;
  part.partIndex = 0;
  part.partRanks = {2};
  part.address = "127.0.0.2";
  EXPECT_TRUE(partRanksOwnCpus(part, {"127.0.0.2"}, 2));
  EXPECT_FALSE(partRanksOwnCpus(part, {"127.0.0.2"}, 1));
}
