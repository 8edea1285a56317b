//===- RankSectionTransfer.h - Shipping one rank's section between parts --===//
//
// A live move (issue 22) takes a rank suspended at a barrier control point
// from the part of the job that runs it (the source) to another part (the
// target). This module ships the rank's section, the bytes
// checkpoint::encodeDepartingRank gives (ending with their CRC-32C), over
// the parts' existing connections (MpiPeerLink.h), with part 0 deciding:
//
//   part 0  --RankMoveAnnounce-->   source, target   (move id, rank, parts, bytes)
//   target  --RankSectionAccept-->  source           (its buffer is mapped)
//   source  --RankSectionHead, RankSectionData ...--> target   (chunks, in order)
//   target  --RankSectionLanded-->  source, part 0   (all placed, CRC-32C checked)
//   any     --RankMoveAbort-->      part 0 --RankMoveAbort--> the others
//
// Why so: the section of a 64 MiB granule is 64 MiB, and the move must take
// well under 100 ms. So the source lends its bytes to the transport
// (Connection::sendLent), which writes them from where they lie; the target
// maps one buffer of the announced size when part 0 announces the move
// (anonymous, huge-page friendly: it is read once, by the restore, and
// freed), and the transport reads each chunk's payload straight to its
// offset there (TransportConfig::placePayload). The bytes are never copied
// on either side apart from the at most 16 KiB the transport reads along
// with a chunk's header. The target accepts before the source sends: the
// announcement travels to the two on different connections, and may
// reach the target last.
//
// Every frame is hostile. A frame that belongs to no move this part knows
// (no announcement, a move that has ended, a part that is not the move's
// source or not part 0) is dropped with a logged reason and changes
// nothing; only an acceptance that overtakes part 0's announcement at the
// source is kept, one per target part, for the announcement to find. Within an announced move, a wrong size, a chunk out of range,
// overlapping what is placed or leaving a gap, data that does not match
// its head, a bad CRC-32C or a lost part aborts the move through part 0,
// with the reason, which part 0 passes on to the move's other part; the
// job goes on where it was. No frame of this module drops a connection: a
// failed move must not end the job.
//
// Nothing here waits on the transport's I/O thread: the frame entry points
// (placePayload, placedFrameArrived, onFrame, partClosed) run there, and
// the caller's threads (announce, ship, waitOutcome, takeLanded) never hold
// the module's lock across a send that may wait for room in a queue.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "transport/FrameTypes.h"
#include "transport/Transport.h"

namespace synergy::cluster {

struct RankMoveAnnouncement {
  uint64_t moveId = 0;
  uint32_t worldRank = 0;
  uint32_t sourcePart = 0;
  uint32_t targetPart = 0;
  uint64_t bytes = 0;
};

// The RankMoveAnnounce payload of `move`, and back (false with `error` when
// the payload is not one: its size, the zero field, the move id).
std::vector<uint8_t> encodeRankMoveAnnouncement(const RankMoveAnnouncement& move);
bool decodeRankMoveAnnouncement(const std::vector<uint8_t>& payload, RankMoveAnnouncement& move,
                                std::string& error);

// One anonymous mapping, unmapped when it goes: where a section lands.
class SectionBuffer {
 public:
  // nullptr with `error` when `bytes` cannot be mapped.
  static std::shared_ptr<SectionBuffer> map(uint64_t bytes, std::string& error);
  ~SectionBuffer();
  SectionBuffer(const SectionBuffer&) = delete;
  SectionBuffer& operator=(const SectionBuffer&) = delete;
  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  SectionBuffer(uint8_t* data, uint64_t size) : data_(data), size_(size) {}
  uint8_t* data_;
  uint64_t size_;
};

enum class MoveState {
  Unknown,    // no announcement of it has come here
  Announced,  // announced; the section is on its way (or not yet sent)
  Landed,     // the target has placed the whole section and checked it
  Aborted,    // off, for `reason`
};

struct MoveOutcome {
  MoveState state = MoveState::Unknown;
  std::string reason;  // Aborted: why
  uint32_t crc = 0;    // Landed: the section's CRC-32C
};

class RankSectionTransfer {
 public:
  // How the module reaches the other parts of the job: `send` and
  // `sendLent` to part `part` (never this one), which may wait for room in
  // the connection's queue; `sendLent` calls `released` once it no longer
  // needs the lent bytes, also when there is no connection. `log` takes one
  // line per dropped frame or aborted move.
  struct Links {
    uint32_t selfPart = 0;
    uint32_t partCount = 0;
    std::function<void(uint32_t part, transport::FrameType type, std::vector<uint8_t> payload)>
        send;
    std::function<void(uint32_t part, std::vector<transport::LentFrame> frames,
                       std::function<void()> released)>
        sendLent;
    std::function<void(const std::string& line)> log;
  };

  // The chunk size ship() uses.
  static constexpr uint64_t kChunkBytes = 8ull << 20;

  explicit RankSectionTransfer(Links links);
  ~RankSectionTransfer();
  RankSectionTransfer(const RankSectionTransfer&) = delete;
  RankSectionTransfer& operator=(const RankSectionTransfer&) = delete;

  // Whether frames of `type` are this module's.
  static bool carries(transport::FrameType type);

  // Part 0 only: announces `move` to its source and target parts (either may
  // be part 0 itself). False with `error` for a move that cannot be: not
  // part 0, a move id used before, parts out of range or equal, a size out
  // of bounds.
  bool announce(const RankMoveAnnouncement& move, std::string& error);

  // The source: ships `size` bytes at `data`, the section of a move part 0
  // announced with this part as its source: now, or once the target has
  // accepted (on the I/O thread). The bytes must stay valid and unchanged
  // until `released` runs (once, on any thread; also when the move ends
  // before they went). A size other than the announced one aborts the move
  // through part 0. False with `error` (and `released` run) when nothing
  // will be sent.
  bool ship(uint64_t moveId, const uint8_t* data, uint64_t size, std::function<void()> released,
            std::string& error);

  // Any part of a move: ends it for `reason` (part 0 tells the others; any
  // other part tells part 0). Nothing when it has already ended.
  void abort(uint64_t moveId, const std::string& reason);

  // The move's outcome as this part knows it, now or once it has ended or
  // `limit` has passed.
  MoveOutcome outcome(uint64_t moveId) const;
  MoveOutcome waitOutcome(uint64_t moveId, std::chrono::milliseconds limit) const;

  // The target, once the move landed: its section, which the module gives
  // up (nullptr when it has not landed here or was taken), and in
  // `computedCrc` (when given) the CRC-32C of its bytes before the last
  // four, computed here chunk by chunk as they were placed.
  std::shared_ptr<SectionBuffer> takeLanded(uint64_t moveId, uint32_t* computedCrc = nullptr);

  // The transport's entry points (MpiPeerLink.cpp), for frames of carries()
  // types from part `fromPart`. placePayload returns where a RankSectionData
  // payload goes, or null to have it come to onFrame as an ordinary frame.
  uint8_t* placePayload(uint32_t fromPart, transport::FrameType type, uint64_t bytes);
  void placedFrameArrived(uint32_t fromPart, transport::FrameType type, uint64_t bytes);
  void onFrame(uint32_t fromPart, transport::FrameType type, const std::vector<uint8_t>& payload);
  // The connection to `part` has closed: moves that need it are aborted.
  void partClosed(uint32_t part);

 private:
  struct Move;
  struct Incoming;
  // What a locked step decided to send once the lock is let go: a frame,
  // or (`run` set) a section's chunks or the release of its lent bytes.
  struct Outgoing {
    uint32_t part;
    transport::FrameType type;
    std::vector<uint8_t> payload;
    std::function<void()> run;
  };

  void onAnnounce(uint32_t fromPart, const std::vector<uint8_t>& payload,
                  std::vector<Outgoing>& out);
  void onAccept(uint32_t fromPart, const std::vector<uint8_t>& payload,
                std::vector<Outgoing>& out);
  // Queues the source's chunks once the move is both shipped and accepted.
  void sendWhenAccepted(Move& move, std::vector<Outgoing>& out);
  void onHead(uint32_t fromPart, const std::vector<uint8_t>& payload, std::vector<Outgoing>& out);
  void onUnplacedData(uint32_t fromPart, uint64_t bytes, std::vector<Outgoing>& out);
  void onLanded(uint32_t fromPart, const std::vector<uint8_t>& payload,
                std::vector<Outgoing>& out);
  void onAbort(uint32_t fromPart, const std::vector<uint8_t>& payload, std::vector<Outgoing>& out);
  void finishPlacing(Move& move, std::vector<Outgoing>& out);
  // Ends `move` here for `reason`; part 0 tells the move's parts other than
  // `skip`, any other part tells part 0. Caller holds mutex_.
  void endMove(Move& move, const std::string& reason, uint32_t skip, std::vector<Outgoing>& out);
  void dropped(const std::string& line);
  void flush(std::vector<Outgoing>& out);

  Links links_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<uint64_t, std::unique_ptr<Move>> moves_;
  // Per source part, the move whose section it is sending here, and the
  // chunk whose head came last.
  std::vector<std::unique_ptr<Incoming>> incoming_;
  // Per target part, the move it accepted before this part, its source,
  // heard part 0 announce it (0: none).
  std::vector<uint64_t> earlyAccepts_;
};

}  // namespace synergy::cluster
