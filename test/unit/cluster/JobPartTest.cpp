//===- JobPartTest.cpp - job part files and their checks ------------------===//
#include "cluster/JobPart.h"

#include <gtest/gtest.h>

using namespace synergy::cluster;

namespace {

JobPart samplePart() {
  JobPart part;
  part.jobId = 42;
  part.partIndex = 1;
  part.partRanks = {2, 2, 1};
  part.address = "127.0.0.3";
  part.state.host = "127.0.0.1";
  part.state.port = 6380;
  part.tokenFile = "/tmp/token";
  return part;
}

std::string refusal(const std::string& text) {
  JobPart part;
  std::string error;
  EXPECT_FALSE(parseJobPart(text, part, error));
  return error;
}

TEST(JobPartTest, RoundTripsAndLocatesRanks) {
  std::string text = formatJobPart(samplePart());
  EXPECT_EQ(text,
            "synergy-job-part 1\njob 42\npart 1\nparts 2 2 1\naddress 127.0.0.3\n"
            "state redis://127.0.0.1:6380\ntoken-file /tmp/token\n");
  JobPart part;
  std::string error;
  ASSERT_TRUE(parseJobPart(text, part, error)) << error;
  EXPECT_EQ(part.partRanks, (std::vector<uint32_t>{2, 2, 1}));
  EXPECT_EQ(part.worldSize(), 5);
  EXPECT_EQ(part.routes().ranksOf(2), (std::vector<uint32_t>{4}));
  EXPECT_EQ(part.routes().ranksOf(1), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(part.state.text(), "redis://127.0.0.1:6380");
}

// After a rank moved live, a part's ranks need not be consecutive: the
// file is version 2, with the part of each rank. A layout that is the
// consecutive one is still written as version 1.
TEST(JobPartTest, CarriesNonConsecutiveRankSets) {
  JobPart moved = samplePart();
  moved.partRanks = {2, 2, 1};
  moved.rankParts = {0, 1, 2, 1, 0};
  std::string text = formatJobPart(moved);
  EXPECT_EQ(text,
            "synergy-job-part 2\njob 42\npart 1\nparts 2 2 1\nrank-parts 0 1 2 1 0\n"
            "address 127.0.0.3\nstate redis://127.0.0.1:6380\ntoken-file /tmp/token\n");
  JobPart part;
  std::string error;
  ASSERT_TRUE(parseJobPart(text, part, error)) << error;
  EXPECT_EQ(part.rankParts, (std::vector<uint32_t>{0, 1, 2, 1, 0}));
  EXPECT_EQ(part.routes().ranksOf(0), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(part.routes().ranksOf(1), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(part.routes().runs(0), "0-0,4-4");
  EXPECT_EQ(part.address, "127.0.0.3");
  EXPECT_EQ(part.tokenFile, "/tmp/token");

  JobPart consecutive = samplePart();
  consecutive.rankParts = {0, 0, 1, 1, 2};
  EXPECT_EQ(formatJobPart(consecutive), formatJobPart(samplePart()));
}

TEST(JobPartTest, BadRankPartsAreRefused) {
  JobPart moved = samplePart();
  moved.rankParts = {0, 1, 2, 1, 0};
  std::string good = formatJobPart(moved);
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  const std::string mismatch = "line 5: the rank-parts do not match the counts";
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 2 1")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 2 1 0 0")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 2 2 0")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 3 1 0")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 2 1 -0")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts 0 1 2 1 0 ")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0", "rank-parts ")), mismatch);
  EXPECT_EQ(refusal(replaced("rank-parts", "ranks")), "line 5: expected 'rank-parts'");
  EXPECT_EQ(refusal(replaced("127.0.0.3", "127.0.0.3;rm")),
            "line 6: the address is not an IP literal");
  EXPECT_EQ(refusal(replaced("token-file /tmp/token", "token-file ")), "line 8: no token file");
  // Version 1 has no rank-parts line, version 2 must have one.
  EXPECT_EQ(refusal(replaced("synergy-job-part 2", "synergy-job-part 1")),
            "not a job part file");
  EXPECT_EQ(refusal(replaced("rank-parts 0 1 2 1 0\n", "")), "not a job part file");
}

TEST(JobPartTest, CarriesTheStatePassword) {
  JobPart withPassword = samplePart();
  withPassword.state.password = "s3cr@t:pass";
  std::string text = formatJobPart(withPassword);
  EXPECT_NE(text.find("state redis://:s3cr@t:pass@127.0.0.1:6380\n"), std::string::npos) << text;
  JobPart part;
  std::string error;
  ASSERT_TRUE(parseJobPart(text, part, error)) << error;
  EXPECT_EQ(part.state.password, "s3cr@t:pass");
  EXPECT_EQ(part.state.user, "");
  EXPECT_EQ(part.state.text(), "redis://127.0.0.1:6380");
}

TEST(JobPartTest, BadFieldsAreRefused) {
  std::string good = formatJobPart(samplePart());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  EXPECT_EQ(refusal(""), "not a job part file");
  EXPECT_EQ(refusal(replaced("job 42", "jobs 42")), "line 2: expected 'job'");
  EXPECT_EQ(refusal(replaced("job 42", "job -1")), "line 2: bad job id");
  EXPECT_EQ(refusal(replaced("\npart 1\n", "\npart 3\n")), "line 3: part 3 of 3");
  EXPECT_EQ(refusal(replaced("parts 2 2 1", "parts 2 0 1")), "line 4: bad rank counts");
  EXPECT_EQ(refusal(replaced("parts 2 2 1", "parts 4000 90 7")), "line 4: bad rank counts");
  EXPECT_EQ(refusal(replaced("127.0.0.3", "127.0.0.3;rm")),
            "line 5: the address is not an IP literal");
  EXPECT_EQ(refusal(replaced("token-file /tmp/token", "token-file ")), "line 7: no token file");
  EXPECT_EQ(refusal(good + "extra\n"), "not a job part file");
}

}  // namespace
