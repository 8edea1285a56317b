//===- HypervisorProtocol.h - Payloads of the hypervisor's frames ----------===//
//
// The hypervisor's frames (transport/FrameTypes.h, HvHello to
// HvStatusReport) carry fixed-size little-endian records, except the
// submitted manifest, refusals and status reports, which are text. This
// header gives each record one struct and one decoder; a decoder refuses a
// payload whose length is not exactly its record's, so a truncated or padded
// request never reaches an engine. The protocol version travels in HvHello
// and HvWelcome; a peer with another version is refused before anything else
// is read.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace synergy::hypervisor {

inline constexpr uint32_t kHypervisorProtocolVersion = 1;

// Appends little-endian integers to a payload.
class PayloadWriter {
 public:
  PayloadWriter& u32(uint32_t value);
  PayloadWriter& u64(uint64_t value);
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

// Reads little-endian integers from a payload whose length the caller has
// checked against the record's.
class PayloadReader {
 public:
  explicit PayloadReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
  uint32_t u32();
  uint64_t u64();

 private:
  const std::vector<uint8_t>& bytes_;
  size_t offset_ = 0;
};

// The payload sizes of the fixed records, by frame type; nullopt for the
// text frames.
std::optional<size_t> fixedPayloadBytes(uint16_t frameType);

// Text frames hold printable one-line (refusal) or multi-line (status) text.
std::vector<uint8_t> textPayload(const std::string& text);
std::string payloadText(const std::vector<uint8_t>& payload);

}  // namespace synergy::hypervisor
