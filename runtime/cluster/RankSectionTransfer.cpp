//===- RankSectionTransfer.cpp - Shipping one rank's section between parts -===//
//
// This file implements RankSectionTransfer.h. All state sits under one
// mutex; the frames a step decides to send are collected while it is held
// and sent after, since a send may wait for room in a connection's queue.
//
//===----------------------------------------------------------------------===//
#include "cluster/RankSectionTransfer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "transport/FrameCodec.h"
#include "util/Crc32c.h"
#include "util/LittleEndian.h"

namespace synergy::cluster {

using transport::FrameType;

struct RankSectionTransfer::Move {
  RankMoveAnnouncement announced;
  MoveState state = MoveState::Announced;
  std::string reason;
  uint32_t crc = 0;
  // The target's: where the section lands, and how much of it has.
  std::shared_ptr<SectionBuffer> buffer;
  uint64_t placed = 0;
  // The CRC-32C of the placed bytes before the section's last four, taken
  // chunk by chunk as they land, while the next ones are on their way.
  util::Crc32c checksum;
  // The source's: ship() has lent the section, the target has accepted
  // it, its chunks have gone to the transport.
  bool shipped = false;
  bool accepted = false;
  bool sent = false;
  const uint8_t* lent = nullptr;
  std::function<void()> released;
};

struct RankSectionTransfer::Incoming {
  uint64_t moveId = 0;
  // A RankSectionHead came and its RankSectionData has not.
  bool chunkPending = false;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  // While the transport reads a chunk into the buffer: the buffer, kept
  // whatever becomes of the move meanwhile.
  std::shared_ptr<SectionBuffer> placing;
};

namespace {

std::string partName(uint32_t part) { return "part " + std::to_string(part); }

std::string moveName(uint64_t moveId) { return "move " + std::to_string(moveId); }

std::vector<uint8_t> abortPayload(uint64_t moveId, const std::string& reason) {
  size_t length = std::min<size_t>(reason.size(), transport::kMaxRefusalBytes);
  std::vector<uint8_t> payload(transport::kRankMoveAbortHeadBytes + length);
  util::writeLittleEndian(payload.data(), moveId, 8);
  util::writeLittleEndian(payload.data() + 8, length, 4);
  std::memcpy(payload.data() + transport::kRankMoveAbortHeadBytes, reason.data(), length);
  return payload;
}

// The reason of a RankMoveAbort from another part, as printable text.
std::string abortReason(const std::vector<uint8_t>& payload) {
  std::string reason;
  for (size_t i = transport::kRankMoveAbortHeadBytes; i < payload.size(); ++i) {
    char c = char(payload[i]);
    reason.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  return reason;
}

}  // namespace

std::vector<uint8_t> encodeRankMoveAnnouncement(const RankMoveAnnouncement& move) {
  std::vector<uint8_t> payload(transport::kRankMoveAnnounceBytes, 0);
  util::writeLittleEndian(payload.data(), move.moveId, 8);
  util::writeLittleEndian(payload.data() + 8, move.worldRank, 4);
  util::writeLittleEndian(payload.data() + 12, move.sourcePart, 4);
  util::writeLittleEndian(payload.data() + 16, move.targetPart, 4);
  util::writeLittleEndian(payload.data() + 24, move.bytes, 8);
  return payload;
}

bool decodeRankMoveAnnouncement(const std::vector<uint8_t>& payload, RankMoveAnnouncement& move,
                                std::string& error) {
  if (payload.size() != transport::kRankMoveAnnounceBytes) {
    error = "RankMoveAnnounce of " + std::to_string(payload.size()) + " bytes, not " +
            std::to_string(transport::kRankMoveAnnounceBytes);
    return false;
  }
  if (util::readLittleEndian(payload.data() + 20, 4) != 0) {
    error = "RankMoveAnnounce with a nonzero reserved field";
    return false;
  }
  move.moveId = util::readLittleEndian(payload.data(), 8);
  move.worldRank = uint32_t(util::readLittleEndian(payload.data() + 8, 4));
  move.sourcePart = uint32_t(util::readLittleEndian(payload.data() + 12, 4));
  move.targetPart = uint32_t(util::readLittleEndian(payload.data() + 16, 4));
  move.bytes = util::readLittleEndian(payload.data() + 24, 8);
  if (move.moveId == 0) {
    error = "RankMoveAnnounce with move id 0";
    return false;
  }
  return true;
}

std::shared_ptr<SectionBuffer> SectionBuffer::map(uint64_t bytes, std::string& error) {
  if (bytes == 0 || bytes > transport::kMaxRankSectionBytes) {
    error = "cannot map a section of " + std::to_string(bytes) + " bytes";
    return nullptr;
  }
  void* at = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (at == MAP_FAILED) {
    error = "cannot map a section of " + std::to_string(bytes) + " bytes: " + std::strerror(errno);
    return nullptr;
  }
  // Written once from front to back and read once: huge pages spare the
  // page faults of 4 KiB ones, where the kernel has them.
  madvise(at, size_t(bytes), MADV_HUGEPAGE);
  return std::shared_ptr<SectionBuffer>(new SectionBuffer(static_cast<uint8_t*>(at), bytes));
}

SectionBuffer::~SectionBuffer() { munmap(data_, size_t(size_)); }

RankSectionTransfer::RankSectionTransfer(Links links) : links_(std::move(links)) {
  incoming_.resize(links_.partCount);
  for (auto& slot : incoming_) slot = std::make_unique<Incoming>();
  earlyAccepts_.assign(links_.partCount, 0);
}

// Lent bytes no chunk took are given back.
RankSectionTransfer::~RankSectionTransfer() {
  for (auto& [id, move] : moves_)
    if (move->released) move->released();
}

bool RankSectionTransfer::carries(FrameType type) {
  return type == FrameType::RankMoveAnnounce || type == FrameType::RankSectionAccept ||
         type == FrameType::RankSectionHead ||
         type == FrameType::RankSectionData || type == FrameType::RankSectionLanded ||
         type == FrameType::RankMoveAbort;
}

void RankSectionTransfer::dropped(const std::string& line) {
  if (links_.log) links_.log("live move: " + line);
}

void RankSectionTransfer::flush(std::vector<Outgoing>& out) {
  for (Outgoing& step : out) {
    if (step.run)
      step.run();
    else
      links_.send(step.part, step.type, std::move(step.payload));
  }
  out.clear();
}

bool RankSectionTransfer::announce(const RankMoveAnnouncement& move, std::string& error) {
  std::string prefix = moveName(move.moveId) + ": ";
  error.clear();
  if (links_.selfPart != 0) {
    error = prefix + "only part 0 announces moves";
  } else if (move.moveId == 0) {
    error = "move id 0";
  } else if (move.sourcePart >= links_.partCount || move.targetPart >= links_.partCount ||
             move.sourcePart == move.targetPart) {
    error = prefix + "from " + partName(move.sourcePart) + " to " + partName(move.targetPart) +
            " in a job of " + std::to_string(links_.partCount) + " parts";
  } else if (move.bytes < transport::kMinRankSectionBytes ||
             move.bytes > transport::kMaxRankSectionBytes) {
    error = prefix + "a section of " + std::to_string(move.bytes) + " bytes";
  }
  if (!error.empty()) return false;
  std::vector<Outgoing> out;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (moves_.count(move.moveId)) {
      error = prefix + "announced before";
      return false;
    }
    auto record = std::make_unique<Move>();
    record->announced = move;
    Move& added = *record;
    moves_[move.moveId] = std::move(record);
    if (move.targetPart == 0) {
      added.buffer = SectionBuffer::map(move.bytes, error);
      if (!added.buffer) {
        added.state = MoveState::Aborted;
        added.reason = error;
        changed_.notify_all();
        return false;
      }
      incoming_[move.sourcePart]->moveId = move.moveId;
      incoming_[move.sourcePart]->chunkPending = false;
    }
    std::vector<uint8_t> payload = encodeRankMoveAnnouncement(move);
    for (uint32_t part : {move.sourcePart, move.targetPart})
      if (part != 0) out.push_back({part, FrameType::RankMoveAnnounce, payload, {}});
    if (move.targetPart == 0) {
      std::vector<uint8_t> accept(transport::kRankSectionAcceptBytes);
      util::writeLittleEndian(accept.data(), move.moveId, 8);
      out.push_back({move.sourcePart, FrameType::RankSectionAccept, std::move(accept), {}});
    } else if (move.sourcePart == 0 && earlyAccepts_[move.targetPart] == move.moveId) {
      earlyAccepts_[move.targetPart] = 0;
      added.accepted = true;
    }
  }
  flush(out);
  return true;
}

bool RankSectionTransfer::ship(uint64_t moveId, const uint8_t* data, uint64_t size,
                               std::function<void()> released, std::string& error) {
  std::vector<Outgoing> out;
  uint32_t target = 0;
  error.clear();
  {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = moves_.find(moveId);
    if (it == moves_.end() || it->second->announced.sourcePart != links_.selfPart) {
      error = moveName(moveId) + ": not announced with " + partName(links_.selfPart) +
              " as its source";
    } else if (it->second->state != MoveState::Announced) {
      error = moveName(moveId) + ": has ended (" + it->second->reason + ")";
    } else if (it->second->shipped) {
      error = moveName(moveId) + ": shipped before";
    } else if (size != it->second->announced.bytes) {
      error = moveName(moveId) + ": wrong size: the section has " + std::to_string(size) +
              " bytes where " + std::to_string(it->second->announced.bytes) + " were announced";
      endMove(*it->second, error, links_.selfPart, out);
    }
    if (error.empty()) {
      Move& move = *it->second;
      move.shipped = true;
      move.lent = data;
      move.released = std::move(released);
      sendWhenAccepted(move, out);
    }
  }
  flush(out);
  if (!error.empty()) {
    if (released) released();
    return false;
  }
  return true;
}

void RankSectionTransfer::sendWhenAccepted(Move& move, std::vector<Outgoing>& out) {
  if (!move.shipped || !move.accepted || move.sent) return;
  move.sent = true;
  // Each chunk's head, then its bytes, lent: back to back on the
  // connection, so no other frame of this part comes between them.
  uint64_t moveId = move.announced.moveId;
  uint64_t size = move.announced.bytes;
  std::vector<transport::LentFrame> frames;
  frames.reserve(size_t(2 * ((size + kChunkBytes - 1) / kChunkBytes)));
  for (uint64_t offset = 0; offset < size; offset += kChunkBytes) {
    uint64_t bytes = std::min(kChunkBytes, size - offset);
    transport::LentFrame head{FrameType::RankSectionHead,
                              std::vector<uint8_t>(transport::kRankSectionHeadBytes), {}};
    util::writeLittleEndian(head.head.data(), moveId, 8);
    util::writeLittleEndian(head.head.data() + 8, offset, 8);
    util::writeLittleEndian(head.head.data() + 16, bytes, 8);
    frames.push_back(std::move(head));
    frames.push_back({FrameType::RankSectionData, {}, {{move.lent + offset, size_t(bytes)}}});
  }
  uint32_t target = move.announced.targetPart;
  auto chunks = std::make_shared<std::vector<transport::LentFrame>>(std::move(frames));
  auto released = std::make_shared<std::function<void()>>(std::move(move.released));
  move.released = nullptr;
  out.push_back({target, FrameType::RankSectionData, {}, [this, target, chunks, released] {
                   links_.sendLent(target, std::move(*chunks), std::move(*released));
                 }});
}

void RankSectionTransfer::abort(uint64_t moveId, const std::string& reason) {
  std::vector<Outgoing> out;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = moves_.find(moveId);
    if (it == moves_.end() || it->second->state != MoveState::Announced) return;
    endMove(*it->second, reason, links_.selfPart, out);
  }
  flush(out);
}

MoveOutcome RankSectionTransfer::outcome(uint64_t moveId) const {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = moves_.find(moveId);
  if (it == moves_.end()) return {};
  return {it->second->state, it->second->reason, it->second->crc};
}

MoveOutcome RankSectionTransfer::waitOutcome(uint64_t moveId,
                                             std::chrono::milliseconds limit) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, limit, [&] {
    auto it = moves_.find(moveId);
    return it != moves_.end() && it->second->state != MoveState::Announced;
  });
  auto it = moves_.find(moveId);
  if (it == moves_.end()) return {};
  return {it->second->state, it->second->reason, it->second->crc};
}

std::shared_ptr<SectionBuffer> RankSectionTransfer::takeLanded(uint64_t moveId,
                                                               uint32_t* computedCrc) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = moves_.find(moveId);
  if (it == moves_.end() || it->second->state != MoveState::Landed) return nullptr;
  if (computedCrc) *computedCrc = it->second->checksum.value();
  return std::move(it->second->buffer);
}

void RankSectionTransfer::endMove(Move& move, const std::string& reason, uint32_t skip,
                                  std::vector<Outgoing>& out) {
  move.state = MoveState::Aborted;
  move.reason = reason;
  move.buffer.reset();
  if (move.released)
    out.push_back({0, FrameType::RankMoveAbort, {}, std::exchange(move.released, nullptr)});
  changed_.notify_all();
  const RankMoveAnnouncement& a = move.announced;
  Incoming& incoming = *incoming_[a.sourcePart];
  // A chunk the transport is reading keeps its buffer (`placing`) until it
  // is in; otherwise nothing more of this move is taken here.
  if (incoming.moveId == a.moveId && !incoming.placing) incoming = Incoming{};
  if (links_.log) links_.log("live move: " + moveName(a.moveId) + " of rank " +
                             std::to_string(a.worldRank) + " aborted: " + reason);
  if (links_.selfPart == 0) {
    for (uint32_t part : {a.sourcePart, a.targetPart})
      if (part != 0 && part != skip)
        out.push_back({part, FrameType::RankMoveAbort, abortPayload(a.moveId, reason), {}});
  } else {
    out.push_back({0, FrameType::RankMoveAbort,
                   abortPayload(a.moveId, partName(links_.selfPart) + ": " + reason), {}});
  }
}

uint8_t* RankSectionTransfer::placePayload(uint32_t fromPart, FrameType type, uint64_t bytes) {
  if (type != FrameType::RankSectionData || fromPart >= incoming_.size()) return nullptr;
  std::lock_guard<std::mutex> guard(mutex_);
  Incoming& incoming = *incoming_[fromPart];
  if (!incoming.chunkPending || incoming.placing || bytes != incoming.bytes) return nullptr;
  auto it = moves_.find(incoming.moveId);
  if (it == moves_.end() || it->second->state != MoveState::Announced || !it->second->buffer)
    return nullptr;
  // onHead() checked offset + bytes against the buffer's size.
  incoming.placing = it->second->buffer;
  return incoming.placing->data() + incoming.offset;
}

void RankSectionTransfer::placedFrameArrived(uint32_t fromPart, FrameType type, uint64_t bytes) {
  std::vector<Outgoing> out;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (type != FrameType::RankSectionData || fromPart >= incoming_.size()) return;
    Incoming& incoming = *incoming_[fromPart];
    std::shared_ptr<SectionBuffer> placing = std::move(incoming.placing);
    incoming.chunkPending = false;
    auto it = moves_.find(incoming.moveId);
    if (it == moves_.end() || it->second->state != MoveState::Announced) {
      // The move ended while the chunk was read; its buffer goes now.
      incoming = Incoming{};
      return;
    }
    Move& move = *it->second;
    uint64_t body = move.announced.bytes - 4;
    if (move.placed < body)
      move.checksum.update(move.buffer->data() + move.placed,
                           size_t(std::min(bytes, body - move.placed)));
    move.placed += bytes;
    if (move.placed == move.announced.bytes) finishPlacing(move, out);
  }
  flush(out);
}

// The whole section is in: its last four bytes must be the CRC-32C of the
// others (checkpoint::encodeDepartingRank).
void RankSectionTransfer::finishPlacing(Move& move, std::vector<Outgoing>& out) {
  const RankMoveAnnouncement& a = move.announced;
  *incoming_[a.sourcePart] = Incoming{};
  uint32_t stated = uint32_t(util::readLittleEndian(move.buffer->data() + a.bytes - 4, 4));
  uint32_t computed = move.checksum.value();
  if (computed != stated) {
    char text[80];
    std::snprintf(text, sizeof text, "bad CRC-32C: the section's bytes give %08x, it states %08x",
                  computed, stated);
    endMove(move, text, links_.selfPart, out);
    return;
  }
  move.state = MoveState::Landed;
  move.crc = stated;
  changed_.notify_all();
  std::vector<uint8_t> landed(transport::kRankSectionLandedBytes);
  util::writeLittleEndian(landed.data(), a.moveId, 8);
  util::writeLittleEndian(landed.data() + 8, stated, 4);
  out.push_back({a.sourcePart, FrameType::RankSectionLanded, landed, {}});
  if (a.sourcePart != 0 && links_.selfPart != 0)
    out.push_back({0, FrameType::RankSectionLanded, std::move(landed), {}});
}

void RankSectionTransfer::onFrame(uint32_t fromPart, FrameType type,
                                  const std::vector<uint8_t>& payload) {
  if (fromPart >= links_.partCount || fromPart == links_.selfPart) {
    dropped(std::string(transport::frameTypeName(type)) + " from " + partName(fromPart) +
            ", not another part of the job");
    return;
  }
  std::vector<Outgoing> out;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    switch (type) {
      case FrameType::RankMoveAnnounce:
        onAnnounce(fromPart, payload, out);
        break;
      case FrameType::RankSectionAccept:
        onAccept(fromPart, payload, out);
        break;
      case FrameType::RankSectionHead:
        onHead(fromPart, payload, out);
        break;
      case FrameType::RankSectionData:
        onUnplacedData(fromPart, payload.size(), out);
        break;
      case FrameType::RankSectionLanded:
        onLanded(fromPart, payload, out);
        break;
      case FrameType::RankMoveAbort:
        onAbort(fromPart, payload, out);
        break;
      default:
        dropped(std::string(transport::frameTypeName(type)) + " is not a live move's frame");
        break;
    }
  }
  flush(out);
}

void RankSectionTransfer::onAnnounce(uint32_t fromPart, const std::vector<uint8_t>& payload,
                                     std::vector<Outgoing>& out) {
  if (fromPart != 0) {
    dropped("RankMoveAnnounce from " + partName(fromPart) + ", not part 0");
    return;
  }
  RankMoveAnnouncement a;
  std::string error;
  if (!decodeRankMoveAnnouncement(payload, a, error)) {
    dropped(error);
    return;
  }
  bool source = a.sourcePart == links_.selfPart;
  bool target = a.targetPart == links_.selfPart;
  if (a.sourcePart >= links_.partCount || a.targetPart >= links_.partCount ||
      a.sourcePart == a.targetPart || (!source && !target)) {
    dropped(moveName(a.moveId) + ": RankMoveAnnounce from " + partName(a.sourcePart) + " to " +
            partName(a.targetPart) + ", which " + partName(links_.selfPart) + " of " +
            std::to_string(links_.partCount) + " parts is not a side of");
    return;
  }
  if (moves_.count(a.moveId)) {
    dropped(moveName(a.moveId) + ": RankMoveAnnounce again");
    return;
  }
  auto record = std::make_unique<Move>();
  record->announced = a;
  Move& move = *record;
  moves_[a.moveId] = std::move(record);
  changed_.notify_all();
  if (a.bytes < transport::kMinRankSectionBytes || a.bytes > transport::kMaxRankSectionBytes) {
    endMove(move, "wrong size: a section of " + std::to_string(a.bytes) + " bytes", 0, out);
    return;
  }
  if (source) {
    if (earlyAccepts_[a.targetPart] == a.moveId) {
      earlyAccepts_[a.targetPart] = 0;
      move.accepted = true;
    }
    return;
  }
  if (incoming_[a.sourcePart]->moveId != 0) {
    endMove(move,
            partName(a.sourcePart) + " is still sending " +
                moveName(incoming_[a.sourcePart]->moveId) + " here",
            0, out);
    return;
  }
  move.buffer = SectionBuffer::map(a.bytes, error);
  if (!move.buffer) {
    endMove(move, error, 0, out);
    return;
  }
  incoming_[a.sourcePart]->moveId = a.moveId;
  std::vector<uint8_t> accept(transport::kRankSectionAcceptBytes);
  util::writeLittleEndian(accept.data(), a.moveId, 8);
  out.push_back({a.sourcePart, FrameType::RankSectionAccept, std::move(accept), {}});
}

void RankSectionTransfer::onAccept(uint32_t fromPart, const std::vector<uint8_t>& payload,
                                   std::vector<Outgoing>& out) {
  if (payload.size() != transport::kRankSectionAcceptBytes) {
    dropped("RankSectionAccept of " + std::to_string(payload.size()) + " bytes, not " +
            std::to_string(transport::kRankSectionAcceptBytes) + ", from " + partName(fromPart));
    return;
  }
  uint64_t moveId = util::readLittleEndian(payload.data(), 8);
  auto it = moves_.find(moveId);
  if (it == moves_.end()) {
    // Part 0's announcement may still be on its way here: one early
    // acceptance per part is kept for it.
    if (moveId == 0) {
      dropped("RankSectionAccept of move 0 from " + partName(fromPart));
      return;
    }
    earlyAccepts_[fromPart] = moveId;
    return;
  }
  Move& move = *it->second;
  if (move.announced.sourcePart != links_.selfPart || move.announced.targetPart != fromPart) {
    dropped(moveName(moveId) + ": RankSectionAccept from " + partName(fromPart) +
            ", not the move's target, to its source");
    return;
  }
  if (move.state != MoveState::Announced || move.accepted) {
    dropped(moveName(moveId) + ": RankSectionAccept again or after the move ended");
    return;
  }
  move.accepted = true;
  sendWhenAccepted(move, out);
}

void RankSectionTransfer::onHead(uint32_t fromPart, const std::vector<uint8_t>& payload,
                                 std::vector<Outgoing>& out) {
  Incoming& incoming = *incoming_[fromPart];
  auto current = moves_.find(incoming.moveId);
  Move* receiving = incoming.moveId && current != moves_.end() &&
                            current->second->state == MoveState::Announced
                        ? current->second.get()
                        : nullptr;
  if (payload.size() != transport::kRankSectionHeadBytes) {
    std::string what = "RankSectionHead of " + std::to_string(payload.size()) + " bytes, not " +
                       std::to_string(transport::kRankSectionHeadBytes);
    // From the part whose section lands here, the rest of it cannot be
    // placed any more.
    if (receiving)
      endMove(*receiving, what, links_.selfPart, out);
    else
      dropped(what + " from " + partName(fromPart));
    return;
  }
  uint64_t moveId = util::readLittleEndian(payload.data(), 8);
  uint64_t offset = util::readLittleEndian(payload.data() + 8, 8);
  uint64_t bytes = util::readLittleEndian(payload.data() + 16, 8);
  auto it = moves_.find(moveId);
  if (it == moves_.end()) {
    dropped(moveName(moveId) + ": RankSectionHead from " + partName(fromPart) +
            " for a move part 0 has not announced here");
    return;
  }
  Move& move = *it->second;
  const RankMoveAnnouncement& a = move.announced;
  if (a.targetPart != links_.selfPart || a.sourcePart != fromPart) {
    dropped(moveName(moveId) + ": RankSectionHead from " + partName(fromPart) +
            ", not from the move's source " + partName(a.sourcePart) + " to this part");
    return;
  }
  if (move.state != MoveState::Announced || incoming.moveId != moveId) {
    dropped(moveName(moveId) + ": RankSectionHead after the move ended");
    return;
  }
  std::string at = "chunk of " + std::to_string(bytes) + " bytes at offset " +
                   std::to_string(offset);
  if (incoming.chunkPending) {
    endMove(move, "RankSectionHead before the data of the previous " + std::string("chunk"),
            links_.selfPart, out);
  } else if (bytes == 0 || bytes > transport::kMaxRankSectionChunkBytes) {
    endMove(move, "a " + at + ": chunks hold 1 to " +
                      std::to_string(transport::kMaxRankSectionChunkBytes) + " bytes",
            links_.selfPart, out);
  } else if (offset > a.bytes || bytes > a.bytes - offset) {
    endMove(move, "a " + at + " is out of range of the " + std::to_string(a.bytes) +
                      " bytes announced",
            links_.selfPart, out);
  } else if (offset < move.placed) {
    endMove(move, "a " + at + " overlaps the " + std::to_string(move.placed) +
                      " bytes placed",
            links_.selfPart, out);
  } else if (offset > move.placed) {
    endMove(move, "a " + at + " leaves a gap after the " + std::to_string(move.placed) +
                      " bytes placed",
            links_.selfPart, out);
  } else {
    incoming.chunkPending = true;
    incoming.offset = offset;
    incoming.bytes = bytes;
  }
}

// RankSectionData that placePayload() did not place.
void RankSectionTransfer::onUnplacedData(uint32_t fromPart, uint64_t bytes,
                                         std::vector<Outgoing>& out) {
  Incoming& incoming = *incoming_[fromPart];
  auto it = moves_.find(incoming.moveId);
  if (!incoming.chunkPending || it == moves_.end() ||
      it->second->state != MoveState::Announced) {
    dropped("RankSectionData of " + std::to_string(bytes) + " bytes from " + partName(fromPart) +
            " without a RankSectionHead of an announced move");
    return;
  }
  endMove(*it->second,
          "RankSectionData of " + std::to_string(bytes) + " bytes where its head announced " +
              std::to_string(incoming.bytes),
          links_.selfPart, out);
}

void RankSectionTransfer::onLanded(uint32_t fromPart, const std::vector<uint8_t>& payload,
                                   std::vector<Outgoing>& out) {
  if (payload.size() != transport::kRankSectionLandedBytes) {
    dropped("RankSectionLanded of " + std::to_string(payload.size()) + " bytes, not " +
            std::to_string(transport::kRankSectionLandedBytes) + ", from " + partName(fromPart));
    return;
  }
  uint64_t moveId = util::readLittleEndian(payload.data(), 8);
  auto it = moves_.find(moveId);
  if (it == moves_.end()) {
    dropped(moveName(moveId) + ": RankSectionLanded from " + partName(fromPart) +
            " for a move unknown here");
    return;
  }
  Move& move = *it->second;
  if (move.announced.targetPart != fromPart) {
    dropped(moveName(moveId) + ": RankSectionLanded from " + partName(fromPart) +
            ", not the move's target " + partName(move.announced.targetPart));
    return;
  }
  if (move.state != MoveState::Announced) {
    dropped(moveName(moveId) + ": RankSectionLanded after the move ended");
    return;
  }
  if (links_.selfPart == move.announced.sourcePart && !move.shipped) {
    endMove(move, "RankSectionLanded from " + partName(fromPart) + " before the section was sent",
            links_.selfPart, out);
    return;
  }
  move.state = MoveState::Landed;
  move.crc = uint32_t(util::readLittleEndian(payload.data() + 8, 4));
  changed_.notify_all();
}

void RankSectionTransfer::onAbort(uint32_t fromPart, const std::vector<uint8_t>& payload,
                                  std::vector<Outgoing>& out) {
  if (payload.size() < transport::kRankMoveAbortHeadBytes ||
      util::readLittleEndian(payload.data() + 8, 4) !=
          payload.size() - transport::kRankMoveAbortHeadBytes) {
    dropped("RankMoveAbort of " + std::to_string(payload.size()) +
            " bytes whose reason's length does not add up, from " + partName(fromPart));
    return;
  }
  uint64_t moveId = util::readLittleEndian(payload.data(), 8);
  auto it = moves_.find(moveId);
  if (it == moves_.end()) {
    dropped(moveName(moveId) + ": RankMoveAbort from " + partName(fromPart) +
            " for a move unknown here");
    return;
  }
  Move& move = *it->second;
  // Part 0 hears from the move's parts; they hear from part 0.
  bool entitled = links_.selfPart == 0
                      ? fromPart == move.announced.sourcePart || fromPart == move.announced.targetPart
                      : fromPart == 0;
  if (!entitled) {
    dropped(moveName(moveId) + ": RankMoveAbort from " + partName(fromPart) +
            ", which has no say in it");
    return;
  }
  if (move.state != MoveState::Announced) return;  // ended already; nothing to undo
  std::string reason = abortReason(payload);
  if (links_.selfPart == 0) {
    endMove(move, reason, fromPart, out);
  } else {
    // Part 0 decided: nothing goes back to it.
    move.state = MoveState::Aborted;
    move.reason = reason;
    move.buffer.reset();
    Incoming& incoming = *incoming_[move.announced.sourcePart];
    if (incoming.moveId == moveId && !incoming.placing) incoming = Incoming{};
    changed_.notify_all();
    if (links_.log)
      links_.log("live move: " + moveName(moveId) + " aborted by part 0: " + reason);
  }
}

void RankSectionTransfer::partClosed(uint32_t part) {
  std::vector<Outgoing> out;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (part < incoming_.size()) incoming_[part]->placing.reset();
    for (auto& [id, move] : moves_) {
      const RankMoveAnnouncement& a = move->announced;
      if (move->state != MoveState::Announced) continue;
      if (part != 0 && part != a.sourcePart && part != a.targetPart) continue;
      std::string reason = "lost " + partName(part) + " (its connection closed)";
      if (part == 0) {
        // No one left to tell.
        move->state = MoveState::Aborted;
        move->reason = reason;
        move->buffer.reset();
        if (a.sourcePart < incoming_.size() && incoming_[a.sourcePart]->moveId == id)
          *incoming_[a.sourcePart] = Incoming{};
        changed_.notify_all();
        if (links_.log) links_.log("live move: " + moveName(id) + " aborted: " + reason);
      } else {
        endMove(*move, reason, part, out);
      }
    }
  }
  flush(out);
}

}  // namespace synergy::cluster
