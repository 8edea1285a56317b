//===- OutputNotes.h - a moved rank's output order, daemon -> client ------===//
//
// A rank that moves live from part S to part T of a spread job (issue 22)
// printed its earlier lines through S's launcher, S's daemon and S's
// connection to the client, and prints its later ones through T's. The two
// connections are not ordered, so without more the client could print the
// rank's first lines after the move before its last ones before it (a busy
// source daemon, a slow link). Three steps keep the order an undisturbed
// run has:
//
//  - S, once the rank has left it for good (its whole lines forwarded to
//    the launcher's stdout and stderr, its unfinished ones sent to T as
//    RankOutputTails), notes a mark to its daemon. The daemon first sends
//    everything the part wrote to its pipes until then (it drains them),
//    then an OutputMark frame (76) to the client.
//  - T, before it takes the rank in (before any of the rank's bytes reach
//    its pipes), notes a hold and waits until its daemon says it has sent
//    an OutputHold frame (77) naming the rank and S. Every byte of the rank
//    on T therefore comes after the hold on T's connection.
//  - The client queues T's output (and its exit) from the hold on until it
//    has printed all of S's output up to the mark (OutputOrder below), then
//    prints what it held, in order. T's other ranks wait with it; that only
//    delays them, as no order between ranks is promised.
//
// A hold is bounded: it ends at S's mark, at S's exit (nothing more comes
// from S), when S's connection is lost (the job then fails or restarts as
// before, and everything received is printed as before), after
// kMaxOutputHoldSeconds, or once kMaxHeldOutputBytes are held; the last two
// note on stderr that the order may not be kept.
//
// The part -> daemon notes travel on a socket the daemon gives every
// synergy-run it starts (its number in kOutputNotesEnv), not in the output
// pipes, which carry the job's bytes as they are. A note is 12 bytes:
//   u8 kind (kOutputNoteMark or kOutputNoteHold), 3 zero bytes,
//   u32 world rank, u32 source part (0 for a mark)
// and the daemon answers a hold with one byte (kOutputHoldSent).
// The frames: OutputMark u64 job id, u32 world rank; OutputHold u64 job id,
// u32 world rank, u32 source part. Every decoder here takes hostile bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "transport/Transport.h"

namespace synergy::cluster {

inline constexpr const char* kOutputNotesEnv = "SYNERGY_OUTPUT_NOTES_FD";
constexpr size_t kOutputNoteBytes = 12;
constexpr uint8_t kOutputNoteMark = 1;
constexpr uint8_t kOutputNoteHold = 2;
constexpr uint8_t kOutputHoldSent = 'H';
// How long a part waits for its daemon to confirm a hold.
constexpr auto kOutputHoldAckWait = std::chrono::seconds(5);
constexpr double kMaxOutputHoldSeconds = 10.0;
constexpr size_t kMaxHeldOutputBytes = size_t(64) << 20;

struct OutputNote {
  uint8_t kind = 0;
  uint32_t worldRank = 0;
  uint32_t sourcePart = 0;
};

std::vector<uint8_t> encodeOutputNote(const OutputNote& note);
// False for an unknown kind, nonzero padding or a mark naming a part.
bool decodeOutputNote(const uint8_t* bytes, OutputNote& note);

std::vector<uint8_t> encodeOutputMark(uint64_t jobId, uint32_t worldRank);
std::vector<uint8_t> encodeOutputHold(uint64_t jobId, uint32_t worldRank, uint32_t sourcePart);
// The client's checks: the exact size, its own job, a rank of the job's
// `ranks`, and for a hold a source among the job's `parts` other than
// `fromPart`, the part whose connection brought it. False with a one-line
// `reason` otherwise.
bool decodeOutputMark(const std::vector<uint8_t>& payload, uint64_t jobId, uint32_t ranks,
                      uint32_t& worldRank, std::string& reason);
bool decodeOutputHold(const std::vector<uint8_t>& payload, uint64_t jobId, uint32_t ranks,
                      uint32_t parts, uint32_t fromPart, uint32_t& worldRank,
                      uint32_t& sourcePart, std::string& reason);

// In a job's launcher: the notes above, to the daemon that started it. Both
// do nothing when it was not started by a daemon.
void noteOutputMark(uint32_t worldRank);
// False with `error` when the daemon did not confirm in kOutputHoldAckWait
// (the rank's lines may then come out of order; nothing else changes).
bool noteOutputHold(uint32_t worldRank, uint32_t sourcePart, std::string& error);

// The client's side: each part's JobOutput and JobExit frames in the order
// they arrived, delivered at once unless the part is held, and the marks
// and holds among them (checked by the decoders above).
class OutputOrder {
 public:
  using Deliver = std::function<void(size_t part, transport::Frame&& frame)>;
  OutputOrder(size_t parts, Deliver deliver);

  void output(size_t part, transport::Frame&& frame);
  void mark(size_t part, uint32_t worldRank);
  void hold(size_t part, uint32_t worldRank, uint32_t sourcePart);
  // Part `part`'s connection is gone: no mark can come from it.
  void lost(size_t part);
  // Ends the holds older than kMaxOutputHoldSeconds; returns a note for each.
  std::vector<std::string> expire(std::chrono::steady_clock::time_point now);
  // Delivers everything held, in each part's order, and every frame after
  // this at once (the job's outcome is known).
  void releaseAll();
  bool holding(size_t part) const { return parts_[part].hold.has_value(); }

 private:
  struct Entry {
    enum Kind { Frame, Mark, Hold } kind = Frame;
    transport::Frame frame;
    uint32_t worldRank = 0, sourcePart = 0;
  };
  struct Hold {
    uint32_t worldRank = 0, sourcePart = 0;
    std::chrono::steady_clock::time_point since;
  };
  struct Part {
    std::deque<Entry> queue;
    size_t queuedBytes = 0;
    std::optional<Hold> hold;
    bool done = false;  // exited or lost: nothing more comes from it
  };
  void take(size_t part, Entry&& entry);
  void apply(size_t part, Entry&& entry);
  void pump();

  std::vector<Part> parts_;
  // Marks not yet matched by a hold: (source part, world rank) -> count.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> marks_;
  Deliver deliver_;
  bool released_ = false;
  bool pumping_ = false, again_ = false;
  std::vector<std::string> notes_;
};

}  // namespace synergy::cluster
