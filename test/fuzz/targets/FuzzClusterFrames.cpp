//===- FuzzClusterFrames.cpp - libFuzzer target for host-to-host frames ---===//
//
// This file implements the fuzz target for the payloads daemons take from
// each other over the transport: a frame may come from an attacker who has
// the cluster token, or from a daemon with a bug. Two kinds of reader:
//
//  - The live move's section transfer (cluster/RankSectionTransfer.h), a
//    state machine fed by frames from the other parts of a job. The input
//    is a session: one RankSectionTransfer for a part of a 2-4 part job,
//    then records that deliver frames to it (as the transport does, placed
//    straight into the section or not), and make this part announce, ship,
//    abort or lose a connection. Checked beyond "no crash": the module
//    sends only to other parts of the job, lends only the bytes shipped and
//    hands them back exactly once, and a section it says has landed carries
//    the CRC-32C of its bytes, which it computed chunk by chunk.
//  - The stateless payload decoders (RunJob, RankMoveAnnounce, RouteSwitch
//    and its answer, a frame header, the hypervisor's frames). A payload
//    one accepts must encode back to a payload that decodes to the same
//    encoding: nothing the decoder lets through is lost or invented.
//
// Input: byte 0 picks this part and the job's part count; then records of
// u8 op, u8 part, u16 length (little-endian), and `length` bytes (cut at
// the input's end).
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cluster/JobMessages.h"
#include "cluster/RankSectionTransfer.h"
#include "cluster/RouteSwitch.h"
#include "hypervisor/HypervisorProtocol.h"
#include "transport/FrameCodec.h"
#include "util/Crc32c.h"

namespace {

using synergy::transport::FrameType;
namespace cluster = synergy::cluster;
namespace hv = synergy::hypervisor;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz-cluster-frames: %s\n", what);
  std::abort();
}

uint64_t readLe(const std::vector<uint8_t>& bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width && at + i < bytes.size(); ++i) value |= uint64_t(bytes[at + i]) << (8 * i);
  return value;
}

// The frame types a record may deliver to the section transfer: its own
// six, and one it must refuse.
constexpr FrameType kTransferTypes[] = {
    FrameType::RankMoveAnnounce,  FrameType::RankSectionAccept, FrameType::RankSectionHead,
    FrameType::RankSectionData,   FrameType::RankSectionLanded, FrameType::RankMoveAbort,
    FrameType::CheckpointDecision};

constexpr size_t kMaxTrackedMoves = 16;

// The largest section this harness ships (its bytes are the harness's
// own), and the most it ships in one session.
constexpr uint64_t kMaxShippedBytes = 1 << 20;
constexpr uint64_t kMaxShippedPerSession = 8 << 20;

struct Session {
  uint32_t selfPart = 0;
  uint32_t partCount = 0;
  // ship() calls whose `released` has not run yet; the sections they lent.
  int outstandingLoans = 0;
  uint64_t shippedBytes = 0;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> shipped;
  // The move ids the records have announced (at most kMaxTrackedMoves).
  std::vector<uint64_t> moveIds;
  std::unique_ptr<cluster::RankSectionTransfer> transfer;
};

void checkPart(const Session& session, uint32_t part) {
  if (part >= session.partCount || part == session.selfPart)
    fail("the section transfer sent a frame to itself or to a part outside the job");
}

std::unique_ptr<Session> openSession(uint8_t head) {
  auto session = std::make_unique<Session>();
  session->partCount = 2 + (head >> 4) % 3;
  session->selfPart = (head & 0x0f) % session->partCount;
  Session* s = session.get();
  cluster::RankSectionTransfer::Links links;
  links.selfPart = s->selfPart;
  links.partCount = s->partCount;
  links.send = [s](uint32_t part, FrameType, std::vector<uint8_t>) { checkPart(*s, part); };
  links.sendLent = [s](uint32_t part, std::vector<synergy::transport::LentFrame> frames,
                       std::function<void()> released) {
    checkPart(*s, part);
    // Every lent piece lies inside a section this harness shipped.
    for (const auto& frame : frames)
      for (const auto& piece : frame.lent) {
        bool inside = false;
        for (const auto& buffer : s->shipped)
          inside |= piece.data >= buffer->data() &&
                    piece.size <= size_t(buffer->data() + buffer->size() - piece.data);
        if (!inside) fail("a lent piece lies outside every shipped section");
      }
    if (released) released();
  };
  links.log = [](const std::string& line) {
    if (line.empty() || line.find('\n') != std::string::npos)
      fail("a log line that is empty or spans lines");
  };
  session->transfer = std::make_unique<cluster::RankSectionTransfer>(std::move(links));
  return session;
}

// A frame from `from` (which may be this part or no part of the job: the
// module must drop those), placed straight into the section when the
// module asks for it, as the transport's reader does.
void deliver(Session& session, uint32_t from, FrameType type, const std::vector<uint8_t>& payload) {
  auto& transfer = *session.transfer;
  if (type == FrameType::RankSectionData) {
    if (uint8_t* at = transfer.placePayload(from, type, payload.size())) {
      if (!payload.empty()) std::memcpy(at, payload.data(), payload.size());
      transfer.placedFrameArrived(from, type, payload.size());
      return;
    }
  }
  transfer.onFrame(from, type, payload);
}

void track(Session& session, uint64_t moveId) {
  if (session.moveIds.size() < kMaxTrackedMoves) session.moveIds.push_back(moveId);
}

// After every step: a landed section's stated CRC-32C is the one of its
// bytes, and the one the module computed as they came.
void checkLanded(Session& session, uint64_t moveId) {
  auto outcome = session.transfer->outcome(moveId);
  if (outcome.state != cluster::MoveState::Landed) return;
  uint32_t computed = 0;
  auto section = session.transfer->takeLanded(moveId, &computed);
  if (!section) return;  // the source's view of a landing, or taken before
  if (section->size() < 5) fail("a landed section shorter than the smallest");
  synergy::util::Crc32c crc;
  crc.update(section->data(), size_t(section->size() - 4));
  uint32_t stated = 0;
  std::memcpy(&stated, section->data() + section->size() - 4, 4);
  if (crc.value() != computed || stated != computed || outcome.crc != stated)
    fail("a landed section whose CRC-32C does not match its bytes");
}

void runTransferStep(Session& session, uint8_t op, uint8_t part, const std::vector<uint8_t>& body) {
  uint32_t from = part % (session.partCount + 1);
  auto& transfer = *session.transfer;
  switch (op % 6) {
    case 0:
    case 1: {  // a frame from another part
      FrameType type = kTransferTypes[part / 8 % (sizeof kTransferTypes / sizeof kTransferTypes[0])];
      if (type == FrameType::RankMoveAnnounce) track(session, readLe(body, 0, 8));
      deliver(session, from, type, body);
      if (op % 6 == 1) deliver(session, from, FrameType::RankSectionData, body);
      break;
    }
    case 2: {  // this part announces (only part 0 may)
      cluster::RankMoveAnnouncement move;
      move.moveId = readLe(body, 0, 8);
      move.worldRank = uint32_t(readLe(body, 8, 2));
      move.sourcePart = uint32_t(readLe(body, 10, 1)) % (session.partCount + 1);
      move.targetPart = uint32_t(readLe(body, 11, 1)) % (session.partCount + 1);
      move.bytes = readLe(body, 12, 4);
      track(session, move.moveId);
      std::string error;
      if (!transfer.announce(move, error) && error.empty()) fail("announce refused with no reason");
      break;
    }
    case 3: {  // this part ships a section of the harness's bytes
      uint64_t moveId = readLe(body, 0, 8);
      uint64_t size = readLe(body, 8, 3) % (kMaxShippedBytes + 1);
      if (session.shippedBytes + size > kMaxShippedPerSession) break;
      session.shippedBytes += size;
      session.shipped.push_back(std::make_unique<std::vector<uint8_t>>(size_t(size), uint8_t(op)));
      ++session.outstandingLoans;
      auto handedBack = std::make_shared<bool>(false);
      auto released = [&session, handedBack] {
        if (*handedBack) fail("a shipped section was handed back twice");
        *handedBack = true;
        --session.outstandingLoans;
      };
      std::string error;
      bool ok = transfer.ship(moveId, session.shipped.back()->data(), size, released, error);
      if (!ok && error.empty()) fail("ship refused with no reason");
      break;
    }
    case 4:
      transfer.abort(readLe(body, 0, 8), "the harness gives up");
      break;
    case 5:
      transfer.partClosed(from);
      break;
  }
  for (uint64_t moveId : session.moveIds) checkLanded(session, moveId);
}

// Accepted payloads re-encode to payloads that decode to the same encoding.
void runDecoderStep(uint8_t op, uint8_t part, const std::vector<uint8_t>& body) {
  std::string error;
  switch (op % 8) {
    case 0: {
      cluster::RunJobRequest request;
      if (!cluster::decodeRunJob(body, request, error)) {
        if (error.empty()) fail("RunJob refused with no reason");
        return;
      }
      std::vector<uint8_t> once = cluster::encodeRunJob(request);
      cluster::RunJobRequest again;
      if (!cluster::decodeRunJob(once, again, error) || cluster::encodeRunJob(again) != once)
        fail("an accepted RunJob does not survive its own encoding");
      break;
    }
    case 1: {
      cluster::RankMoveAnnouncement move;
      if (cluster::decodeRankMoveAnnouncement(body, move, error) &&
          cluster::encodeRankMoveAnnouncement(move) != body)
        fail("an accepted RankMoveAnnounce encodes to other bytes");
      break;
    }
    case 2: {
      uint32_t worldSize = 1 + part % 16, partCount = 1 + part / 16;
      auto frame = cluster::decodeRouteSwitch(body, worldSize, partCount, error);
      if (frame && cluster::encodeRouteSwitch(*frame) != body)
        fail("an accepted RouteSwitch encodes to other bytes");
      if (frame && frame->partOfRank.size() != worldSize) fail("a RouteSwitch of the wrong size");
      for (uint32_t p : frame ? frame->partOfRank : std::vector<uint32_t>{})
        if (p >= partCount) fail("a RouteSwitch naming a part outside the job");
      break;
    }
    case 3: {
      auto answer = cluster::decodeRouteSwitchAnswer(body, error);
      if (answer && cluster::encodeRouteSwitchAnswer(*answer) != body)
        fail("an accepted RouteSwitchAnswer encodes to other bytes");
      break;
    }
    case 4: {
      synergy::transport::FrameHeaderBytes bytes{};
      if (!body.empty()) std::memcpy(bytes.data(), body.data(), std::min(body.size(), bytes.size()));
      synergy::transport::FrameHeader header;
      if (synergy::transport::decodeFrameHeader(bytes, header, error) &&
          synergy::transport::encodeFrameHeader(header.type, header.payloadBytes) != bytes)
        fail("an accepted frame header encodes to other bytes");
      break;
    }
    case 5: {
      auto request = hv::decodeOpenLoopRequest(body, error);
      if (request) {
        std::vector<uint8_t> once = hv::encodeOpenLoopRequest(*request);
        auto again = hv::decodeOpenLoopRequest(once, error);
        if (!again || hv::encodeOpenLoopRequest(*again) != once)
          fail("an accepted OpenLoopRequest does not survive its own encoding");
      }
      auto reply = hv::decodeOpenLoopReply(body, error);
      if (reply) {
        std::vector<uint8_t> once = hv::encodeOpenLoopReply(*reply);
        auto again = hv::decodeOpenLoopReply(once, error);
        if (!again || hv::encodeOpenLoopReply(*again) != once)
          fail("an accepted OpenLoopReply does not survive its own encoding");
      }
      break;
    }
    case 6: {
      auto read = hv::decodeStateRead(body, error);
      if (read) {
        std::vector<uint8_t> once = hv::encodeStateRead(*read);
        auto again = hv::decodeStateRead(once, error);
        if (!again || hv::encodeStateRead(*again) != once)
          fail("an accepted StateRead does not survive its own encoding");
      }
      // Its callers check the length first (HypervisorClient.cpp), as here.
      if (hv::payloadLengthIsValid(uint16_t(FrameType::HvRunProgress), body.size()) &&
          hv::encodeRunProgress(hv::decodeRunProgress(body)) != body)
        fail("an accepted HvRunProgress encodes to other bytes");
      break;
    }
    case 7: {
      auto batch = hv::decodeBatch(body, error);
      if (batch) {
        std::vector<uint8_t> once = hv::encodeBatch(*batch);
        auto again = hv::decodeBatch(once, error);
        if (!again || hv::encodeBatch(*again) != once)
          fail("an accepted Batch does not survive its own encoding");
      }
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto session = openSession(data[0]);
  size_t at = 1;
  while (size - at >= 4) {
    uint8_t op = data[at], part = data[at + 1];
    size_t length = size_t(data[at + 2]) | size_t(data[at + 3]) << 8;
    at += 4;
    length = std::min(length, size - at);
    std::vector<uint8_t> body(data + at, data + at + length);
    at += length;
    // Ops 0-5 drive the section transfer, 6-13 the decoders; the rest
    // again the transfer, whose states take the most records to reach.
    if (op % 16 >= 6 && op % 16 < 14)
      runDecoderStep(uint8_t(op % 16 - 6), part, body);
    else
      runTransferStep(*session, op % 16 < 6 ? op % 16 : op % 16 - 14, part, body);
  }
  session->transfer.reset();
  if (session->outstandingLoans != 0) fail("a shipped section was never handed back");
  return 0;
}
