//===- RouteSwitchTest.cpp - the RouteSwitch frames' decoders ---------------===//
//
// cluster/RouteSwitch.h: a table and an answer survive the round trip, and
// hostile bytes (every cut, a wrong size, a part out of range, an unknown
// kind, a zero id, a reason longer than allowed or than the payload) are
// refused with a reason, never read past their end. Also the
// SYNERGY_TEST_ROUTE_SWITCH hook's syntax.
//
//===----------------------------------------------------------------------===//
#include "cluster/RouteSwitch.h"

#include <gtest/gtest.h>

#include "transport/FrameTypes.h"
#include "util/LittleEndian.h"

using namespace synergy::cluster;

namespace {

RouteSwitchFrame threeRanks() { return {7, 3, RouteSwitchFrame::kSwitch, 2, {0, 1, 1}}; }

TEST(RouteSwitchTest, TableRoundTrips) {
  std::vector<uint8_t> bytes = encodeRouteSwitch(threeRanks());
  EXPECT_EQ(bytes.size(), synergy::transport::kRouteSwitchHeadBytes + 3 * 4);
  std::string error;
  std::optional<RouteSwitchFrame> frame = decodeRouteSwitch(bytes, 3, 2, error);
  ASSERT_TRUE(frame) << error;
  EXPECT_EQ(frame->moveId, 7u);
  EXPECT_EQ(frame->round, 3u);
  EXPECT_EQ(frame->kind, RouteSwitchFrame::kSwitch);
  EXPECT_EQ(frame->partOfRank, (std::vector<uint32_t>{0, 1, 1}));
  EXPECT_LE(bytes.size(), synergy::transport::maxPayloadBytes(synergy::transport::FrameType::RouteSwitch));
}

TEST(RouteSwitchTest, EveryCutAndEveryExtraByteIsRefused) {
  std::vector<uint8_t> bytes = encodeRouteSwitch(threeRanks());
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(size));
    std::string error;
    EXPECT_FALSE(decodeRouteSwitch(cut, 3, 2, error)) << size;
    EXPECT_FALSE(error.empty());
  }
  bytes.push_back(0);
  std::string error;
  EXPECT_FALSE(decodeRouteSwitch(bytes, 3, 2, error));
  EXPECT_NE(error.find("bytes for 3 ranks"), std::string::npos) << error;
}

TEST(RouteSwitchTest, HostileFieldsAreRefused) {
  auto refused = [](RouteSwitchFrame frame, uint32_t worldSize, uint32_t parts,
                    const std::string& expect) {
    std::string error;
    EXPECT_FALSE(decodeRouteSwitch(encodeRouteSwitch(frame), worldSize, parts, error));
    EXPECT_NE(error.find(expect), std::string::npos) << error;
  };
  RouteSwitchFrame frame = threeRanks();
  frame.partOfRank[2] = 2;
  refused(frame, 3, 2, "puts rank 2 on part 2, of 2");
  frame.partOfRank[2] = 0xffffffffu;
  refused(frame, 3, 2, "puts rank 2 on part 4294967295");
  refused(threeRanks(), 4, 2, "for 3 ranks over 2 parts, in a job of 4 over 2");
  refused(threeRanks(), 3, 3, "in a job of 3 over 3");
  frame = threeRanks();
  frame.kind = 3;
  refused(frame, 3, 2, "unknown kind 3");
  frame = threeRanks();
  frame.moveId = 0;
  refused(frame, 3, 2, "move id or control point 0");
  frame = threeRanks();
  frame.round = 0;
  refused(frame, 3, 2, "move id or control point 0");
  // A rank count that would overflow the size check if multiplied unchecked.
  std::vector<uint8_t> bytes = encodeRouteSwitch(threeRanks());
  synergy::util::writeLittleEndian(bytes.data() + 17, 0x40000001u, 4);
  std::string error;
  EXPECT_FALSE(decodeRouteSwitch(bytes, 0x40000001u, 2, error));
}

TEST(RouteSwitchTest, AnswersRoundTripAndHostileOnesAreRefused) {
  RouteSwitchAnswer answer{9, RouteSwitchFrame::kRollback, false, "part 2 says no"};
  std::vector<uint8_t> bytes = encodeRouteSwitchAnswer(answer);
  std::string error;
  std::optional<RouteSwitchAnswer> back = decodeRouteSwitchAnswer(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->moveId, 9u);
  EXPECT_EQ(back->kind, RouteSwitchFrame::kRollback);
  EXPECT_FALSE(back->accepted);
  EXPECT_EQ(back->why, "part 2 says no");
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(size));
    EXPECT_FALSE(decodeRouteSwitchAnswer(cut, error)) << size;
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back('x');
  EXPECT_FALSE(decodeRouteSwitchAnswer(longer, error));
  std::vector<uint8_t> flag = bytes;
  flag[9] = 2;
  EXPECT_FALSE(decodeRouteSwitchAnswer(flag, error));
  std::vector<uint8_t> kind = bytes;
  kind[8] = 0;
  EXPECT_FALSE(decodeRouteSwitchAnswer(kind, error));
  std::vector<uint8_t> zero = bytes;
  synergy::util::writeLittleEndian(zero.data(), 0, 8);
  EXPECT_FALSE(decodeRouteSwitchAnswer(zero, error));
  // A reason longer than any refusal may be, with the bytes to match.
  std::vector<uint8_t> huge = encodeRouteSwitchAnswer({9, RouteSwitchFrame::kSwitch, false, ""});
  synergy::util::writeLittleEndian(huge.data() + 10, synergy::transport::kMaxRefusalBytes + 1, 4);
  huge.resize(huge.size() + synergy::transport::kMaxRefusalBytes + 1, 'x');
  EXPECT_FALSE(decodeRouteSwitchAnswer(huge, error));
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
}

TEST(RouteSwitchTest, HookSyntax) {
  RouteSwitchHook hook;
  ASSERT_TRUE(parseRouteSwitchHook("3", 3, 4, hook));
  EXPECT_EQ(hook.at, 3u);
  EXPECT_EQ(hook.refusePart, 0u);
  EXPECT_FALSE(hook.stray);
  ASSERT_TRUE(parseRouteSwitchHook("2:refuse=2", 3, 4, hook));
  EXPECT_EQ(hook.at, 2u);
  EXPECT_EQ(hook.refusePart, 2u);
  ASSERT_TRUE(parseRouteSwitchHook("4:stray", 2, 4, hook));
  EXPECT_TRUE(hook.stray);
  ASSERT_TRUE(parseRouteSwitchHook("2:move=3@0", 2, 4, hook));
  EXPECT_TRUE(hook.move);
  EXPECT_EQ(hook.moveRank, 3u);
  EXPECT_EQ(hook.movePart, 0u);
  for (const char* bad : {"", "0", "x", "3:", "3:refuse=", "3:refuse=0", "3:refuse=3", "3:stra",
                          "-1", "1234567890", "3:refuse=1x", "3:move=", "3:move=1", "3:move=1@",
                          "3:move=@1", "3:move=4@1", "3:move=1@3", "3:move=1@1@1", "3:move=x@1"}) {
    RouteSwitchHook untouched;
    EXPECT_FALSE(parseRouteSwitchHook(bad, 3, 4, untouched)) << bad;
    EXPECT_EQ(untouched.at, 0u) << bad;
  }
}

TEST(RouteSwitchTest, LiveMoveHookSyntax) {
  // Ranks 0-1 on part 0, 2-3 on part 1, 4 on part 2.
  const std::vector<uint32_t> parts{0, 0, 1, 1, 2};
  LiveMoveHook hook;
  ASSERT_TRUE(parseLiveMoveHook("2@2:0", parts, 3, hook));
  EXPECT_EQ(hook.rank, 2u);
  EXPECT_EQ(hook.at, 2u);
  EXPECT_EQ(hook.source, 1u);
  EXPECT_EQ(hook.target, 0u);
  ASSERT_TRUE(parseLiveMoveHook("0@123456789:2", parts, 3, hook));
  EXPECT_EQ(hook.source, 0u);
  EXPECT_EQ(hook.at, 123456789u);
  for (const char* bad : {"", "2", "2@2", "2:0", "2@:0", "@2:0", "2@2:", "2@0:0", "2@2:1",
                          "5@2:0", "2@2:3", "-2@2:0", "+2@2:0", " 2@2:0", "2@2:0 ", "2@2:0x",
                          "2@1234567890:0", "12345@2:0", "2:0@2", "2@2:0:1", "2@2@2:0"}) {
    LiveMoveHook untouched;
    EXPECT_FALSE(parseLiveMoveHook(bad, parts, 3, untouched)) << bad;
    EXPECT_EQ(untouched.at, 0u) << bad;
  }
}

}  // namespace
