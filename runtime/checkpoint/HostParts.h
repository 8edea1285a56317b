//===- HostParts.h - the other hosts of a job a checkpoint must agree with -===//
//
// A job spread over hosts runs as one process per host, each with a
// CheckpointCoordinator for its own ranks (cluster/MpiPeerLink.h). A
// checkpoint is the job's, not a host's: every part must suspend at the
// same control point or none, with no MPI frame between hosts in flight,
// and the file must hold every rank of one and the same cut. The
// coordinator asks this interface, implemented over the transport by
// cluster/CheckpointAgreement.h, for both; the decision and the commit are
// taken by part 0 (the part that holds world rank 0), the same for every
// part.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/CheckpointFile.h"
#include "checkpoint/RankMove.h"

namespace synergy::checkpoint {

class HostParts {
 public:
  virtual ~HostParts() = default;
  // This process's part, and the part of each world rank, in rank order
  // (a part's ranks need not be consecutive).
  virtual uint32_t partIndex() const = 0;
  virtual std::vector<uint32_t> partOfRanks() const = 0;
  // The cluster job this run is (PartOutput::jobId).
  virtual uint64_t jobId() const = 0;
  // Called by every rank of this part at each barrier control point of a
  // job that checkpoints at an interval, before it stands still there:
  // whether the job's ranks meet at this one, the `controlPoint`th of
  // world rank `worldRank` (counted from 1: every rank goes through the
  // same ones, collectives on MPI_COMM_WORLD), to agree. Part 0 names the
  // meeting when `due` (its checkpoint has fallen due) or a migration
  // applies; at any other control point no rank waits for another (see
  // cluster/CheckpointAgreement.h). A wait here counts as blocked for the
  // job's deadlock check; false when the job ended meanwhile.
  virtual bool meetsAt(int worldRank, uint64_t controlPoint, bool due) = 0;
  // Called by this part's last rank to reach a control point where the
  // job's ranks meet (every one at an interval of 0, else those meetsAt
  // named), the `controlPoint`th, world rank
  // `worldRank`, while every rank of the part stands there; its wait for
  // the other parts counts as blocked for the job's deadlock check, as its
  // part's other ranks' waits do. `due` (part 0's counts), whether every
  // rank here can suspend and no message waits here (`why` when not).
  // Blocks until part 0 has decided for the whole job and returns that
  // decision. `sequence` comes in as this part's next checkpoint number
  // (part 0's becomes the job's) and goes out as the job's; `why` goes out
  // as part 0's reason not to suspend (empty when the checkpoint was not
  // due); `aborted` is set when the job ended meanwhile.
  // `canMoveLive`: no rank can suspend for a checkpoint only because one's
  // output ends mid-line (`why`), which a live move does not mind (its
  // rank carries its unfinished lines); true whenever `canSuspend` is.
  virtual bool agree(int worldRank, uint64_t controlPoint, bool due, bool canSuspend,
                     bool canMoveLive, std::string& why, uint64_t& sequence,
                     bool& aborted) = 0;
  // A part other than 0 whose hosts share no checkpoint directory, before
  // partWritten: sends its part file of checkpoint `sequence`, the
  // `pieces` back to back, to part 0 (PartFileChunks.h).
  virtual void sendPartFile(uint64_t sequence, const std::vector<std::string_view>& pieces) {
    (void)sequence;
    (void)pieces;
  }
  // Part 0, after gatherWritten: part `part`'s file of checkpoint
  // `sequence` as it was sent whole, given up; nullopt when it was not
  // sent (part 0 then reads it from the shared directory).
  virtual std::optional<std::string> receivedPartFile(uint32_t part, uint64_t sequence) {
    (void)part;
    (void)sequence;
    return std::nullopt;
  }
  // Part 0 whose hosts share no checkpoint directory, once it has
  // committed checkpoint `sequence`, whose bytes are `file` and whose
  // parts' stdout counts are `outputs`: has a part on another host write a
  // copy and waits for it, then records where the copies are and the
  // counts (for a restart elsewhere); false with `error` when no copy was
  // written (the checkpoint then does not count as committed). True at
  // once when there is no other host.
  virtual bool copyCommitted(uint64_t sequence, std::string_view file,
                             const std::vector<PartOutput>& outputs, std::string& error) {
    (void)sequence;
    (void)file;
    (void)outputs;
    (void)error;
    return true;
  }
  // A part other than 0: its sections of checkpoint `sequence` are on disk
  // (`written`) or could not be written, with its stdout count.
  virtual void partWritten(uint64_t sequence, bool written, const PartOutput& output) = 0;
  // Part 0: waits for every other part's partWritten of `sequence`; false
  // with `error` when one could not write or the job is ending.
  virtual bool gatherWritten(uint64_t sequence, std::vector<PartOutput>& outputs,
                             std::string& error) = 0;
  // Every part, once checkpoint `sequence` of this round is queued for
  // writing: `awaitCommitted` waits until this part's share of it is
  // written and says whether it was (part 0: the file is committed). A
  // suspension taken to move ranks (cluster/Migration.h) waits for it and
  // may end the process here instead of returning; any other returns at
  // once, its write going on in the background.
  virtual void checkpointOver(uint64_t sequence, const std::function<bool()>& awaitCommitted) {
    (void)sequence;
    (void)awaitCommitted;
  }
  // A live move between parts (issue 22, cluster/CheckpointAgreement.h's
  // live round), on the part the rank departs from. `bytes` is the
  // departing rank's state (checkpoint/RankMove.h), empty when the move is
  // not taken (`why`), left in `leftMs`: part 0 hears of it and announces
  // its shipping, and the bytes are lent to the transport from where they
  // lie, so they must stay unchanged until awaitDeparture has returned.
  virtual void departed(int worldRank, std::string_view bytes, double leftMs,
                        const std::string& why) {
    (void)worldRank;
    (void)bytes;
    (void)leftMs;
    (void)why;
  }
  // The same part, on the departed rank's arrival thread: waits for part
  // 0's word on the move and for the transport to give the bytes back.
  // True with `leaves` set when the rank now runs on the target part (its
  // bytes are no longer needed here); true with `leaves` clear when the
  // move was not taken and the rank arrives here again from its bytes;
  // false with `error` when the job ended meanwhile.
  virtual bool awaitDeparture(int worldRank, bool& leaves, std::string& error) {
    (void)worldRank;
    leaves = false;
    (void)error;
    return true;
  }
  // The live move's target part, after agree() returned for the round the
  // move was taken at: the rank it is to take in and its departing bytes
  // (checkpoint/RankMove.h, checked already), once; false when none.
  virtual bool takeArrivingRank(int& worldRank, DepartingBytes& bytes) {
    (void)worldRank;
    (void)bytes;
    return false;
  }
  // A live move's rank's unfinished last output lines (stdout, stderr),
  // which its source's launcher kept back when it departed: the source
  // sends them to the target before the rank's bytes (sendOutputTails),
  // and the target's launcher starts the rank's streams with them
  // (takeOutputTails, once takeArrivingRank has given the rank; false when
  // none came for it).
  virtual void sendOutputTails(int worldRank, const std::array<std::string, 2>& tails) {
    (void)worldRank;
    (void)tails;
  }
  virtual bool takeOutputTails(int worldRank, std::array<std::string, 2>& tails) {
    (void)worldRank;
    (void)tails;
    return false;
  }
};

}  // namespace synergy::checkpoint
