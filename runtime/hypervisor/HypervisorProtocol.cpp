//===- HypervisorProtocol.cpp - Payloads of the hypervisor's frames --------===//
//
// This file implements the little-endian records of HypervisorProtocol.h,
// written and read through PayloadWriter and PayloadReader so that neither
// side depends on the host's endianness or alignment.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/HypervisorProtocol.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "transport/FrameCodec.h"
#include "transport/FrameTypes.h"

namespace synergy::hypervisor {

using transport::FrameType;

PayloadWriter& PayloadWriter::raw(const std::vector<uint8_t>& bytes) {
  room(bytes.size());
  std::copy(bytes.begin(), bytes.end(), bytes_.begin() + ptrdiff_t(used_));
  used_ += bytes.size();
  return *this;
}

std::vector<uint8_t> PayloadReader::raw(size_t count) {
  assert(offset_ + count <= bytes_.size() && "payload length not checked");
  std::vector<uint8_t> bytes(bytes_.begin() + ptrdiff_t(offset_), bytes_.begin() + ptrdiff_t(offset_ + count));
  offset_ += count;
  return bytes;
}

std::optional<size_t> fixedPayloadBytes(uint16_t frameType) {
  switch (static_cast<FrameType>(frameType)) {
    case FrameType::HvSubmitEngine:
    case FrameType::HvRefused:
    case FrameType::HvStatusReport:
    case FrameType::HvMigrate:
    case FrameType::HvMoveTo:
      return std::nullopt;
    case FrameType::HvHello:
    case FrameType::HvWelcome:
    case FrameType::HvEngineReady:
    case FrameType::HvGetState:
    case FrameType::HvStateWord:
    case FrameType::HvSetState:
    case FrameType::HvEvaluate:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvFlag:
    case FrameType::HvFinalize:
    case FrameType::HvDone:
    case FrameType::HvStatus:
    case FrameType::HvRunProgress:
      // Each fixed record fills its frame type's maximum exactly.
      return transport::maxPayloadBytes(static_cast<FrameType>(frameType));
    default:
      return std::nullopt;
  }
}

void writeStateWords(PayloadWriter& payload, const std::vector<StateWordRecord>& words) {
  payload.u32(uint32_t(words.size()));
  for (const StateWordRecord& record : words)
    payload.u32(record.id).u32(record.element).u32(record.word).u64(record.data);
}

std::optional<std::vector<StateWordRecord>> readStateWords(const std::vector<uint8_t>& payload, size_t offset,
                                                           uint64_t maxCount) {
  if (payload.size() < offset + 4)
    return std::nullopt;
  PayloadReader reader(payload, offset);
  uint64_t count = reader.u32();
  if (count > maxCount || payload.size() - offset - 4 != count * transport::kHvStateWordRecordBytes)
    return std::nullopt;
  std::vector<StateWordRecord> words(count);
  for (StateWordRecord& record : words) {
    record.id = reader.u32();
    record.element = reader.u32();
    record.word = reader.u32();
    record.data = reader.u64();
  }
  return words;
}

std::vector<uint8_t> encodeOpenLoopReply(const OpenLoopReply& reply) {
  PayloadWriter payload;
  payload.reserve(8 + reply.traps.size() * transport::kHvTrapHeadBytes +
                  reply.words.size() * transport::kHvStateWordRecordBytes + 4 +
                  reply.advances.size() * transport::kHvAdvanceBytes);
  payload.u32(reply.ticksRun).u32(uint32_t(reply.traps.size()));
  size_t next = 0;
  for (const TrapRecord& trap : reply.traps) {
    payload.u32(trap.task).u32(trap.ticksStarted).u32(trap.wordCount);
    assert(next + trap.wordCount <= reply.words.size() &&
           "the traps claim more words than the reply holds");
    for (size_t k = next; k < next + trap.wordCount; ++k) {
      const StateWordRecord& record = reply.words[k];
      payload.u32(record.id).u32(record.element).u32(record.word).u64(record.data);
    }
    next += trap.wordCount;
  }
  assert(next == reply.words.size() && "the reply holds words no trap claims");
  payload.u32(uint32_t(reply.advances.size()));
  for (const ReadAheadAdvance& advance : reply.advances)
    payload.u32(advance.descriptor).u32(advance.consumed).u32(advance.hitEof ? 1 : 0).u32(advance.tasks);
  return payload.take();
}

std::optional<OpenLoopReply> decodeOpenLoopReply(const std::vector<uint8_t>& payload, std::string& reason) {
  auto refuse = [&](const std::string& why) -> std::optional<OpenLoopReply> {
    reason = "HvOpenLooped " + why;
    return std::nullopt;
  };
  if (payload.size() < 8)
    return refuse("payload of " + std::to_string(payload.size()) + " bytes, expected at least 8");
  PayloadReader reader(payload);
  OpenLoopReply reply;
  reply.ticksRun = reader.u32();
  uint64_t count = reader.u32();
  if (count == 0 || count > transport::kMaxHvRunTraps)
    return refuse("with " + std::to_string(count) + " traps, expected 1 to " +
                  std::to_string(transport::kMaxHvRunTraps));
  uint64_t totalWords = 0;
  reply.traps.resize(count);
  reply.words.reserve(std::min<uint64_t>(payload.size() / transport::kHvStateWordRecordBytes,
                                         transport::kMaxHvRunWords));
  for (uint64_t k = 0; k < count; ++k) {
    if (payload.size() - reader.offset() < transport::kHvTrapHeadBytes)
      return refuse("is too short for trap " + std::to_string(k + 1) + " of " + std::to_string(count));
    TrapRecord& trap = reply.traps[k];
    trap.task = reader.u32();
    trap.ticksStarted = reader.u32();
    uint64_t words = reader.u32();
    totalWords += words;
    if (words > transport::kMaxHvReplyStateWords || totalWords > transport::kMaxHvRunWords)
      return refuse("trap " + std::to_string(k + 1) + " carries " + std::to_string(words) + " words (at most " +
                    std::to_string(transport::kMaxHvReplyStateWords) + ", and " +
                    std::to_string(transport::kMaxHvRunWords) + " in all)");
    if (payload.size() - reader.offset() < words * transport::kHvStateWordRecordBytes)
      return refuse("is too short for the " + std::to_string(words) + " words of trap " + std::to_string(k + 1));
    trap.wordCount = uint32_t(words);
    for (uint64_t w = 0; w < words; ++w) {
      StateWordRecord& record = reply.words.emplace_back();
      record.id = reader.u32();
      record.element = reader.u32();
      record.word = reader.u32();
      record.data = reader.u64();
    }
    uint32_t earlier = k == 0 ? 0 : reply.traps[k - 1].ticksStarted;
    if (trap.ticksStarted < earlier || trap.ticksStarted > reply.ticksRun)
      return refuse("trap " + std::to_string(k + 1) + " after " + std::to_string(trap.ticksStarted) +
                    " ticks is out of order (" + std::to_string(reply.ticksRun) + " ticks run)");
    bool last = k + 1 == count;
    if (trap.task == 0 && (!last || trap.ticksStarted != reply.ticksRun || words != 0))
      return refuse("has a trap of task 0 that does not end the run");
  }
  if (payload.size() - reader.offset() < 4)
    return refuse("is too short for its read-ahead advances");
  uint64_t advances = reader.u32();
  if (advances > transport::kMaxHvReadAheadFiles ||
      payload.size() - reader.offset() != advances * transport::kHvAdvanceBytes)
    return refuse("has " + std::to_string(advances) + " read-ahead advances in " +
                  std::to_string(payload.size() - reader.offset()) + " bytes (at most " +
                  std::to_string(transport::kMaxHvReadAheadFiles) + ", " +
                  std::to_string(transport::kHvAdvanceBytes) + " bytes each)");
  reply.advances.resize(advances);
  for (uint64_t k = 0; k < advances; ++k) {
    ReadAheadAdvance& advance = reply.advances[k];
    advance.descriptor = reader.u32();
    advance.consumed = reader.u32();
    uint32_t hitEof = reader.u32();
    if (hitEof > 1)
      return refuse("advance " + std::to_string(k + 1) + " has an end-of-file flag of " + std::to_string(hitEof));
    advance.hitEof = hitEof == 1;
    advance.tasks = reader.u32();
    for (uint64_t earlier = 0; earlier < k; ++earlier)
      if (reply.advances[earlier].descriptor == advance.descriptor)
        return refuse("advances descriptor " + std::to_string(advance.descriptor) + " twice");
  }
  if (reader.offset() != payload.size())
    return refuse("has " + std::to_string(payload.size() - reader.offset()) + " trailing bytes");
  return reply;
}

std::vector<uint8_t> encodeOpenLoopRequest(const OpenLoopRequest& request) {
  PayloadWriter payload;
  payload.u32(request.engine).u32(request.ticks).u64(request.edgesPerTick).u32(uint32_t(request.windows.size()));
  for (const ReadAheadWindow& window : request.windows)
    payload.u32(window.descriptor).u32(window.endsAtEof ? 1 : 0).u32(uint32_t(window.bytes.size())).raw(window.bytes);
  return payload.take();
}

std::optional<OpenLoopRequest> decodeOpenLoopRequest(const std::vector<uint8_t>& payload, std::string& reason) {
  auto refuse = [&](const std::string& why) -> std::optional<OpenLoopRequest> {
    reason = "HvOpenLoop " + why;
    return std::nullopt;
  };
  if (payload.size() < transport::kHvOpenLoopHeadBytes)
    return refuse("payload of " + std::to_string(payload.size()) + " bytes, expected at least " +
                  std::to_string(transport::kHvOpenLoopHeadBytes));
  PayloadReader reader(payload);
  OpenLoopRequest request;
  request.engine = reader.u32();
  request.ticks = reader.u32();
  request.edgesPerTick = reader.u64();
  uint64_t count = reader.u32();
  if (count > transport::kMaxHvReadAheadFiles)
    return refuse("with " + std::to_string(count) + " read-ahead windows, at most " +
                  std::to_string(transport::kMaxHvReadAheadFiles));
  request.windows.resize(count);
  for (uint64_t k = 0; k < count; ++k) {
    if (payload.size() - reader.offset() < transport::kHvWindowHeadBytes)
      return refuse("is too short for window " + std::to_string(k + 1) + " of " + std::to_string(count));
    ReadAheadWindow& window = request.windows[k];
    window.descriptor = reader.u32();
    uint32_t flags = reader.u32();
    uint64_t length = reader.u32();
    if (flags > 1)
      return refuse("window " + std::to_string(k + 1) + " has unknown flags " + std::to_string(flags));
    window.endsAtEof = flags == 1;
    if (length > transport::kMaxHvReadAheadBytes)
      return refuse("window " + std::to_string(k + 1) + " of " + std::to_string(length) + " bytes, at most " +
                    std::to_string(transport::kMaxHvReadAheadBytes));
    if (payload.size() - reader.offset() < length)
      return refuse("is too short for the " + std::to_string(length) + " bytes of window " + std::to_string(k + 1));
    window.bytes = reader.raw(size_t(length));
    for (uint64_t earlier = 0; earlier < k; ++earlier)
      if (request.windows[earlier].descriptor == window.descriptor)
        return refuse("has two windows of descriptor " + std::to_string(window.descriptor));
  }
  if (reader.offset() != payload.size())
    return refuse("has " + std::to_string(payload.size() - reader.offset()) + " trailing bytes");
  return request;
}

std::vector<uint8_t> encodeStateRead(const StateRead& read) {
  PayloadWriter payload;
  payload.u32(read.engine).u32(uint32_t(read.addresses.size()));
  for (const StateWordRecord& address : read.addresses)
    payload.u32(address.id).u32(address.element).u32(address.word);
  return payload.take();
}

std::optional<StateRead> decodeStateRead(const std::vector<uint8_t>& payload, std::string& reason) {
  if (payload.size() < 8) {
    reason = "HvReadState payload of " + std::to_string(payload.size()) + " bytes, expected at least 8";
    return std::nullopt;
  }
  PayloadReader reader(payload);
  StateRead read;
  read.engine = reader.u32();
  uint64_t count = reader.u32();
  if (count == 0 || count > transport::kMaxHvReadWords) {
    reason = "HvReadState of " + std::to_string(count) + " words, expected 1 to " +
             std::to_string(transport::kMaxHvReadWords);
    return std::nullopt;
  }
  if (payload.size() != 8 + count * transport::kHvStateAddressBytes) {
    reason = "HvReadState payload of " + std::to_string(payload.size()) + " bytes, expected " +
             std::to_string(8 + count * transport::kHvStateAddressBytes) + " for " + std::to_string(count) + " words";
    return std::nullopt;
  }
  read.addresses.resize(count);
  for (StateWordRecord& address : read.addresses) {
    address.id = reader.u32();
    address.element = reader.u32();
    address.word = reader.u32();
  }
  return read;
}

namespace {

// The requests a batch may end with: every engine request but a write.
bool batchable(uint16_t type) {
  switch (static_cast<FrameType>(type)) {
    case FrameType::HvGetState:
    case FrameType::HvEvaluate:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvOpenLoop:
    case FrameType::HvFinalize:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<uint8_t> encodeBatch(const Batch& batch) {
  PayloadWriter payload;
  payload.u32(batch.engine);
  writeStateWords(payload, batch.writes);
  payload.u32(batch.request);
  std::vector<uint8_t> bytes = payload.take();
  bytes.insert(bytes.end(), batch.record.begin(), batch.record.end());
  return bytes;
}

std::optional<Batch> decodeBatch(const std::vector<uint8_t>& payload, std::string& reason) {
  if (payload.size() < 12) {
    reason = "HvBatch payload of " + std::to_string(payload.size()) + " bytes, expected at least 12";
    return std::nullopt;
  }
  PayloadReader reader(payload);
  Batch batch;
  batch.engine = reader.u32();
  uint64_t count = reader.u32();
  if (count > transport::kMaxHvBatchWrites) {
    reason = "HvBatch of " + std::to_string(count) + " writes, at most " +
             std::to_string(transport::kMaxHvBatchWrites) + " allowed";
    return std::nullopt;
  }
  uint64_t head = 8 + count * transport::kHvStateWordRecordBytes;
  if (payload.size() < head + 4) {
    reason = "HvBatch payload of " + std::to_string(payload.size()) + " bytes is too short for " +
             std::to_string(count) + " writes";
    return std::nullopt;
  }
  batch.writes.resize(count);
  for (StateWordRecord& record : batch.writes) {
    record.id = reader.u32();
    record.element = reader.u32();
    record.word = reader.u32();
    record.data = reader.u64();
  }
  uint32_t request = reader.u32();
  size_t recordBytes = payload.size() - reader.offset();
  if (request == uint32_t(FrameType::HvOpenLoop)) {
    std::vector<uint8_t> record(payload.begin() + ptrdiff_t(reader.offset()), payload.end());
    std::string why;
    if (!decodeOpenLoopRequest(record, why)) {
      reason = "HvBatch's " + why;
      return std::nullopt;
    }
  } else if (request != 0) {
    std::optional<size_t> expected = request <= 0xffff && batchable(uint16_t(request))
                                         ? fixedPayloadBytes(uint16_t(request))
                                         : std::nullopt;
    if (!expected) {
      reason = "HvBatch ends with frame type " + std::to_string(request) + ", which a batch may not carry";
      return std::nullopt;
    }
    if (recordBytes != *expected) {
      reason = "HvBatch's " + std::string(transport::frameTypeName(static_cast<FrameType>(request))) + " record of " +
               std::to_string(recordBytes) + " bytes, expected " + std::to_string(*expected);
      return std::nullopt;
    }
  } else if (recordBytes != 0) {
    reason = "HvBatch without a request has " + std::to_string(recordBytes) + " trailing bytes";
    return std::nullopt;
  }
  batch.request = uint16_t(request);
  batch.record.assign(payload.begin() + reader.offset(), payload.end());
  return batch;
}

std::vector<uint8_t> encodeRunProgress(const RunProgress& progress) {
  return PayloadWriter().u32(progress.engine).u32(progress.ticks).u32(progress.tasks).take();
}

RunProgress decodeRunProgress(const std::vector<uint8_t>& payload) {
  PayloadReader reader(payload);
  RunProgress progress;
  progress.engine = reader.u32();
  progress.ticks = reader.u32();
  progress.tasks = reader.u32();
  return progress;
}

bool payloadLengthIsValid(uint16_t frameType, size_t size) {
  auto stateWordsFit = [&](size_t head) {
    if (size < head + 4)
      return false;
    size_t records = size - head - 4;
    return records % transport::kHvStateWordRecordBytes == 0 &&
           records / transport::kHvStateWordRecordBytes <= transport::kMaxHvReplyStateWords;
  };
  switch (static_cast<FrameType>(frameType)) {
    case FrameType::HvEvaluated:
      return stateWordsFit(kEvaluatedHeadBytes);
    case FrameType::HvOpenLooped:
      return size >= 8;  // decodeOpenLoopReply checks the rest
    case FrameType::HvBatch:
      return size >= 12;  // decodeBatch checks the rest
    case FrameType::HvOpenLoop:
      return size >= transport::kHvOpenLoopHeadBytes;  // decodeOpenLoopRequest checks the rest
    case FrameType::HvReadState:
      return size >= 8;  // decodeStateRead checks the rest
    case FrameType::HvStateWords: {
      if (size < 4)
        return false;
      size_t records = size - 4;
      return records % transport::kHvStateWordRecordBytes == 0 &&
             records / transport::kHvStateWordRecordBytes <= transport::kMaxHvReadWords;
    }
    default:
      break;
  }
  std::optional<size_t> fixed = fixedPayloadBytes(frameType);
  return !fixed || *fixed == size;
}

std::vector<uint8_t> textPayload(const std::string& text) { return {text.begin(), text.end()}; }

std::string payloadText(const std::vector<uint8_t>& payload) {
  std::string text;
  text.reserve(payload.size());
  for (uint8_t byte : payload)
    text.push_back((byte >= 0x20 && byte < 0x7f) || byte == '\n' ? char(byte) : '?');
  return text;
}

}  // namespace synergy::hypervisor
