//===- HypervisorProtocol.cpp - Payloads of the hypervisor's frames --------===//
//
// This file implements the little-endian records of HypervisorProtocol.h,
// written and read byte by byte so that neither side depends on the host's
// endianness or alignment.
//
//===----------------------------------------------------------------------===//
#include "hypervisor/HypervisorProtocol.h"

#include <cassert>

#include "transport/FrameTypes.h"

namespace synergy::hypervisor {

using transport::FrameType;

PayloadWriter& PayloadWriter::u32(uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(uint8_t(value >> (8 * i)));
  return *this;
}

PayloadWriter& PayloadWriter::u64(uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(uint8_t(value >> (8 * i)));
  return *this;
}

uint32_t PayloadReader::u32() {
  assert(offset_ + 4 <= bytes_.size() && "payload length not checked");
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t(bytes_[offset_ + i]) << (8 * i);
  offset_ += 4;
  return value;
}

uint64_t PayloadReader::u64() {
  assert(offset_ + 8 <= bytes_.size() && "payload length not checked");
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= uint64_t(bytes_[offset_ + i]) << (8 * i);
  offset_ += 8;
  return value;
}

std::optional<size_t> fixedPayloadBytes(uint16_t frameType) {
  switch (static_cast<FrameType>(frameType)) {
    case FrameType::HvSubmitEngine:
    case FrameType::HvRefused:
    case FrameType::HvStatusReport:
      return std::nullopt;
    case FrameType::HvHello:
    case FrameType::HvWelcome:
    case FrameType::HvEngineReady:
    case FrameType::HvGetState:
    case FrameType::HvStateWord:
    case FrameType::HvSetState:
    case FrameType::HvEvaluate:
    case FrameType::HvEvaluated:
    case FrameType::HvResume:
    case FrameType::HvUpdate:
    case FrameType::HvThereAreUpdates:
    case FrameType::HvFlag:
    case FrameType::HvOpenLoop:
    case FrameType::HvOpenLooped:
    case FrameType::HvFinalize:
    case FrameType::HvDone:
    case FrameType::HvStatus:
      // Each fixed record fills its frame type's maximum exactly.
      return transport::maxPayloadBytes(static_cast<FrameType>(frameType));
    default:
      return std::nullopt;
  }
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
