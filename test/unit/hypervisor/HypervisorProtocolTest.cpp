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
      {FrameType::HvResume, PayloadWriter().u32(7).take()},
      {FrameType::HvUpdate, PayloadWriter().u32(7).take()},
      {FrameType::HvThereAreUpdates, PayloadWriter().u32(7).take()},
      {FrameType::HvFlag, PayloadWriter().u32(1).take()},
      {FrameType::HvFinalize, PayloadWriter().u32(7).take()},
      {FrameType::HvDone, {}},
      {FrameType::HvStatus, {}},
      {FrameType::HvRunProgress, encodeRunProgress({7, 100, 3})},
  };
  for (const Record& record : records) {
    std::optional<size_t> size = fixedPayloadBytes(uint16_t(record.type));
    ASSERT_TRUE(size) << transport::frameTypeName(record.type);
    EXPECT_EQ(*size, record.payload.size()) << transport::frameTypeName(record.type);
  }
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::HvSubmitEngine)));
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::HvEvaluated)));
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::HvBatch)));
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::HvOpenLoop)));
  EXPECT_FALSE(fixedPayloadBytes(uint16_t(FrameType::Ping)));
}

TEST(HypervisorProtocolTest, CodecKnowsEveryHypervisorFrameAndItsLimit) {
  for (uint16_t raw = uint16_t(FrameType::HvHello); raw <= uint16_t(FrameType::HvStateWords); ++raw) {
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

// HvRunProgress (protocol 6), from the other end of the numbering: the
// codec knows it and its limit, and its record reads back field by field.
TEST(HypervisorProtocolTest, RunProgressReadsBack) {
  RunProgress progress{7, 0x01020304, 0xfffffffe};
  std::vector<uint8_t> payload = encodeRunProgress(progress);
  std::vector<uint8_t> expected = {7, 0, 0, 0, 4, 3, 2, 1, 0xfe, 0xff, 0xff, 0xff};
  EXPECT_EQ(payload, expected);
  EXPECT_EQ(decodeRunProgress(payload), progress);
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvRunProgress), payload.size()));
  EXPECT_FALSE(payloadLengthIsValid(uint16_t(FrameType::HvRunProgress), payload.size() - 1));
  EXPECT_STREQ(transport::frameTypeName(FrameType::HvRunProgress), "HvRunProgress");
  transport::FrameHeader header;
  std::string reason;
  EXPECT_TRUE(transport::decodeFrameHeader(transport::encodeFrameHeader(FrameType::HvRunProgress, payload.size()),
                                           header, reason))
      << reason;
  EXPECT_FALSE(
      transport::decodeFrameHeader(transport::encodeFrameHeader(FrameType::HvRunProgress, payload.size() + 1),
                                   header, reason));
}

// A trap reply: its head, then a count that must match its records exactly,
// and no more than the frame's maximum allows.
TEST(HypervisorProtocolTest, TrapRepliesCarryCountedStateWords) {
  std::vector<StateWordRecord> words = {{3, 0, 1, 0x1122334455667788ull}, {4, 9, 0, 5}};
  PayloadWriter writer;
  writer.u32(7).u64(99);
  writeStateWords(writer, words);
  std::vector<uint8_t> payload = writer.take();
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvEvaluated), payload.size()));
  EXPECT_LE(payload.size(), transport::maxPayloadBytes(FrameType::HvEvaluated));
  auto read = readStateWords(payload, kEvaluatedHeadBytes, transport::kMaxHvReplyStateWords);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, words);
  // One byte short, one over, a count that claims a record more.
  std::vector<uint8_t> shorter(payload.begin(), payload.end() - 1);
  EXPECT_FALSE(readStateWords(shorter, kEvaluatedHeadBytes, transport::kMaxHvReplyStateWords));
  EXPECT_FALSE(payloadLengthIsValid(uint16_t(FrameType::HvEvaluated), shorter.size()));
  std::vector<uint8_t> longer = payload;
  longer.push_back(0);
  EXPECT_FALSE(readStateWords(longer, kEvaluatedHeadBytes, transport::kMaxHvReplyStateWords));
  std::vector<uint8_t> overcounted = payload;
  overcounted[kEvaluatedHeadBytes] = 3;
  EXPECT_FALSE(readStateWords(overcounted, kEvaluatedHeadBytes, transport::kMaxHvReplyStateWords));
  EXPECT_FALSE(readStateWords(payload, kEvaluatedHeadBytes, 1)) << "more words than the maximum";
}

// A trap as a test writes it, with its own words.
struct TrapWithWords {
  uint32_t task;
  uint32_t ticksStarted;
  std::vector<StateWordRecord> words;
};

// The reply of `traps`, their words one after another as OpenLoopReply
// holds them.
OpenLoopReply replyOf(uint32_t ticksRun, const std::vector<TrapWithWords>& traps) {
  OpenLoopReply reply;
  reply.ticksRun = ticksRun;
  for (const TrapWithWords& trap : traps) {
    reply.traps.push_back(TrapRecord{trap.task, trap.ticksStarted, uint32_t(trap.words.size())});
    reply.words.insert(reply.words.end(), trap.words.begin(), trap.words.end());
  }
  return reply;
}

// Gives trap `index` `count` words (zeros past its own), leaving the other
// traps' words theirs.
void resizeTrapWords(OpenLoopReply& reply, size_t index, uint32_t count) {
  size_t first = 0;
  for (size_t k = 0; k < index; ++k)
    first += reply.traps[k].wordCount;
  TrapRecord& trap = reply.traps[index];
  auto end = reply.words.begin() + ptrdiff_t(first + trap.wordCount);
  if (count > trap.wordCount)
    reply.words.insert(end, count - trap.wordCount, StateWordRecord{});
  else
    reply.words.erase(reply.words.begin() + ptrdiff_t(first + count), end);
  trap.wordCount = count;
}

// An open-loop reply lists the output-only traps the run went past and the
// one it stopped at; every count, tick and length in it is checked.
TEST(HypervisorProtocolTest, OpenLoopReplyRoundTripsAndRefusesMalformedOnes) {
  OpenLoopReply run = replyOf(40, {{3, 0, {{1, 0, 0, 7}}},
                                   {3, 9, {{1, 0, 0, 8}, {2, 4, 1, 0x1122334455667788ull}}},
                                   {5, 40, {}}});
  std::vector<uint8_t> payload = encodeOpenLoopReply(run);
  EXPECT_EQ(payload.size(), 8 + 3 * transport::kHvTrapHeadBytes + 3 * transport::kHvStateWordRecordBytes + 4);
  std::string reason;
  auto decoded = decodeOpenLoopReply(payload, reason);
  ASSERT_TRUE(decoded) << reason;
  EXPECT_EQ(decoded->ticksRun, 40u);
  EXPECT_EQ(decoded->traps, run.traps);
  EXPECT_EQ(decoded->words, run.words);
  EXPECT_TRUE(decoded->advances.empty());
  OpenLoopReply reading = run;
  reading.advances = {{0x80000003u, 17, false, 9}, {0x80000004u, 5, true, 6}};
  decoded = decodeOpenLoopReply(encodeOpenLoopReply(reading), reason);
  ASSERT_TRUE(decoded) << reason;
  EXPECT_EQ(decoded->advances, reading.advances);
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvOpenLooped), payload.size()));

  // The largest reply the hypervisor may send fits its frame type's maximum.
  OpenLoopReply largest;
  largest.ticksRun = 1;
  largest.traps.resize(transport::kMaxHvRunTraps, TrapRecord{9, 1, 0});
  for (uint64_t k = 0; k < transport::kMaxHvRunWords / transport::kMaxHvReplyStateWords; ++k)
    resizeTrapWords(largest, k, transport::kMaxHvReplyStateWords);
  for (uint32_t k = 0; k < transport::kMaxHvReadAheadFiles; ++k)
    largest.advances.push_back(ReadAheadAdvance{k, k, false, k});
  EXPECT_EQ(encodeOpenLoopReply(largest).size(), transport::maxPayloadBytes(FrameType::HvOpenLooped));
  EXPECT_TRUE(decodeOpenLoopReply(encodeOpenLoopReply(largest), reason)) << reason;

  auto refused = [&](const std::vector<uint8_t>& bytes, const std::string& expected) {
    std::string why;
    EXPECT_FALSE(decodeOpenLoopReply(bytes, why));
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  refused(std::vector<uint8_t>(payload.begin(), payload.begin() + 7), "payload of 7 bytes, expected at least 8");
  refused(std::vector<uint8_t>(payload.begin(), payload.end() - 5), "too short for trap 3 of 3");
  refused(std::vector<uint8_t>(payload.begin(), payload.end() - 1), "too short for its read-ahead advances");
  std::vector<uint8_t> longer = payload;
  longer.push_back(0);
  refused(longer, "has 0 read-ahead advances in 1 bytes");
  OpenLoopReply manyFiles = run;
  manyFiles.advances.resize(transport::kMaxHvReadAheadFiles + 1);
  for (uint32_t k = 0; k < manyFiles.advances.size(); ++k)
    manyFiles.advances[k].descriptor = k;
  refused(encodeOpenLoopReply(manyFiles), "has 5 read-ahead advances in 80 bytes (at most 4");
  OpenLoopReply twice = reading;
  twice.advances[1].descriptor = twice.advances[0].descriptor;
  refused(encodeOpenLoopReply(twice), "advances descriptor 2147483651 twice");
  std::vector<uint8_t> oddFlag = encodeOpenLoopReply(reading);
  oddFlag[oddFlag.size() - 8] = 2;  // the second advance's end-of-file flag
  refused(oddFlag, "advance 2 has an end-of-file flag of 2");
  OpenLoopReply none = run;
  none.traps.clear();
  refused(encodeOpenLoopReply(none), "with 0 traps");
  OpenLoopReply tooMany = largest;
  tooMany.traps.push_back(TrapRecord{9, 1, 0});
  refused(encodeOpenLoopReply(tooMany), "with 4097 traps");
  OpenLoopReply wordy = run;
  resizeTrapWords(wordy, 0, transport::kMaxHvReplyStateWords + 1);
  refused(encodeOpenLoopReply(wordy), "trap 1 carries 65 words");
  OpenLoopReply tooManyWords = largest;
  resizeTrapWords(tooManyWords, transport::kMaxHvRunWords / transport::kMaxHvReplyStateWords, 1);
  refused(encodeOpenLoopReply(tooManyWords), "16384 in all");
  std::vector<uint8_t> claimsMore = payload;
  claimsMore[8 + 8] = 60;  // the first trap's word count
  refused(claimsMore, "too short for the 60 words of trap 1");
  OpenLoopReply backwards = run;
  backwards.traps[1].ticksStarted = 50;
  refused(encodeOpenLoopReply(backwards), "trap 2 after 50 ticks is out of order (40 ticks run)");
  backwards.traps[1].ticksStarted = 9;
  backwards.traps[2].ticksStarted = 5;
  refused(encodeOpenLoopReply(backwards), "trap 3 after 5 ticks is out of order");
  // Task 0 stands only for a run that stopped between ticks, at its end.
  OpenLoopReply early = run;
  early.traps[0].task = 0;
  refused(encodeOpenLoopReply(early), "a trap of task 0 that does not end the run");
  OpenLoopReply wordsAtRest = run;
  wordsAtRest.traps[2] = TrapRecord{0, 40, 0};
  resizeTrapWords(wordsAtRest, 2, 1);
  refused(encodeOpenLoopReply(wordsAtRest), "a trap of task 0 that does not end the run");
  OpenLoopReply atRest = run;
  atRest.traps[2] = TrapRecord{0, 40, 0};
  EXPECT_TRUE(decodeOpenLoopReply(encodeOpenLoopReply(atRest), reason)) << reason;
}

// A migration's read of many words: every address in order, a count that
// must match them exactly; the reply's words fit its frame.
TEST(HypervisorProtocolTest, StateReadRoundTripsAndRefusesMalformedOnes) {
  StateRead read;
  read.engine = 7;
  read.addresses = {{1, 0, 0, 0}, {4, 9, 1, 0}};
  std::vector<uint8_t> payload = encodeStateRead(read);
  EXPECT_EQ(payload.size(), 8 + 2 * transport::kHvStateAddressBytes);
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvReadState), payload.size()));
  std::string reason;
  auto decoded = decodeStateRead(payload, reason);
  ASSERT_TRUE(decoded) << reason;
  EXPECT_EQ(decoded->engine, 7u);
  EXPECT_EQ(decoded->addresses, read.addresses);

  StateRead largest;
  largest.addresses.resize(transport::kMaxHvReadWords);
  EXPECT_EQ(encodeStateRead(largest).size(), transport::maxPayloadBytes(FrameType::HvReadState));
  EXPECT_TRUE(decodeStateRead(encodeStateRead(largest), reason)) << reason;
  PayloadWriter words;
  writeStateWords(words, largest.addresses);
  size_t replyBytes = words.take().size();
  EXPECT_EQ(replyBytes, transport::maxPayloadBytes(FrameType::HvStateWords));
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvStateWords), replyBytes));
  EXPECT_FALSE(payloadLengthIsValid(uint16_t(FrameType::HvStateWords), replyBytes - 1));

  auto refused = [&](const std::vector<uint8_t>& bytes, const std::string& expected) {
    std::string why;
    EXPECT_FALSE(decodeStateRead(bytes, why));
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  refused(std::vector<uint8_t>(payload.begin(), payload.begin() + 7), "payload of 7 bytes, expected at least 8");
  refused(std::vector<uint8_t>(payload.begin(), payload.end() - 1), "payload of 31 bytes, expected 32 for 2 words");
  StateRead none = read;
  none.addresses.clear();
  refused(encodeStateRead(none), "of 0 words, expected 1 to 4096");
  StateRead tooMany = largest;
  tooMany.addresses.resize(transport::kMaxHvReadWords + 1);
  refused(encodeStateRead(tooMany), "of 4097 words");
}

TEST(HypervisorProtocolTest, BatchRoundTripsAndRefusesMalformedOnes) {
  Batch batch;
  batch.engine = 7;
  batch.writes = {{1, 0, 0, 42}, {2, 3, 1, 9}};
  batch.request = uint16_t(FrameType::HvResume);
  batch.record = PayloadWriter().u32(7).take();
  std::vector<uint8_t> payload = encodeBatch(batch);
  EXPECT_LE(payload.size(), transport::maxPayloadBytes(FrameType::HvBatch));
  std::string reason;
  auto decoded = decodeBatch(payload, reason);
  ASSERT_TRUE(decoded) << reason;
  EXPECT_EQ(decoded->engine, 7u);
  EXPECT_EQ(decoded->writes, batch.writes);
  EXPECT_EQ(decoded->request, uint16_t(FrameType::HvResume));
  EXPECT_EQ(decoded->record, batch.record);

  // The largest batch fits its frame type's maximum.
  Batch largest;
  largest.writes.resize(transport::kMaxHvBatchWrites);
  largest.request = uint16_t(FrameType::HvOpenLoop);
  OpenLoopRequest widest;
  for (uint32_t k = 0; k < transport::kMaxHvReadAheadFiles; ++k)
    widest.windows.push_back(ReadAheadWindow{k, false, std::vector<uint8_t>(transport::kMaxHvReadAheadBytes, 'x')});
  largest.record = encodeOpenLoopRequest(widest);
  EXPECT_EQ(encodeBatch(largest).size(), transport::maxPayloadBytes(FrameType::HvBatch));
  EXPECT_TRUE(decodeBatch(encodeBatch(largest), reason)) << reason;

  auto refused = [&](std::vector<uint8_t> bytes, const std::string& expected) {
    std::string why;
    EXPECT_FALSE(decodeBatch(bytes, why));
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  refused(std::vector<uint8_t>(payload.begin(), payload.end() - 1), "HvResume record of 3 bytes, expected 4");
  refused(std::vector<uint8_t>(payload.begin(), payload.begin() + 11), "expected at least 12");
  Batch tooMany = largest;
  tooMany.writes.resize(transport::kMaxHvBatchWrites + 1);
  refused(encodeBatch(tooMany), "at most 64 allowed");
  Batch claimsMore = batch;
  std::vector<uint8_t> overcounted = encodeBatch(claimsMore);
  overcounted[4] = 60;
  refused(overcounted, "too short for 60 writes");
  // No nesting, no write as the request, no session frames.
  for (FrameType type : {FrameType::HvBatch, FrameType::HvSetState, FrameType::HvHello, FrameType::HvSubmitEngine,
                         FrameType::HvStatus, FrameType::HvDone}) {
    Batch wrong = batch;
    wrong.request = uint16_t(type);
    refused(encodeBatch(wrong), "which a batch may not carry");
  }
  Batch none = batch;
  none.request = 0;
  none.record.clear();
  EXPECT_TRUE(decodeBatch(encodeBatch(none), reason)) << reason;
  none.record = {1};
  refused(encodeBatch(none), "without a request has 1 trailing bytes");
  // An open-loop request's record is checked as its own frame is.
  Batch badWindow = largest;
  badWindow.record.pop_back();
  refused(encodeBatch(badWindow), "HvBatch's HvOpenLoop is too short for the 65536 bytes of window 4");
}

// An open-loop request with read-ahead windows: each window's descriptor,
// flags and bytes round-trip; the count, each length, each flag and
// descriptor and the total length are checked before anything is served.
TEST(HypervisorProtocolTest, OpenLoopRequestRoundTripsAndRefusesMalformedOnes) {
  OpenLoopRequest asked;
  asked.engine = 7;
  asked.ticks = 4096;
  asked.edgesPerTick = 1000;
  asked.windows = {{0x80000003u, false, {'a', 'b', 'c'}}, {0x80000004u, true, {}}};
  std::vector<uint8_t> payload = encodeOpenLoopRequest(asked);
  EXPECT_EQ(payload.size(), transport::kHvOpenLoopHeadBytes + 2 * transport::kHvWindowHeadBytes + 3);
  EXPECT_TRUE(payloadLengthIsValid(uint16_t(FrameType::HvOpenLoop), payload.size()));
  EXPECT_FALSE(payloadLengthIsValid(uint16_t(FrameType::HvOpenLoop), transport::kHvOpenLoopHeadBytes - 1));
  std::string reason;
  auto decoded = decodeOpenLoopRequest(payload, reason);
  ASSERT_TRUE(decoded) << reason;
  EXPECT_EQ(decoded->engine, 7u);
  EXPECT_EQ(decoded->ticks, 4096u);
  EXPECT_EQ(decoded->edgesPerTick, 1000u);
  EXPECT_EQ(decoded->windows, asked.windows);

  // The widest request fits its frame type's maximum.
  OpenLoopRequest widest;
  for (uint32_t k = 0; k < transport::kMaxHvReadAheadFiles; ++k)
    widest.windows.push_back(ReadAheadWindow{k, true, std::vector<uint8_t>(transport::kMaxHvReadAheadBytes, 'x')});
  EXPECT_EQ(encodeOpenLoopRequest(widest).size(), transport::maxPayloadBytes(FrameType::HvOpenLoop));
  EXPECT_TRUE(decodeOpenLoopRequest(encodeOpenLoopRequest(widest), reason)) << reason;

  auto refused = [&](const std::vector<uint8_t>& bytes, const std::string& expected) {
    std::string why;
    EXPECT_FALSE(decodeOpenLoopRequest(bytes, why));
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  refused(std::vector<uint8_t>(payload.begin(), payload.begin() + 16), "payload of 16 bytes, expected at least 20");
  refused(std::vector<uint8_t>(payload.begin(), payload.end() - 1), "too short for window 2 of 2");
  refused(std::vector<uint8_t>(payload.begin(), payload.begin() + 20 + 12 + 2), "too short for the 3 bytes of window 1");
  std::vector<uint8_t> longer = payload;
  longer.push_back(0);
  refused(longer, "has 1 trailing bytes");
  OpenLoopRequest tooMany = widest;
  tooMany.windows.push_back(ReadAheadWindow{9, false, {}});
  refused(encodeOpenLoopRequest(tooMany), "with 5 read-ahead windows, at most 4");
  OpenLoopRequest tooWide = asked;
  tooWide.windows[0].bytes.resize(transport::kMaxHvReadAheadBytes + 1);
  refused(encodeOpenLoopRequest(tooWide), "window 1 of 65537 bytes, at most 65536");
  OpenLoopRequest twice = asked;
  twice.windows[1].descriptor = twice.windows[0].descriptor;
  refused(encodeOpenLoopRequest(twice), "has two windows of descriptor 2147483651");
  std::vector<uint8_t> oddFlags = payload;
  oddFlags[20 + 4] = 6;  // the first window's flags
  refused(oddFlags, "window 1 has unknown flags 6");
  std::vector<uint8_t> claimsMore = payload;
  claimsMore[20 + 8 + 2] = 1;  // the first window's length: 65539 bytes
  refused(claimsMore, "window 1 of 65539 bytes, at most 65536");
}

TEST(HypervisorProtocolTest, TextPayloadsShowNoControlBytes) {
  std::vector<uint8_t> payload = {'o', 'k', '\n', 0x1b, '[', '2', 'J', 0x00, 0xff};
  EXPECT_EQ(payloadText(payload), "ok\n?[2J??");
}

}  // namespace
