//===- JobMessagesTest.cpp - RunJob payloads and their limits -------------===//
#include "cluster/JobMessages.h"

#include <gtest/gtest.h>

using namespace synergy::cluster;

namespace {

RunJobRequest sampleRequest() {
  RunJobRequest request;
  request.jobId = 42;
  request.ranks = 3;
  request.tagOutput = true;
  for (int i = 0; i < 32; ++i) request.moduleHash[i] = uint8_t(i);
  request.arguments = {"app.wasm", "--size", ""};
  request.environment = {"A=1", "EMPTY="};
  return request;
}

std::string refusal(const std::vector<uint8_t>& payload) {
  RunJobRequest request;
  std::string reason;
  EXPECT_FALSE(decodeRunJob(payload, request, reason));
  return reason;
}

TEST(JobMessagesTest, RoundTrips) {
  RunJobRequest decoded;
  std::string reason;
  ASSERT_TRUE(decodeRunJob(encodeRunJob(sampleRequest()), decoded, reason)) << reason;
  EXPECT_EQ(decoded.jobId, 42u);
  EXPECT_EQ(decoded.ranks, 3u);
  EXPECT_TRUE(decoded.tagOutput);
  EXPECT_EQ(decoded.moduleHash, sampleRequest().moduleHash);
  EXPECT_EQ(decoded.arguments, sampleRequest().arguments);
  EXPECT_EQ(decoded.environment, sampleRequest().environment);
  EXPECT_EQ(hashHex(decoded.moduleHash).substr(0, 8), "00010203");
}

TEST(JobMessagesTest, EveryTruncationIsRefused) {
  std::vector<uint8_t> payload = encodeRunJob(sampleRequest());
  for (size_t length = 0; length < payload.size(); ++length) {
    std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
    EXPECT_EQ(refusal(prefix), "RunJob payload is truncated") << "length " << length;
  }
  payload.push_back(0);
  EXPECT_EQ(refusal(payload), "RunJob payload has trailing bytes");
}

TEST(JobMessagesTest, CountsAndLengthsAreCheckedBeforeUse) {
  std::vector<uint8_t> payload = encodeRunJob(sampleRequest());
  // The argument count sits right after id, ranks, flags and hash.
  size_t countOffset = 8 + 4 + 1 + 32;
  std::vector<uint8_t> hugeCount = payload;
  hugeCount[countOffset + 3] = 0xff;
  EXPECT_EQ(refusal(hugeCount), "RunJob has 4278190083 arguments (at most 4096)");
  std::vector<uint8_t> hugeLength = payload;
  hugeLength[countOffset + 4 + 3] = 0x7f;
  EXPECT_EQ(refusal(hugeLength), "RunJob payload is truncated");
}

TEST(JobMessagesTest, BadFieldsAreRefused) {
  RunJobRequest request = sampleRequest();
  request.ranks = 0;
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob asks for 0 ranks (1 to 4096)");
  request = sampleRequest();
  request.ranks = 4097;
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob asks for 4097 ranks (1 to 4096)");
  request = sampleRequest();
  request.arguments = {};
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob has no program name");
  request = sampleRequest();
  request.arguments[1] = std::string("a\0b", 3);
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob has a NUL byte in its arguments");
  request = sampleRequest();
  request.environment = {"NOEQUALS"};
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob environment entry without '='");
  std::vector<uint8_t> payload = encodeRunJob(sampleRequest());
  payload[12] = 16;
  EXPECT_EQ(refusal(payload), "RunJob has unknown flags 16");
  // Flag 8 announces a rank -> part table, which a job on one host has no use for.
  payload[12] = 8;
  EXPECT_EQ(refusal(payload), "RunJob has a rank -> part table for 0 parts");
  // Flag 4 announces a checkpoint section the payload then lacks.
  payload[12] = 4;
  EXPECT_EQ(refusal(payload), "RunJob payload is truncated");
}

TEST(JobMessagesTest, TheCheckpointSectionRoundTripsAndIsChecked) {
  RunJobRequest request = sampleRequest();
  request.checkpointIntervalMicroseconds = 5000000;
  request.checkpointDirectory = "/ck";
  request.checkpointProgram = "app.wasm";
  request.resume = true;
  request.resumeSequence = 7;
  RunJobRequest decoded;
  std::string reason;
  ASSERT_TRUE(decodeRunJob(encodeRunJob(request), decoded, reason)) << reason;
  EXPECT_EQ(decoded.checkpointIntervalMicroseconds, 5000000u);
  EXPECT_EQ(decoded.checkpointDirectory, "/ck");
  EXPECT_EQ(decoded.checkpointProgram, "app.wasm");
  EXPECT_TRUE(decoded.resume);
  EXPECT_EQ(decoded.resumeSequence, 7u);
  request.checkpointDirectory = "ck";  // not absolute
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob has a malformed checkpoint section");
  request.checkpointDirectory = "/ck";
  std::vector<uint8_t> payload = encodeRunJob(request);
  payload[payload.size() - 9] = 2;  // resume is 0 or 1
  EXPECT_EQ(refusal(payload), "RunJob has a malformed checkpoint section");
  // The resumed checkpoint's number: all 8 bytes, and below 2^63.
  payload = encodeRunJob(request);
  for (size_t cut = 1; cut <= 8; ++cut)
    EXPECT_EQ(refusal(std::vector<uint8_t>(payload.begin(), payload.end() - cut)),
              "RunJob payload is truncated");
  payload.back() = 0x80;
  EXPECT_EQ(refusal(payload), "RunJob has a malformed checkpoint section");
  // A job that is not resumed sends no number.
  request.resume = false;
  ASSERT_TRUE(decodeRunJob(encodeRunJob(request), decoded, reason)) << reason;
  EXPECT_FALSE(decoded.resume);
  EXPECT_EQ(decoded.resumeSequence, 0u);
}

TEST(JobMessagesTest, PartsOfASpreadJobRoundTrip) {
  RunJobRequest request = sampleRequest();
  request.ranks = 1;
  request.partRanks = {2, 2, 1};
  request.partIndex = 2;
  RunJobRequest decoded;
  std::string reason;
  ASSERT_TRUE(decodeRunJob(encodeRunJob(request), decoded, reason)) << reason;
  EXPECT_EQ(decoded.partRanks, (std::vector<uint32_t>{2, 2, 1}));
  EXPECT_EQ(decoded.partIndex, 2u);
  // Every truncation of the part list is refused too.
  std::vector<uint8_t> payload = encodeRunJob(request);
  for (size_t cut = 1; cut <= 20; ++cut)
    EXPECT_EQ(refusal(std::vector<uint8_t>(payload.begin(), payload.end() - cut)),
              "RunJob payload is truncated")
        << "cut " << cut;
}

TEST(JobMessagesTest, BadPartsAreRefused) {
  RunJobRequest request = sampleRequest();
  request.ranks = 2;
  request.partRanks = {2, 2};
  request.partIndex = 2;
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob names part 2 of 2");
  request.partIndex = 1;
  request.partRanks = {2, 0};
  EXPECT_EQ(refusal(encodeRunJob(request)),
            "RunJob has a part of 0 ranks, or more than 4096 in all");
  request.partRanks = {4095, 2};
  EXPECT_EQ(refusal(encodeRunJob(request)),
            "RunJob has a part of 2 ranks, or more than 4096 in all");
  request.partRanks = {2, 3};
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob's part 1 does not have its 2 ranks");
  // A part count far beyond the payload is refused before anything is read.
  request.partRanks = {2, 2};
  std::vector<uint8_t> payload = encodeRunJob(request);
  size_t partCountOffset = payload.size() - 4 * 4;
  payload[partCountOffset + 3] = 0x7f;
  EXPECT_EQ(refusal(payload), "RunJob names part 1 of 2130706434");
}

TEST(JobMessagesTest, PartsWithRankSetsRoundTrip) {
  // Part 0 runs ranks 0 and 2, part 1 rank 1: the layout after rank 0 moved
  // to the host of rank 2.
  RunJobRequest request = sampleRequest();
  request.ranks = 2;
  request.partRanks = {2, 1};
  request.rankParts = {0, 1, 0};
  RunJobRequest decoded;
  std::string reason;
  ASSERT_TRUE(decodeRunJob(encodeRunJob(request), decoded, reason)) << reason;
  EXPECT_EQ(decoded.partRanks, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(decoded.rankParts, (std::vector<uint32_t>{0, 1, 0}));
  // Without flag 8 the table is empty, as before.
  request.rankParts.clear();
  ASSERT_TRUE(decodeRunJob(encodeRunJob(request), decoded, reason)) << reason;
  EXPECT_TRUE(decoded.rankParts.empty());
  // Every truncation of the table is refused.
  request.rankParts = {0, 1, 0};
  std::vector<uint8_t> payload = encodeRunJob(request);
  for (size_t cut = 1; cut <= 12; ++cut)
    EXPECT_EQ(refusal(std::vector<uint8_t>(payload.begin(), payload.end() - cut)),
              "RunJob payload is truncated")
        << "cut " << cut;
}

TEST(JobMessagesTest, BadRankPartTablesAreRefused) {
  RunJobRequest request = sampleRequest();
  request.ranks = 2;
  request.partRanks = {2, 1};
  // A part past the last, and a part named more often than it has ranks.
  request.rankParts = {0, 2, 0};
  EXPECT_EQ(refusal(encodeRunJob(request)),
            "RunJob puts rank 1 on part 2, which has no room for it");
  request.rankParts = {1, 1, 0};
  EXPECT_EQ(refusal(encodeRunJob(request)),
            "RunJob puts rank 1 on part 1, which has no room for it");
  // One entry too many is a trailing one.
  request.rankParts = {0, 1, 0, 0};
  EXPECT_EQ(refusal(encodeRunJob(request)), "RunJob payload has trailing bytes");
}

}  // namespace
