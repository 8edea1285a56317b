//===- OutputNotesTest.cpp - a moved rank's output order at the client ----===//
//
// The part -> daemon notes and the OutputMark / OutputHold payloads round
// trip, and every hostile payload (a wrong size, another job, a rank or
// part out of range, a hold naming its own part, random bytes) is refused
// with a reason. OutputOrder holds a live move's target's output until the
// source's mark, whichever comes first, and ends a hold at the source's
// exit, its lost connection, the time limit and the memory limit.
//
//===----------------------------------------------------------------------===//
#include "cluster/OutputNotes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace synergy;
using namespace synergy::cluster;

namespace {

TEST(OutputNotesTest, NotesRoundTripAndRefuseMalformedOnes) {
  for (OutputNote note : {OutputNote{kOutputNoteMark, 7, 0}, OutputNote{kOutputNoteHold, 3, 2}}) {
    std::vector<uint8_t> bytes = encodeOutputNote(note);
    ASSERT_EQ(bytes.size(), kOutputNoteBytes);
    OutputNote back;
    ASSERT_TRUE(decodeOutputNote(bytes.data(), back));
    EXPECT_EQ(back.kind, note.kind);
    EXPECT_EQ(back.worldRank, note.worldRank);
    EXPECT_EQ(back.sourcePart, note.sourcePart);
  }
  OutputNote back;
  std::vector<uint8_t> bytes = encodeOutputNote({kOutputNoteHold, 1, 1});
  bytes[0] = 3;
  EXPECT_FALSE(decodeOutputNote(bytes.data(), back));
  bytes = encodeOutputNote({kOutputNoteHold, 1, 1});
  bytes[2] = 1;
  EXPECT_FALSE(decodeOutputNote(bytes.data(), back));
  // A mark names no part.
  bytes = encodeOutputNote({kOutputNoteMark, 1, 1});
  EXPECT_FALSE(decodeOutputNote(bytes.data(), back));
}

TEST(OutputNotesTest, FramesRoundTripForTheirJobAndRanks) {
  uint32_t rank = 0, source = 0;
  std::string reason;
  ASSERT_TRUE(decodeOutputMark(encodeOutputMark(42, 3), 42, 4, rank, reason)) << reason;
  EXPECT_EQ(rank, 3u);
  ASSERT_TRUE(
      decodeOutputHold(encodeOutputHold(42, 1, 2), 42, 4, 3, 0, rank, source, reason))
      << reason;
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(source, 2u);
  EXPECT_EQ(encodeOutputMark(1, 1).size(), transport::kOutputMarkBytes);
  EXPECT_EQ(encodeOutputHold(1, 1, 1).size(), transport::kOutputHoldBytes);
}

TEST(OutputNotesTest, HostileFramesAreRefusedWithAReason) {
  uint32_t rank = 0, source = 0;
  std::string reason;
  std::vector<uint8_t> mark = encodeOutputMark(42, 3);
  EXPECT_FALSE(decodeOutputMark(mark, 41, 4, rank, reason));
  EXPECT_EQ(reason, "OutputMark for job 42, not this job 41");
  EXPECT_FALSE(decodeOutputMark(mark, 42, 3, rank, reason));
  EXPECT_EQ(reason, "OutputMark for rank 3 of a job of 3 ranks");
  mark.push_back(0);
  EXPECT_FALSE(decodeOutputMark(mark, 42, 4, rank, reason));
  EXPECT_EQ(reason, "OutputMark of 13 bytes, not 12");
  EXPECT_FALSE(decodeOutputMark({}, 42, 4, rank, reason));
  EXPECT_FALSE(decodeOutputMark(encodeOutputHold(42, 1, 1), 42, 4, rank, reason));

  EXPECT_FALSE(decodeOutputHold(encodeOutputHold(42, 1, 3), 42, 4, 3, 0, rank, source, reason));
  EXPECT_EQ(reason, "OutputHold from part 0 naming part 3 of 3 as its source");
  EXPECT_FALSE(decodeOutputHold(encodeOutputHold(42, 1, 2), 42, 4, 3, 2, rank, source, reason));
  EXPECT_EQ(reason, "OutputHold from part 2 naming part 2 of 3 as its source");
  EXPECT_FALSE(
      decodeOutputHold(encodeOutputHold(42, 0xffffffffu, 1), 42, 4, 3, 0, rank, source, reason));
  EXPECT_FALSE(decodeOutputHold(encodeOutputHold(7, 1, 1), 42, 4, 3, 0, rank, source, reason));
  EXPECT_FALSE(decodeOutputHold(encodeOutputMark(42, 1), 42, 4, 3, 0, rank, source, reason));

  // Random payloads of every size around the two: only those that name
  // this job, a rank below 4 and (a hold) another part below 3 pass.
  std::mt19937 random(22);
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint8_t> payload(random() % 20);
    for (uint8_t& byte : payload) byte = uint8_t(random() % 3 == 0 ? 0 : random());
    if (payload.size() >= 8 && random() % 2) {
      payload[0] = 42;
      for (int i = 1; i < 8; ++i) payload[i] = 0;
    }
    bool ours = payload.size() >= 12 && payload[0] == 42 &&
                std::all_of(payload.begin() + 1, payload.begin() + 8, [](uint8_t b) { return !b; });
    bool rankFits = payload.size() >= 12 && payload[9] == 0 && payload[10] == 0 &&
                    payload[11] == 0 && payload[8] < 4;
    bool markOk = decodeOutputMark(payload, 42, 4, rank, reason);
    EXPECT_EQ(markOk, payload.size() == 12 && ours && rankFits);
    bool holdOk = decodeOutputHold(payload, 42, 4, 3, 1, rank, source, reason);
    if (holdOk) {
      EXPECT_EQ(payload.size(), 16u);
      EXPECT_LT(rank, 4u);
      EXPECT_LT(source, 3u);
      EXPECT_NE(source, 1u);
    }
  }
}

transport::Frame outputFrame(const std::string& text) {
  transport::Frame frame{transport::FrameType::JobOutput, {1}};
  frame.payload.insert(frame.payload.end(), text.begin(), text.end());
  return frame;
}

transport::Frame exitFrame() { return {transport::FrameType::JobExit, {0, 0, 0, 0}}; }

struct Printed {
  std::vector<std::string> lines;
  OutputOrder order{3, [this](size_t part, transport::Frame&& frame) {
                      lines.push_back(
                          std::to_string(part) + ":" +
                          (frame.type == transport::FrameType::JobExit
                               ? std::string("exit")
                               : std::string(frame.payload.begin() + 1, frame.payload.end())));
                    }};
};

TEST(OutputOrderTest, TheTargetWaitsForTheSourcesMark) {
  Printed printed;
  printed.order.output(1, outputFrame("before"));
  printed.order.hold(2, 1, 1);
  printed.order.output(2, outputFrame("after"));
  printed.order.output(2, exitFrame());
  EXPECT_TRUE(printed.order.holding(2));
  printed.order.output(1, outputFrame("last before"));
  printed.order.output(0, outputFrame("other part"));
  printed.order.mark(1, 1);
  EXPECT_FALSE(printed.order.holding(2));
  EXPECT_EQ(printed.lines, (std::vector<std::string>{"1:before", "1:last before", "0:other part",
                                                     "2:after", "2:exit"}));
}

TEST(OutputOrderTest, AMarkBeforeTheHoldHoldsNothing) {
  Printed printed;
  printed.order.output(1, outputFrame("before"));
  printed.order.mark(1, 1);
  printed.order.hold(2, 1, 1);
  EXPECT_FALSE(printed.order.holding(2));
  printed.order.output(2, outputFrame("after"));
  EXPECT_EQ(printed.lines, (std::vector<std::string>{"1:before", "2:after"}));
  // The mark was used: a second move of the same rank waits for its own.
  printed.order.hold(2, 1, 1);
  EXPECT_TRUE(printed.order.holding(2));
}

TEST(OutputOrderTest, AMarkHeldBehindItsPartsOwnHoldWaitsWithIt) {
  // Rank 1 moved from part 0 to part 1, then rank 2 from part 1 to part 2:
  // part 1's mark for rank 2 is behind its own hold for rank 1.
  Printed printed;
  printed.order.hold(1, 1, 0);
  printed.order.output(1, outputFrame("rank 1 after"));
  printed.order.mark(1, 2);
  printed.order.hold(2, 2, 1);
  printed.order.output(2, outputFrame("rank 2 after"));
  EXPECT_TRUE(printed.lines.empty());
  printed.order.output(0, outputFrame("rank 1 before"));
  printed.order.mark(0, 1);
  EXPECT_EQ(printed.lines, (std::vector<std::string>{"0:rank 1 before", "1:rank 1 after",
                                                     "2:rank 2 after"}));
}

TEST(OutputOrderTest, TheSourcesExitOrLossEndsTheHold) {
  Printed exited;
  exited.order.hold(2, 1, 1);
  exited.order.output(2, outputFrame("after"));
  exited.order.output(1, exitFrame());
  EXPECT_EQ(exited.lines, (std::vector<std::string>{"1:exit", "2:after"}));

  // A source daemon killed (SIGKILL): its connection closes, and the
  // target's output is printed as it would have been without the hold.
  Printed lost;
  lost.order.hold(2, 1, 1);
  lost.order.output(2, outputFrame("after"));
  lost.order.lost(1);
  EXPECT_EQ(lost.lines, (std::vector<std::string>{"2:after"}));
}

TEST(OutputOrderTest, ReleaseAllAndTheTimeLimitEndHolds) {
  Printed released;
  released.order.hold(2, 1, 1);
  released.order.output(2, outputFrame("after"));
  released.order.releaseAll();
  released.order.hold(2, 1, 1);
  released.order.output(2, outputFrame("later"));
  EXPECT_EQ(released.lines, (std::vector<std::string>{"2:after", "2:later"}));

  Printed timed;
  timed.order.hold(2, 1, 1);
  timed.order.output(2, outputFrame("after"));
  auto now = std::chrono::steady_clock::now();
  EXPECT_TRUE(timed.order.expire(now).empty());
  EXPECT_TRUE(timed.lines.empty());
  std::vector<std::string> notes = timed.order.expire(
      now + std::chrono::milliseconds(int(kMaxOutputHoldSeconds * 1000) + 1000));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "part 2 held its output 10 s for rank 1's earlier lines from part 1");
  EXPECT_EQ(timed.lines, (std::vector<std::string>{"2:after"}));
}

TEST(OutputOrderTest, TheMemoryLimitEndsAHold) {
  Printed printed;
  printed.order.hold(2, 1, 1);
  std::string chunk(transport::kMaxJobOutputChunkBytes, 'x');
  size_t chunks = kMaxHeldOutputBytes / chunk.size() + 1;
  for (size_t i = 0; i < chunks; ++i) printed.order.output(2, outputFrame(chunk));
  EXPECT_FALSE(printed.order.holding(2));
  EXPECT_EQ(printed.lines.size(), chunks);
  std::vector<std::string> notes = printed.order.expire(std::chrono::steady_clock::now());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "part 2 held more than 64 MiB of output for rank 1's earlier lines from part 1");
}

TEST(OutputOrderTest, HoldsNamingNoOtherPartAreIgnored) {
  Printed printed;
  printed.order.hold(2, 1, 2);
  printed.order.hold(2, 1, 9);
  printed.order.output(2, outputFrame("after"));
  printed.order.output(9, outputFrame("nowhere"));
  EXPECT_EQ(printed.lines, (std::vector<std::string>{"2:after"}));
}

}  // namespace
