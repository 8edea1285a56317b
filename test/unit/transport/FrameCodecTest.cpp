//===- FrameCodecTest.cpp - Frame header encoding and its limits ----------===//
//
// The header layout is the wire protocol, so these tests spell it out byte by
// byte, and check that every malformed or oversized header is refused with a
// reason before a payload buffer could be allocated.
//
//===----------------------------------------------------------------------===//
#include "transport/FrameCodec.h"

#include <gtest/gtest.h>

using namespace synergy::transport;

namespace {

FrameHeaderBytes rawHeader(uint16_t type, uint16_t reserved, uint64_t length) {
  FrameHeaderBytes bytes{'S', 'Y', 'N', '1'};
  bytes[4] = uint8_t(type);
  bytes[5] = uint8_t(type >> 8);
  bytes[6] = uint8_t(reserved);
  bytes[7] = uint8_t(reserved >> 8);
  for (int i = 0; i < 8; ++i) bytes[8 + i] = uint8_t(length >> (8 * i));
  return bytes;
}

std::string refusal(const FrameHeaderBytes& bytes) {
  FrameHeader header;
  std::string reason;
  EXPECT_FALSE(decodeFrameHeader(bytes, header, reason));
  return reason;
}

TEST(FrameCodecTest, EncodesTheDocumentedLayout) {
  FrameHeaderBytes bytes = encodeFrameHeader(FrameType::Ping, 0x0102030405ull);
  FrameHeaderBytes expected = {'S', 'Y', 'N', '1', 3, 0, 0, 0, 5, 4, 3, 2, 1, 0, 0, 0};
  EXPECT_EQ(bytes, expected);
}

TEST(FrameCodecTest, RoundTripsEveryTypeAtItsMaximum) {
  for (uint16_t raw = 1; raw <= 51; ++raw) {
    // 7 was the single-frame ModuleData, which ModuleHead and ModuleChunk
    // replace.
    if (raw == 7) continue;
    FrameType type = static_cast<FrameType>(raw);
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << frameTypeName(type) << ": " << reason;
    EXPECT_EQ(header.type, type);
    EXPECT_EQ(header.payloadBytes, maxPayloadBytes(type));
  }
}

TEST(FrameCodecTest, RefusesALengthOneOverTheTypesMaximum) {
  EXPECT_EQ(refusal(rawHeader(3, 0, kMaxFramePayloadBytes + 1)),
            "frame length 67108865 exceeds the maximum 67108864 for Ping");
  EXPECT_EQ(refusal(rawHeader(1, 0, kMaxTokenBytes + 1)),
            "frame length 257 exceeds the maximum 256 for Hello");
  EXPECT_EQ(refusal(rawHeader(2, 0, 1)), "frame length 1 exceeds the maximum 0 for HelloAck");
  EXPECT_EQ(refusal(rawHeader(5, 0, (1 << 20) + 1)),
            "frame length 1048577 exceeds the maximum 1048576 for RunJob");
  EXPECT_EQ(refusal(rawHeader(8, 0, 65538)),
            "frame length 65538 exceeds the maximum 65537 for JobOutput");
  EXPECT_EQ(refusal(rawHeader(9, 0, 5)), "frame length 5 exceeds the maximum 4 for JobExit");
  EXPECT_EQ(refusal(rawHeader(14, 0, 5)), "frame length 5 exceeds the maximum 4 for MpiAbort");
  // A message over one frame is split: its head is fixed, each part one
  // frame at most.
  EXPECT_EQ(refusal(rawHeader(17, 0, 37)),
            "frame length 37 exceeds the maximum 36 for MpiMessageHead");
  EXPECT_EQ(refusal(rawHeader(18, 0, kMaxFramePayloadBytes + 1)),
            "frame length 67108865 exceeds the maximum 67108864 for MpiMessagePart");
  // A part's state: its header and 4096 lines of at most 512 bytes.
  EXPECT_EQ(refusal(rawHeader(19, 0, 36 + 4096 * (8 + 512) + 1)),
            "frame length 2129957 exceeds the maximum 2129956 for MpiHostState");
  // The deadlock check's confirming round: a round, and a round, a version
  // and a flag.
  EXPECT_EQ(refusal(rawHeader(45, 0, 9)), "frame length 9 exceeds the maximum 8 for MpiStateCheck");
  EXPECT_EQ(refusal(rawHeader(46, 0, 25)),
            "frame length 25 exceeds the maximum 24 for MpiStateConfirm");
  // A module: its length, then chunks of an offset and at most a frame's
  // worth of bytes.
  EXPECT_EQ(refusal(rawHeader(47, 0, 9)), "frame length 9 exceeds the maximum 8 for ModuleHead");
  EXPECT_EQ(refusal(rawHeader(48, 0, kMaxFramePayloadBytes + 1)),
            "frame length 67108865 exceeds the maximum 67108864 for ModuleChunk");
  // Rendezvous: an envelope with a length, the clear-to-send's two ids,
  // and the data's head; the data itself comes in MpiMessagePart frames.
  EXPECT_EQ(refusal(rawHeader(49, 0, 37)),
            "frame length 37 exceeds the maximum 36 for MpiRequestToSend");
  EXPECT_EQ(refusal(rawHeader(50, 0, 25)),
            "frame length 25 exceeds the maximum 24 for MpiClearToSend");
  EXPECT_EQ(refusal(rawHeader(51, 0, 25)),
            "frame length 25 exceeds the maximum 24 for MpiRendezvousData");
}

TEST(FrameCodecTest, RefusesAbsurdLengths) {
  EXPECT_EQ(refusal(rawHeader(4, 0, 4ull << 30)),
            "frame length 4294967296 exceeds the maximum 67108864 for Pong");
  EXPECT_EQ(refusal(rawHeader(4, 0, UINT64_MAX)),
            "frame length 18446744073709551615 exceeds the maximum 67108864 for Pong");
}

TEST(FrameCodecTest, RefusesBadMagicUnknownTypesAndReservedBits) {
  FrameHeaderBytes garbage = rawHeader(3, 0, 8);
  garbage[3] = '2';
  EXPECT_EQ(refusal(garbage), "bad frame magic (not a Synergy peer)");
  EXPECT_EQ(refusal(rawHeader(0, 0, 0)), "unknown frame type 0");
  EXPECT_EQ(refusal(rawHeader(7, 0, 0)), "unknown frame type 7");
  EXPECT_EQ(refusal(rawHeader(61, 0, 0)), "unknown frame type 61");
  EXPECT_EQ(refusal(rawHeader(71, 0, 0)), "unknown frame type 71");
  EXPECT_EQ(refusal(rawHeader(1000, 0, 0)), "unknown frame type 1000");
  EXPECT_EQ(refusal(rawHeader(0xffff, 0, 0)), "unknown frame type 65535");
  EXPECT_EQ(refusal(rawHeader(3, 1, 0)), "nonzero reserved field in frame header");
}

}  // namespace

// The refusal of a handshake carries a reason of at most kMaxRefusalBytes.
TEST(FrameCodecTest, HelloRefusedAndItsLimit) {
  FrameHeader header;
  std::string reason;
  ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(FrameType::HelloRefused, kMaxRefusalBytes),
                                header, reason))
      << reason;
  EXPECT_EQ(header.type, FrameType::HelloRefused);
  EXPECT_STREQ(frameTypeName(FrameType::HelloRefused), "HelloRefused");
  EXPECT_EQ(refusal(rawHeader(78, 0, kMaxRefusalBytes + 1)),
            "frame length 1025 exceeds the maximum 1024 for HelloRefused");
}

// OpenMP threads on other hosts: memory updates of up to one frame each (a
// larger update is chunked by its sender), and a region share of at most
// one host's slots of threads and 998 arguments; a pthread start of 32 bytes.
TEST(FrameCodecTest, OpenMpThreadFramesAndTheirLimits) {
  for (FrameType type : {FrameType::OmpCopyUpdate, FrameType::OmpJoinUpdate,
                         FrameType::OmpRegionShare, FrameType::OmpThreadHello,
                         FrameType::OmpReductionList, FrameType::OmpSyncRequest,
                         FrameType::OmpSyncReply, FrameType::OmpPthreadStart}) {
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << frameTypeName(type) << ": " << reason;
    EXPECT_EQ(header.type, type);
  }
  EXPECT_EQ(refusal(rawHeader(56, 0, kMaxFramePayloadBytes + 1)),
            "frame length 67108865 exceeds the maximum 67108864 for OmpCopyUpdate");
  EXPECT_EQ(refusal(rawHeader(57, 0, kMaxFramePayloadBytes + 1)),
            "frame length 67108865 exceeds the maximum 67108864 for OmpJoinUpdate");
  EXPECT_EQ(refusal(rawHeader(58, 0, 69585)),
            "frame length 69585 exceeds the maximum 69584 for OmpRegionShare");
  EXPECT_EQ(refusal(rawHeader(59, 0, 13)),
            "frame length 13 exceeds the maximum 12 for OmpThreadHello");
  EXPECT_EQ(refusal(rawHeader(60, 0, 5)),
            "frame length 5 exceeds the maximum 4 for OmpReductionList");
  EXPECT_EQ(refusal(rawHeader(67, 0, 53)),
            "frame length 53 exceeds the maximum 52 for OmpSyncRequest");
  EXPECT_EQ(refusal(rawHeader(68, 0, 29)),
            "frame length 29 exceeds the maximum 28 for OmpSyncReply");
  EXPECT_EQ(refusal(rawHeader(87, 0, 33)),
            "frame length 33 exceeds the maximum 32 for OmpPthreadStart");
}

// Migration at a barrier control point (cluster/Migration.h): two fixed-size
// frames between the parts of a job, 64 and 65; 66 stays unknown.
TEST(FrameCodecTest, MigrationFramesAndTheirLimits) {
  EXPECT_EQ(uint16_t(FrameType::MigrationStop), 64);
  EXPECT_EQ(uint16_t(FrameType::MigrationOutcome), 65);
  for (FrameType type : {FrameType::MigrationStop, FrameType::MigrationOutcome}) {
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << frameTypeName(type) << ": " << reason;
    EXPECT_EQ(header.type, type);
  }
  EXPECT_EQ(refusal(rawHeader(64, 0, 9)), "frame length 9 exceeds the maximum 8 for MigrationStop");
  EXPECT_EQ(refusal(rawHeader(65, 0, 10)),
            "frame length 10 exceeds the maximum 9 for MigrationOutcome");
}

// A live move's section (cluster/RankSectionTransfer.h): 90 to 95, each
// with its fixed size or bound; 96 and 99 stay unknown.
TEST(FrameCodecTest, RankSectionFramesAndTheirLimits) {
  EXPECT_EQ(uint16_t(FrameType::RankMoveAnnounce), 90);
  EXPECT_EQ(uint16_t(FrameType::RankMoveAbort), 94);
  for (uint16_t raw = 90; raw <= 95; ++raw) {
    FrameType type = static_cast<FrameType>(raw);
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << raw << ": " << reason;
    EXPECT_EQ(header.type, type);
  }
  EXPECT_EQ(refusal(rawHeader(90, 0, 33)),
            "frame length 33 exceeds the maximum 32 for RankMoveAnnounce");
  EXPECT_EQ(refusal(rawHeader(91, 0, 25)),
            "frame length 25 exceeds the maximum 24 for RankSectionHead");
  EXPECT_EQ(refusal(rawHeader(92, 0, (16 << 20) + 1)),
            "frame length 16777217 exceeds the maximum 16777216 for RankSectionData");
  EXPECT_EQ(refusal(rawHeader(93, 0, 13)),
            "frame length 13 exceeds the maximum 12 for RankSectionLanded");
  EXPECT_EQ(refusal(rawHeader(94, 0, 12 + 1025)),
            "frame length 1037 exceeds the maximum 1036 for RankMoveAbort");
  EXPECT_EQ(refusal(rawHeader(99, 0, 0)), "unknown frame type 99");
  EXPECT_EQ(refusal(rawHeader(95, 0, 9)),
            "frame length 9 exceeds the maximum 8 for RankSectionAccept");
  EXPECT_EQ(refusal(rawHeader(96, 0, 0)), "unknown frame type 96");
}

// A live move's output order (cluster/OutputNotes.h): fixed sizes.
TEST(FrameCodecTest, OutputMarkAndHoldAndTheirLimits) {
  EXPECT_EQ(uint16_t(FrameType::OutputMark), 76);
  EXPECT_EQ(uint16_t(FrameType::OutputHold), 77);
  for (FrameType type : {FrameType::OutputMark, FrameType::OutputHold}) {
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << frameTypeName(type) << ": " << reason;
    EXPECT_EQ(header.type, type);
  }
  EXPECT_EQ(refusal(rawHeader(76, 0, 13)), "frame length 13 exceeds the maximum 12 for OutputMark");
  EXPECT_EQ(refusal(rawHeader(77, 0, 17)), "frame length 17 exceeds the maximum 16 for OutputHold");
  EXPECT_EQ(refusal(rawHeader(77, 1, 16)), "nonzero reserved field in frame header");
  EXPECT_EQ(refusal(rawHeader(75, 0, 0)), "unknown frame type 75");
}

// A checkpoint's part files and its second copy when the hosts share no
// checkpoint directory: a chunk's head and at most 1 MiB of the file.
TEST(FrameCodecTest, CheckpointCopyFramesAndTheirLimits) {
  EXPECT_EQ(uint16_t(FrameType::CheckpointCopy), 66);
  EXPECT_EQ(uint16_t(FrameType::CheckpointPartData), 69);
  for (FrameType type : {FrameType::CheckpointCopy, FrameType::CheckpointPartData}) {
    EXPECT_EQ(maxPayloadBytes(type), 24u + (1u << 20)) << frameTypeName(type);
    FrameHeader header;
    std::string reason;
    ASSERT_TRUE(decodeFrameHeader(encodeFrameHeader(type, maxPayloadBytes(type)), header, reason))
        << frameTypeName(type) << ": " << reason;
    EXPECT_EQ(header.type, type);
  }
  EXPECT_EQ(refusal(rawHeader(66, 0, 24 + (1 << 20) + 1)),
            "frame length 1048601 exceeds the maximum 1048600 for CheckpointCopy");
  EXPECT_EQ(refusal(rawHeader(69, 0, 24 + (1 << 20) + 1)),
            "frame length 1048601 exceeds the maximum 1048600 for CheckpointPartData");
}
