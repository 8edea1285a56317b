//===- MpiPeerLink.h - Cross-host MPI messages over the transport ---------===//
//
// The cluster layer's implementation of mpi::RemoteRanks, for the process
// that runs one part of a job spread over several hosts (JobPart.h). It
// listens on its host's address, publishes that endpoint in the cluster
// state, waits for every other part's endpoint, and keeps one
// authenticated connection to each other part: the part with the lower
// index connects and introduces itself with MpiHello. Once joined, it
// learns from the parts' addresses whether its ranks may spin while they
// wait (CpuSharing.h). Messages travel as
// MpiMessage frames (FrameTypes.h) whose data the sending rank packs
// straight into the frame, or which the transport writes from the sender's
// own buffer (sendInPlace), and are injected into the receiving rank's
// Mailbox on the transport's I/O thread, in the order they were sent. A
// message larger than one frame goes as a MpiMessageHead and the
// MpiMessagePart frames of its data, back to back on the connection; the
// receiver gathers them into one buffer, which grows only as data arrives.
// A message of at least the rendezvous threshold sends its envelope first
// (MpiRequestToSend); the receiving part answers MpiClearToSend once a
// receive matched it, and the data follows as MpiRendezvousData and
// MpiMessagePart frames, placed straight where the receive wants it
// (mpi/RemoteRendezvous.cpp). The copied messages of a rank's nonblocking
// sends are packed into the connection's batch (sendBatched,
// transport::Connection::sendBatched), written when the rank makes any
// other call (publishBatched) or the batch fills: a window of short
// MPI_Isends then costs one write and one read instead of one each.
//
// Eager credit (mpi/RemoteRanks.h): each part grants every other part
// SYNERGY_MPI_EAGER_CREDIT_BYTES (16 MiB by default) in a MpiEagerGrant
// right after the MpiHello, and join() waits for every grant. The eager
// bytes a part holds from another and no receive has taken stay within
// its grant: a MpiMessage or MpiMessageHead beyond it drops the
// connection, before any buffer is made for it. Credit goes back in
// MpiEagerCredit frames; one that returns more than is out, or a second
// grant, drops the connection as well.
//
// A rank that polls for what it waits for reads the connections itself
// (RemoteRanks::receiveWhileWaiting, transport::Transport::receiveHere),
// so that a message from another host reaches it without the I/O thread
// waking first and then waking it; while it polls, arrivals do not wake
// the I/O thread at all (RemoteRanks::startPolling,
// transport::Transport::startReadingHere). It handles only messages, rendezvous
// steps, match acknowledgements and credit there; any other frame, and
// all frames while no rank polls, are read on the I/O thread. The state
// both touch (a part's split message, its credit) belongs to one
// connection, which one thread reads at a time.
//
// Every received frame is checked before use: a sender that is not a rank
// of the connection's part, a receiver that is not a rank of this part (by
// the job's rank -> part table, RankRoutes.h, which also routes every frame
// a part sends), a short header, an unknown match id, or a split message
// whose length is out of bounds or whose parts do not add up drops the
// connection with a logged reason; so does a rendezvous frame whose send or
// receive id, size, ranks or host no waiting send or receive of this part
// has.
//
// One-sided operations on window members of another part travel as MpiRma
// frames, applied by the World on the I/O thread, and are answered with
// MpiRmaDone; a frame whose runs, sizes, kind or ranks do not check out
// drops the connection like any other.
//
// Deadlock: each part sends every other one that has not finished a
// MpiHostState whenever its own state changes (its ranks all blocked or not, their progress, the MPI
// frames it has sent to and received from other parts) and once more, all
// finished, when it leaves. The job is deadlocked when every part is quiet,
// the frames sent add up to the frames received (so none is in flight),
// and no part's state has changed for as many watchdog ticks as a single
// host waits. The first part whose ranks have not all finished then asks
// every other unfinished part to confirm that its state is still the one
// it last sent (MpiStateCheck, answered on the I/O thread, which runs even
// when a loaded host's watchdog is late); only when all do does it abort
// the job with the single-host report, every rank's wait in order. A rank
// that is taking a message into its receive buffer is busy, not blocked
// (World::hostQuietState), however long that copy takes.
//
// A live move's rank section travels over the same connections
// (RankSectionTransfer.h), whose frames go to it before any other handler,
// on the I/O thread, and count neither as sent nor as received MPI frames.
//
// A job that checkpoints agrees on its suspensions over the same
// connections (CheckpointAgreement.h): its Checkpoint* and Migration*
// frames go to the handler passed to join(), on the I/O thread, and count
// neither as sent nor as received MPI frames.
//
// The rank -> part table (RankRoutes.h) may change while the job runs:
// part 0 switches every part's table inside the checkpoint agreement, all
// parts held at one control point (switchRoutes, RouteSwitch.h). The table
// in force sits behind an atomic pointer, as World's remote flags do
// (World::switchRemoteRanks): sends and receives read it without a lock.
// A RouteSwitch that is not from part 0, is malformed, or names a control
// point this part is not held at is dropped with a note (the connection
// stays); so is an answer to no switch under way.
//
// When one part aborts, it sends MpiAbort with its exit status to every
// other part, which stops its ranks with the same status: every part then
// ends by itself, and forwards all its output, instead of being killed by
// its daemon while ranks wait for a host that has gone. A connection to
// another part that closes before that part said it finished (a frame
// this part refused, or the other part or its host gone) ends the job
// the same way, with status 2 and one line naming that part's host and
// ranks and the reason: those ranks can no longer send.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/JobPart.h"
#include "mpi/MpiJob.h"
#include "mpi/RemoteRanks.h"
#include "transport/FrameTypes.h"

namespace synergy::mpi {
class World;
}
namespace synergy::cluster {
struct PartCheckpointing;
class RankSectionTransfer;
}

namespace synergy::cluster {

class MpiPeerLink final : public mpi::RemoteRanks {
 public:
  // The Checkpoint* frames' handler (false with `reason` drops the
  // connection). Without one such a frame drops the connection.
  using CheckpointFrames = std::function<bool(uint32_t part, transport::FrameType type,
                                              const std::vector<uint8_t>& payload,
                                              std::string& reason)>;
  // Connects this part of the job to all others and attaches the link to
  // `world`, whose size must be the job's; a job that checkpoints passes
  // its `checkpointFrames` handler, in place before any connection, since
  // another part's ranks may vote as soon as one is up. On failure returns
  // nullptr with a one-line `error` (unreachable state, a part that does
  // not come up within the time limit, a bad token file).
  static std::unique_ptr<MpiPeerLink> join(const JobPart& part, mpi::World& world,
                                           std::string& error,
                                           CheckpointFrames checkpointFrames = {});
  ~MpiPeerLink() override;

  void send(const mpi::RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) override;
  void sendBatched(const mpi::RemoteMessage& message,
                   util::FunctionRef<void(uint8_t*)> pack) override;
  void publishBatched() override;
  void sendInPlace(const mpi::RemoteMessage& message, const std::vector<mpi::LentData>& pieces,
                   std::function<void()> written) override;
  void sendRequestToSend(const mpi::RemoteMessage& message) override;
  void clearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId) override;
  void sendRendezvousData(int receiver, uint64_t receiveId, const uint8_t* data, int64_t bytes,
                          std::function<void()> written) override;
  bool takeEagerCredit(int receiver, int64_t bytes) override;
  void returnEagerCredit(int sender, int64_t bytes) override;
  void acknowledgeMatch(int sender, uint64_t matchId, int64_t creditBytes) override;
  void abortJob(int status) override;
  int hostOf(int worldRank) const override;
  int64_t maxMessageBytes() const override;
  void sendRma(const mpi::RemoteRmaOp& op, util::FunctionRef<void(uint8_t*)> pack) override;
  void rmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes) override;
  int64_t maxRmaBytes() const override;
  std::optional<std::string> checkJobDeadlock(int stableTicks) override;
  void receiveWhileWaiting() override;
  void startPolling() override;
  void stopPolling(bool mayLinger) override;

  void sendToPart(uint32_t part, transport::FrameType type, std::vector<uint8_t> payload);
  // The route switch (RouteSwitch.h), part 0's, inside the checkpoint
  // agreement while every part is held at control point `round`: checks
  // `partOfRank` (a part for every rank, parts that exist and have not
  // left, and no rank moved while `inFlight` says a message or eager
  // credit may still travel between the parts; empty: nothing does),
  // applies it here, sends it to every other part and waits for each
  // answer (at most 60 s; a part that leaves or an abort ends the wait).
  // On any refusal every part, this one too, goes back to the old table,
  // and it returns false with `why`.
  bool switchRoutes(uint64_t moveId, uint64_t round, const std::vector<uint32_t>& partOfRank,
                    const std::string& inFlight, std::string& why);
  // Whether a switch at control point `round` may move rank `rank` to or
  // away from this part: only the live move that has landed and been
  // checked there (CheckpointAgreement's), whose rank has been shipped.
  // Without it a part refuses any table that changes its own ranks.
  void setRouteMoveAllowance(std::function<bool(uint64_t round, uint32_t rank)> allowed);
  // Every part's: `gate(round)` says why this part is not held at control
  // point `round` (empty: it is), on the I/O thread; a RouteSwitch it
  // refuses is dropped with that reason. `refusal(round)`, when set (a
  // test hook), is a reason to refuse a switch this part would take.
  void setRouteGate(std::function<std::string(uint64_t)> gate,
                    std::function<std::string(uint64_t)> refusal = {});
  // The rank -> part table in force.
  std::vector<uint32_t> partOfRanks() const;
  // Ships a live move's rank section between the parts (RankSectionTransfer.h);
  // its frames reach it from every other part once join() has succeeded.
  RankSectionTransfer& sectionTransfer();
  // The MPI frames this part has sent to and received from the others.
  uint64_t framesSent() const;
  uint64_t framesReceived() const;
  // Whether the connection to `part` has closed (that part left the job,
  // finished or not, or its host went): a frame sent to it now is lost.
  bool partClosed(uint32_t part) const;
  // The messages this part sent by rendezvous for want of eager credit.
  uint64_t eagerCreditShortfalls() const;
  // The MpiEagerCredit frames this part sent: the credit that went back
  // other than with a synchronous send's acknowledgement.
  uint64_t eagerCreditFramesSent() const;

  // Delivers nothing more to the World and answers no more clear-to-send,
  // so that the World may go while the other hosts still send; tells the
  // others this part has finished, then writes out every queued frame:
  // called once this host's ranks no longer run.
  void leave();

  class Impl;

 private:
  explicit MpiPeerLink(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Runs this host's part of a spread job, described by the job part file at
// `partFile` (`synergy-run --cluster-part FILE -np N`, which synergyd
// starts): `job` with the part's ranks, joined to the other hosts. Returns
// the exit status; a bad file or a failed join is reported on stderr with
// status 2.
// With `checkpoints` (non-null), the part checkpoints with the others
// (CheckpointAgreement.h).
int runJobPart(const std::string& partFile, mpi::JobOptions job,
               const PartCheckpointing* checkpoints = nullptr);

}  // namespace synergy::cluster
