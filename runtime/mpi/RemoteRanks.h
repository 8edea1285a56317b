//===- RemoteRanks.h - the ranks of a job that run on other hosts ---------===//
//
// When a job's ranks are spread over several hosts, each host runs its own
// ranks in one process with a World of the job's full size; the others are
// remote. This narrow interface is what the MPI runtime asks of whatever
// carries messages between hosts (the cluster layer implements it over the
// transport), so that mpi stays below transport and cluster: the World
// hands it a message for a remote rank together with a function that packs
// the data straight into the outgoing frame, and the implementation calls
// World::deliverRemote() and World::remoteSendMatched() for what arrives.
//
// A remote buffered send, and a small or scattered standard one, completes
// once its data is packed into the frame; a large standard send whose data
// lies in a few places lends them to the link (sendInPlace) and completes
// when the link has written it, which takes no copy and keeps no second
// image of the data; a remote synchronous send completes when the
// receiving host reports that it matched a receive. The link may make a
// sending rank wait while its queue to the other host is full.
//
// A message of at least the rendezvous threshold goes differently
// (RemoteRendezvous.cpp): only its envelope crosses first
// (sendRequestToSend), and its data follows once the receiving host has
// matched it with a receive and says where the data goes (clearToSend,
// sendRendezvousData), so that no host ever holds such a message's data
// unexpected.
//
// Smaller messages are bounded by credit (eagerCreditCharge): each host
// grants each other host a number of eager bytes that its ranks have not
// received yet. A sender takes credit for each message it sends eagerly
// (takeEagerCredit) and, when too little is left, sends that message by
// rendezvous instead; the receiving host gives the bytes back as its ranks
// receive them (returnEagerCredit). No sender ever waits for credit, so
// the receiving host never stops reading: a rendezvous needs no buffer
// there, and rendezvous data that a posted receive waits for may sit
// behind any number of eager frames on the same connection.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mpi/Datatype.h"
#include "mpi/MessageRing.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

// The routing part of a message that crosses hosts.
struct RemoteMessage {
  int from = 0;  // the sender's world rank
  int to = 0;    // the receiver's world rank
  Envelope envelope;
  // Nonzero for a synchronous send: the receiving host acknowledges the
  // match with this id, which names the send on the sending host.
  uint64_t matchId = 0;
};

// Bytes of a send's buffer that the link reads in place: a large send whose
// type lays its data out in a few places lends each of them.
struct LentData {
  const uint8_t* data = nullptr;
  int64_t bytes = 0;
};

// The eager bytes a message from another host charges against the credit
// its receiving host granted: those that host keeps in a buffer of their
// own until a receive takes them (World::deliverRemote), which is every
// eager message but a standard one of at most a ring slot's inline bytes,
// copied into the receiver's ring as a local one is.
inline int64_t eagerCreditCharge(int64_t bytes, bool synchronous) {
  return synchronous || bytes > MessageRing::kInlineBytes ? bytes : 0;
}

// The one-sided operations a rank sends to a window member on another
// host (RemoteWindows.cpp). The wire values are fixed: they travel in
// MpiRma frames.
enum class RmaKind : uint8_t {
  Put = 1,             // write the data
  Get = 2,             // reply with the target's contents
  Accumulate = 3,      // apply op with the data
  GetAccumulate = 4,   // reply with the old contents, then apply op
  CompareAndSwap = 5,  // data: the new value then the compared one
  // Passive target: take the target's lock (done once granted) and let
  // go of it. No runs, no data.
  LockShared = 6,
  LockExclusive = 7,
  UnlockShared = 8,
  UnlockExclusive = 9,
  // General active target, from a member to a member of another host: the
  // sender (in `origin`) posted an exposure epoch to the receiver (in
  // `target`), or completed its access epoch to it. No runs, no data.
  ExposureGrant = 10,
  AccessCompletion = 11,
};

// A one-sided operation on the part of a window that a rank on another
// host holds. `runs` are the byte ranges it touches in the target's window
// memory, as offsets from the window's base, in the order of the data.
struct RemoteRmaOp {
  int origin = 0;  // world ranks
  int target = 0;
  uint64_t window = 0;  // the id every host knows the window by
  uint64_t id = 0;      // names the operation on the origin's host
  RmaKind kind = RmaKind::Put;
  ElementKind element = ElementKind::None;  // accumulates: what op acts on
  int op = 0;
  std::vector<TypeSegment> runs;
  int64_t dataBytes = 0;  // what follows the runs in the frame
};

// The first line of a deadlock report, on one host or over several.
inline constexpr const char* kDeadlockReportHeading =
    "deadlock: every running rank is blocked and no message can arrive";

// What this host's ranks are doing, for the deadlock check of a job spread
// over hosts (RemoteRanks::checkJobDeadlock).
struct HostQuietState {
  // Every rank of this host has started, and each has finished or sleeps
  // blocked in an MPI call.
  bool quiet = false;
  // Every rank of this host has finished.
  bool finished = false;
  // Changes whenever a rank of this host makes progress.
  uint64_t progress = 0;
  // While quiet: each rank of this host, in order, with what it waits in
  // (the single-host report's words: "blocked in MPI_Recv (...)", "finished").
  std::vector<std::pair<int, std::string>> waits;
};

class RemoteRanks {
 public:
  virtual ~RemoteRanks() = default;
  // Queues `message` for its remote receiver; `pack` writes its
  // envelope.bytes data bytes to the address it is given. Called on the
  // sending rank's thread.
  virtual void send(const RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) = 0;
  // send(), for a nonblocking send of a rank that may post more at once:
  // the message may wait, batched with the sends that follow it, until
  // publishBatched(), which the sending rank calls before its next call
  // that is not a nonblocking send and at its end. It never waits behind
  // a later message: any other send to its host goes after it.
  virtual void sendBatched(const RemoteMessage& message, util::FunctionRef<void(uint8_t*)> pack) {
    send(message, pack);
  }
  virtual void publishBatched() {}
  // Queues `message` with its envelope.bytes data bytes read in place from
  // `pieces`, in order, which must stay unchanged until `written` has run.
  // `written` runs once, on the link's thread, when the data has been
  // written out (or can no longer be). Called on the sending rank's thread.
  virtual void sendInPlace(const RemoteMessage& message, const std::vector<LentData>& pieces,
                           std::function<void()> written) = 0;
  // Tells the host of world rank `sender` that its synchronous send
  // `matchId` matched, and gives back the `creditBytes` of eager credit
  // the message charged (0 for none), with whatever else its host is owed,
  // in the same frame. Called on the receiving rank's thread.
  virtual void acknowledgeMatch(int sender, uint64_t matchId, int64_t creditBytes) = 0;
  // Rendezvous. Queues the envelope of `message`, whose sender waits under
  // id message.matchId (nonzero) for the receiving host to clear it.
  // Called on the sending rank's thread.
  virtual void sendRequestToSend(const RemoteMessage& message) = 0;
  // Tells the host of world rank `sender` that the receive of local rank
  // `receiver` matched its rendezvous send `sendId`, and waits for the data
  // under `receiveId`. Called on the receiving rank's thread.
  virtual void clearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId) = 0;
  // Queues the `bytes` of data at `data` for receive `receiveId` of remote
  // rank `receiver`, read in place as in sendInPlace(); `written` runs once
  // they are written out. Called on the link's receiving thread.
  virtual void sendRendezvousData(int receiver, uint64_t receiveId, const uint8_t* data,
                                  int64_t bytes, std::function<void()> written) = 0;
  // Eager credit. Takes `bytes` (eagerCreditCharge) of what the host of
  // world rank `receiver` granted this one; false, taking nothing, when
  // less is left. Called on the sending rank's thread.
  virtual bool takeEagerCredit(int receiver, int64_t bytes) = 0;
  // A local rank received eager data of `bytes` charged by remote rank
  // `sender`: they go back to its host, at once or with later ones. Called
  // on the receiving rank's thread.
  virtual void returnEagerCredit(int sender, int64_t bytes) = 0;
  // Tells every other host that the job aborted here with `status`, so that
  // their ranks stop as well. Called once, by World::abort().
  virtual void abortJob(int status) = 0;
  // The host (an index the same on every host of the job) of a world rank.
  virtual int hostOf(int worldRank) const = 0;
  // The largest message data send() carries.
  virtual int64_t maxMessageBytes() const = 0;
  // Queues one-sided operation `op` for the host of its target; `pack`
  // writes its op.dataBytes data bytes. Called on the origin rank's thread.
  virtual void sendRma(const RemoteRmaOp& op, util::FunctionRef<void(uint8_t*)> pack) = 0;
  // Tells the host of world rank `origin` that its operation `id` was
  // applied, with the `bytes` of target contents it fetched. Called on the
  // link's receiving thread.
  virtual void rmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes) = 0;
  // The most bytes one sendRma() carries (its data and 16 bytes a run),
  // and the most rmaDone() returns.
  virtual int64_t maxRmaBytes() const = 0;
  // Called by the launcher's watchdog on every tick: the job-wide deadlock
  // report (World::checkDeadlock's words, every rank of the job in order)
  // when every host has been quiet (World::hostQuietState), with no message
  // between hosts in flight and nothing changing, for `stableTicks` calls,
  // every host has confirmed that since, and this host is the one to
  // report it; nullopt otherwise.
  virtual std::optional<std::string> checkJobDeadlock(int stableTicks) = 0;
  // Called on a rank's thread while it polls for what it waits for: takes
  // in, on this thread, whatever has arrived from other hosts (delivering
  // it as the link's receiving thread would), so that a message reaches a
  // polling rank without a second thread waking first. Never blocks.
  virtual void receiveWhileWaiting() {}
  // Bracket a poll in which a rank's thread calls receiveWhileWaiting()
  // again and again: until the last such poll on this host has stopped,
  // what arrives from other hosts is left to the polling threads, without
  // waking the link's receiving thread. A poll must be short (the ranks'
  // poll budget). Pairs may overlap across threads. A stop with
  // `mayLinger` (the rank found what it waited for and will poll again
  // soon) may leave them to the polling threads a little longer: a rank
  // that sleeps next must stop without it.
  virtual void startPolling() {}
  virtual void stopPolling(bool mayLinger) { (void)mayLinger; }
};

}  // namespace synergy::mpi
