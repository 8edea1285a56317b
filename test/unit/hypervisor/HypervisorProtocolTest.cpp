//===- HypervisorProtocolTest.cpp - records of the hypervisor's frames -----===//
//
// The hypervisor decodes a request only when its payload has exactly the
// record's length, and the transport refuses a header over the type's
// maximum before reading the payload. These tests tie the two together: the
// records the proxy engine writes have the lengths the hypervisor demands,
// every Hv frame type is one the codec accepts, and one byte more is refused.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "hypervisor/HypervisorProtocol.h"
#include "transport/FrameCodec.h"

using namespace synergy;
using namespace synergy::hypervisor;
using transport::FrameType;

namespace {

TEST(HypervisorProtocolTest, WritesLittleEndianAndReadsItBack) {
  std::vector<uint8_t> bytes = PayloadWriter().u32(0x01020304).u64(0x1122334455667788ull).take();
  std::vector<uint8_t> expected = {4, 3, 2, 1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  EXPECT_EQ(bytes, expected);
  PayloadReader reader(bytes);
  EXPECT_EQ(reader.u32(), 0x01020304u);
  EXPECT_EQ(reader.u64(), 0x1122334455667788ull);
}

// The records as the proxy engine (RemoteEngine.cpp) and the hypervisor
// write them, field by field.
TEST(HypervisorProtocolTest, RecordsHaveTheLengthsTheHypervisorDemands) {
  struct Record {
    FrameType type;
    std::vector<uint8_t> payload;
  };
  const Record records[] = {
      {FrameType::HvHello, PayloadWriter().u32(kHypervisorProtocolVersion).take()},
      {FrameType::HvWelcome, PayloadWriter().u32(kHypervisorProtocolVersion).take()},
      {FrameType::HvEngineReady, PayloadWriter().u32(7).take()},
      {FrameType::HvGetState, PayloadWriter().u32(7).u32(1).u32(2).u32(3).take()},
      {FrameType::HvStateWord, PayloadWriter().u64(9).take()},
      {FrameType::HvSetState, PayloadWriter().u32(7).u32(1).u32(2).u32(3).u64(9).take()},
      {FrameType::HvEvaluate, PayloadWriter().u32(7).u64(100).take()},
      {FrameType::HvEvaluated, PayloadWriter().u32(0).u64(99).take()},
      {FrameType::HvResume, PayloadWriter().u32(7).take()},
      {FrameType::HvUpdate, PayloadWriter().u32(7).take()},
      {FrameType::HvThereAreUpdates, PayloadWriter().u32(7).take()},
      {FrameType::HvFlag, PayloadWriter().u32(1).take()},
      {FrameType::HvOpenLoop, PayloadWriter().u32(7).u32(4096).u64(1000).take()},
      {FrameType::HvOpenLooped, PayloadWriter().u32(0).u32(4096).take()},
      {FrameType::HvFinalize, PayloadWriter().u32(7).take()},
      {FrameType::HvDone, {}},
      {FrameType::HvStatus, {}},
  };
  for (const Record& record : records) {
    std::optional<size_t> size = fixedPayloadBytes(uint16_t(record.type));
    ASSERT_TRUE(size) << transport::frameTypeName(record.type);
    EXPECT_EQ(*size, record.payload.size()) << transport::frameTypeName(record.type);
  }
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::HvSubmitEngine)));
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::Ping)));
}

TEST(HypervisorProtocolTest, CodecKnowsEveryHypervisorFrameAndItsLimit) {
  for (uint16_t raw = uint16_t(FrameType::HvHello); raw <= uint16_t(FrameType::HvStatusReport); ++raw) {
    FrameType type = static_cast<FrameType>(raw);
    EXPECT_STRNE(transport::frameTypeName(type), "unknown") << raw;
    transport::FrameHeader header;
    std::string reason;
    EXPECT_TRUE(transport::decodeFrameHeader(transport::encodeFrameHeader(type, transport::maxPayloadBytes(type)),
                                             header, reason))
        << reason;
    transport::FrameHeaderBytes over = transport::encodeFrameHeader(type, 0);
    uint64_t tooLong = transport::maxPayloadBytes(type) + 1;
    for (int i = 0; i < 8; ++i) over[8 + i] = uint8_t(tooLong >> (8 * i));
    EXPECT_FALSE(transport::decodeFrameHeader(over, header, reason)) << transport::frameTypeName(type);
    EXPECT_NE(reason.find("exceeds the maximum"), std::string::npos) << reason;
  }
}

TEST(HypervisorProtocolTest, TextPayloadsShowNoControlBytes) {
  std::vector<uint8_t> payload = {'o', 'k', '\n', 0x1b, '[', '2', 'J', 0x00, 0xff};
  EXPECT_EQ(payloadText(payload), "ok\n?[2J??");
}

}  // namespace
