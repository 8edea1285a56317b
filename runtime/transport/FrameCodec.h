//===- FrameCodec.h - Encoding and checking frame headers ------------------===//
//
// Turns a frame type and payload length into the 16 header bytes of
// FrameTypes.h, and checks received header bytes before anything is
// allocated for the payload: magic, known type, zero reserved field and a
// length within the type's maximum. A header that fails any check yields a
// one-line reason and the connection that sent it is dropped.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "transport/FrameTypes.h"

namespace synergy::transport {

using FrameHeaderBytes = std::array<uint8_t, kFrameHeaderBytes>;

struct FrameHeader {
  FrameType type = FrameType::Ping;
  uint64_t payloadBytes = 0;
};

// The header of a frame; payloadBytes must not exceed maxPayloadBytes(type).
FrameHeaderBytes encodeFrameHeader(FrameType type, uint64_t payloadBytes);

// Decodes and checks a received header. On failure returns false and sets
// `reason` (e.g. "frame length 4294967296 exceeds the maximum 65536 for
// Ping"); `header` is then unspecified.
bool decodeFrameHeader(const FrameHeaderBytes& bytes, FrameHeader& header, std::string& reason);

// "Hello", "Ping", ... for messages.
const char* frameTypeName(FrameType type);

}  // namespace synergy::transport
