//===- World.h - the shared state of one MPI job on this host -------------===//
//
// Everything the ranks of a job share: communicators, one mailbox per rank,
// the blocking machinery, and the job's fate (running, aborted, deadlocked).
// In a job spread over several hosts, the World of each host has the job's
// full size, runs only its own ranks, and reaches the others through
// RemoteRanks (RemoteDelivery.cpp).
//
// Point-to-point messages go through each receiver's Mailbox: a lock-free
// ring per sender, drained and matched by the receiver itself whenever it
// posts a receive, tests, probes or waits (for anything, collectives
// included, so that rendezvous senders never wait on a busy receiver).
// Small standard sends are copied into the ring (eager) and complete at
// once; large and synchronous ones stay in the sender's memory and are
// copied once, straight into the receive buffer, when they match
// (rendezvous).
//
// Collectives use a per-communicator arrival barrier: every member posts a
// Contribution naming its buffers, waits until all have posted, moves the
// data it needs straight out of the other ranks' memories, and waits again
// before returning so nobody reuses a buffer that is still being read.
//
// Waiting ranks poll (spin or yield) and then sleep on their own condition
// variable. A waker that changed something lock-free looks at the
// sleeper's flag and takes the world lock only when the rank is really
// asleep, so the fast path of a message takes no lock at all (and, where
// the kernel has membarrier(2), no fence: the sleeper fences for it).
// Every wake-up of a sleeper bumps an epoch counter, which is how the
// launcher's watchdog tells "every rank blocked forever" from "every rank
// blocked a moment".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mpi/Datatype.h"
#include "mpi/Mailbox.h"
#include "mpi/RankCallLock.h"
#include "mpi/RemoteRanks.h"
#include "util/AdaptiveMutex.h"
#include "util/FunctionRef.h"

namespace synergy::granule {
class Granule;
}

namespace synergy::mpi {

class World;
struct CollectiveSchedule;
struct IntercommSide;  // Intercommunicators.h
struct Window;

struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;
};

// What one rank posts for a collective: its buffers as host pointers into
// its own linear memory, which stays mapped at a fixed address.
struct alignas(64) Contribution {
  // Staged data up to this size lives in the slot, from its first cache
  // line on, where a reader fetches it along with the posted mark.
  static constexpr int64_t kInlineBytes = 512;

  // The sequence number of the collective this slot describes, stored
  // (release) once its member has filled it in. Readers poll it in the slot
  // itself: with the fields up to inlineData and the first 32 bytes of
  // that it fills the first cache line, so a small collective costs each
  // reader one line per member it reads.
  std::atomic<uint64_t> posted{0};
  int kind = 0;  // CollectiveKind (CollectiveEngine.h)
  int root = 0;
  const uint8_t* send = nullptr;
  uint8_t* recv = nullptr;
  uint8_t inlineData[kInlineBytes];  // small staged data (stageCopy)
  int color = 0;
  int key = 0;
  const TypeLayout* sendType = nullptr;
  int64_t sendCount = 0;
  const TypeLayout* recvType = nullptr;
  int64_t recvCount = 0;
  const int32_t* sendCounts = nullptr;
  const int32_t* sendDispls = nullptr;
  const int32_t* recvCounts = nullptr;
  const int32_t* recvDispls = nullptr;
  std::vector<uint8_t> staged;  // larger staged data; keeps its capacity
  // The member may free a derived datatype as soon as it has left the
  // collective, while others still read its slot, so the slot holds those;
  // a predefined one lives as long as the process and is named without a
  // reference-count update, which small collectives would pay every call.
  Layout derivedSendType, derivedRecvType;

  void setSendType(const Layout& type);
  void setRecvType(const Layout& type);

  // Clears everything its member fills in, before it fills the slot for
  // its next collective; `posted` stays, other members may be polling it.
  void reset();
};

// A progress counter that one member stores and others poll, alone on its
// cache line: members storing their own marks would otherwise take the
// line from each other on every collective.
struct alignas(64) ProgressMark {
  std::atomic<uint64_t> value{0};
};

// What one member knows of the collectives on a communicator, read and
// written by that member only (and on its own cache line).
struct alignas(64) MemberProgress {
  uint64_t collectives = 0;  // collectives entered
  // Lower bounds of every member's finished mark, so that most collectives
  // need not look at the marks themselves.
  std::vector<uint64_t> finishedOf;
};

// Where the members of a communicator that spans hosts sit
// (HostCollectives.cpp).
struct HostLayout;

// A communicator as all its members share it.
struct Communicator {
  uint32_t context = 0;
  std::string name;
  std::vector<int> worldRanks;   // comm rank -> world rank
  std::vector<int> rankOfWorld;  // world rank -> comm rank, or -1
  std::optional<CartTopology> cart;

  // Collective state. Member m's k-th collective on this communicator uses
  // slot set k % kSlotSets. A member posts by storing k into its slot's
  // `posted`, and waits only for the members whose slots it reads; before
  // reusing a slot set it waits for every member to have finished the
  // collective that used it last. Several sets let a broadcast's root run
  // ahead of slower receivers.
  static constexpr uint64_t kSlotSets = 32;
  std::vector<Contribution> slotSets[kSlotSets];
  std::unique_ptr<ProgressMark[]> finishedUpTo;  // collectives each member has finished
  std::unique_ptr<MemberProgress[]> progressOf;
  // A lock-free barrier for collectives that run in phases: members count
  // themselves in, and the last one advances the generation.
  std::atomic<int> arrived{0};
  std::atomic<uint64_t> generation{0};
  std::vector<uint64_t> sequenceOfRank;  // collectives each member has entered
  std::map<std::pair<uint64_t, int>, std::shared_ptr<Communicator>> children;
  // MPI_Comm_create_group calls not yet made by every member of the group,
  // by (the group's world ranks, tag); see Communicators.cpp.
  struct GroupCreations {
    std::vector<uint64_t> callsOfMember;  // by the member's index in the group
    std::map<uint64_t, std::pair<std::shared_ptr<Communicator>, int>> pending;  // -> (comm, takers)
  };
  std::map<std::pair<std::vector<int>, int>, GroupCreations> groupCreations;
  // Set on either side of an intercommunicator: worldRanks and size() are
  // then the remote group, which point-to-point addresses, and rankOfWorld
  // maps the local group's members too (the two groups are disjoint).
  std::shared_ptr<const IntercommSide> inter;
  // Its members by host, worked out by its first collective across hosts
  // and again by the first after each route switch
  // (World::remoteGeneration, which each layout records): the layout in
  // force behind an atomic pointer, read without a lock, and every layout
  // made, kept (a collective under way goes on with the one it started
  // with) under hostLayoutMutex.
  std::atomic<const HostLayout*> hostLayoutNow{nullptr};
  std::mutex hostLayoutMutex;
  std::vector<std::shared_ptr<const HostLayout>> hostLayouts;

  int size() const { return int(worldRanks.size()); }
};

// One point-to-point operation, blocking or not, or a nonblocking
// collective (NonblockingCollectives.h).
struct Request {
  // Generalized: MPI_Grequest_start's, completed by the program
  // (GeneralizedRequests.h).
  enum class Kind { Send, Recv, Null, Collective, Generalized };
  Kind kind = Kind::Null;
  int owner = 0;  // world rank
  uint8_t* buffer = nullptr;
  const TypeLayout* type = nullptr;
  // The guest may free a derived datatype while a request that uses it is
  // pending, so the request holds those; a predefined one lives as long as
  // the process and is named without a reference-count update per message.
  Layout derivedType;
  int64_t count = 0;
  int64_t bytes = 0;  // send: data bytes; receive: capacity
  uint32_t context = 0;
  const Communicator* comm = nullptr;
  // Held like derivedType when the guest may free the communicator while
  // the request is pending; MPI_COMM_WORLD and MPI_COMM_SELF belong to
  // the World and are named without a reference-count update.
  std::shared_ptr<Communicator> freeableComm;
  int commHandle = 0;  // the owner's handle, for its error handler
  int peer = 0;        // send: destination; receive: source or ANY_SOURCE (comm ranks)
  int tag = 0;         // receive: tag or ANY_TAG
  int senderRank = 0;  // send: the sender's rank in comm
  bool synchronous = false;
  bool buffered = false;  // MPI_Bsend: always copied aside
  // The envelope of a message from a rank on another host whose data that
  // host sends only once a receive matches it (RemoteRendezvous.cpp).
  bool awaitsRemoteData = false;
  // Receive: it may read its message where a rendezvous send holds it
  // rather than have it copied into `buffer` (a reduction across hosts
  // folds a partial result straight from the frame it arrived in). A send
  // of contiguous data that it matches becomes its `lender`, whose data
  // (lentData()) it reads until World::returnLent(); until then that send
  // stays pending, so a sender on this host must not wait for it first.
  bool mayBorrow = false;
  std::shared_ptr<Request> lender;
  // Once the request is shared, set under the world lock with
  // markComplete() and read with isCompleteNow(), also by ranks polling
  // without the lock.
  bool complete = false;
  // MPI_Send_init/MPI_Recv_init make an inactive persistent request; each
  // MPI_Start runs a copy of it that points back here.
  bool persistent = false;
  bool active = true;
  // MPI_Cancel took it back before it matched (MPI_Test_cancelled).
  bool cancelled = false;
  std::shared_ptr<Request> persistentOrigin;
  // Kind::Collective: its messages and local step, until it completes.
  std::shared_ptr<CollectiveSchedule> schedule;
  int statusSource = 0;
  int statusTag = 0;
  int statusError = 0;
  // A rendezvous send: kSendUnclaimed until its receiver matches it or its
  // sender cancels it, whichever comes first (claimSend()).
  int sendClaim = 0;
  int64_t statusBytes = 0;
};

inline void setType(Request& request, const Layout& type) {
  request.type = type.get();
  if (!type->predefined) request.derivedType = type;
}

// A rendezvous send stays in its sender's memory until it matches, so
// MPI_Cancel can take it back until then: the receiver's match and the
// sender's cancel each try to claim it, and only one succeeds.
inline constexpr int kSendUnclaimed = 0;
inline constexpr int kSendMatched = 1;
inline constexpr int kSendCancelled = 2;
inline bool claimSend(Request& send, int claim) {
  int unclaimed = kSendUnclaimed;
  return __atomic_compare_exchange_n(&send.sendClaim, &unclaimed, claim, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}
inline bool isCancelledSend(const Request& send) {
  return __atomic_load_n(&send.sendClaim, __ATOMIC_ACQUIRE) == kSendCancelled;
}

// The message a completed receive holds as its `lender`.
inline const uint8_t* lentData(const Request& recv) {
  return recv.lender->buffer + recv.lender->type->lb;
}

inline void markComplete(Request& request) {
  __atomic_store_n(&request.complete, true, __ATOMIC_RELEASE);
}
inline bool isCompleteNow(const Request& request) {
  return __atomic_load_n(&request.complete, __ATOMIC_ACQUIRE);
}

// The receivers that one rank's deferred messages wait on, used by that
// rank's thread alone.
struct alignas(64) Outbox {
  std::vector<int> destinations;  // world ranks, each once
  std::vector<bool> listed;       // by world rank
  // Messages to other hosts wait in the link's batches
  // (RemoteRanks::sendBatched).
  bool batchedRemote = false;
};

// What a blocked rank waits for, for the deadlock report.
struct WaitInfo {
  const char* call = nullptr;
  int peer = 0;
  int tag = 0;
  const Communicator* comm = nullptr;
};

// Communicator contexts. A job on one host draws them from 0 .. 2^31 - 1
// (bit 31 marks the messages of collectives across hosts); in a job spread
// over hosts, host h draws from (h + 1) * 2^18 on, 2^18 of them, which for
// the 4096 hosts a job may have stays below 2^31. The contexts that every
// host's World makes first (MPI_COMM_WORLD and MPI_COMM_SELF) lie below
// 2^18 and are the same everywhere.
inline constexpr uint32_t kContextsOfOneHost = 1u << 31;
inline constexpr uint32_t kContextRangeShift = 18;

class World {
 public:
  // `ranksOwnCpus`: every rank has a CPU to itself, so a blocked rank spins
  // for a while before it sleeps; otherwise it yields a few times first.
  World(int size, bool ranksOwnCpus);
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int size() const { return size_; }
  const std::shared_ptr<Communicator>& worldComm() const { return worldComm_; }
  // The ranks share their CPUs with threads that their messages wait for
  // (a job part's I/O thread, other parts on this machine): from now on a
  // waiting rank yields instead of spinning, and the launcher pins none.
  // Only before any rank runs (JobOptions::joinHosts).
  void shareCpus() { ranksOwnCpus_ = false; }
  bool ranksOwnCpus() const { return ranksOwnCpus_; }
  const std::shared_ptr<Communicator>& selfComm(int rank) const { return selfComms_[rank]; }
  // A fresh communicator over `worldRanks` with a job-unique context;
  // nullptr when this host has used up its contexts.
  std::shared_ptr<Communicator> makeCommunicator(std::vector<int> worldRanks);
  // The same with a context from reserveContexts(), here or on another host.
  std::shared_ptr<Communicator> makeCommunicator(std::vector<int> worldRanks, uint32_t context);
  // Reserves `count` consecutive job-unique contexts and returns the first;
  // nullopt when this host has used up its contexts. When the job spans
  // hosts, each host draws from a range of its own, so that the host that
  // creates a communicator spanning hosts can hand its context to the
  // others and no host needs to agree on anything more.
  std::optional<uint32_t> reserveContexts(uint32_t count);
  // The context this host would draw next (job-wide numbering, so that a
  // checkpoint's record of it means the same on every host).
  uint32_t nextContext();
  // For a job resumed from a checkpoint, before any rank runs: this host
  // draws no context below `end` from now on when `end` lies in its range
  // (contextBase_, contextBase_ + contextLimit_]; an end in another host's
  // range leaves it as it is, since that host draws those. The launcher
  // passes every host's recorded nextContext() and every live
  // communicator's context + 1, so a resumed job never draws a context that
  // one of its communicators holds, wherever the checkpoint's hosts drew
  // them. Kept, and applied again when joining the other hosts moves this
  // host's range (attachRemoteRanks), which may happen before or after.
  void resumeContextsBelow(uint32_t end);

  // Granule -> (world, rank), set by the launcher before a rank starts.
  static void bind(const granule::Granule* granule, World* world, int rank);
  static std::pair<World*, int> bindingOf(const granule::Granule* granule);

  // Point to point, called on the owning rank's thread. Starting may
  // complete the request at once.
  // With `mayDefer` (a nonblocking send) a message to another host that
  // is copied at once may stay unpublished until publishSends(), as
  // sendEager's may.
  void startSend(const std::shared_ptr<Request>& send, int destWorldRank, bool mayDefer = false);
  void startRecv(const std::shared_ptr<Request>& recv) { mailboxes_[recv->owner]->post(recv); }
  // Ends `recv`'s loan of its lender's data (Request::mayBorrow), on the
  // receiving rank's thread: the send completes as if it had been copied.
  void returnLent(Request& recv) {
    sendMatched(*recv.lender);
    recv.lender.reset();
  }
  // startRecv() in two steps (Mailbox::receiveNow, then Mailbox::post
  // when `mustShare`, else Mailbox::postUnmatched).
  bool receiveNow(Request& recv, bool& mustShare) {
    return mailboxes_[recv.owner]->receiveNow(recv, mustShare);
  }
  void postUnmatched(const std::shared_ptr<Request>& recv, bool mustShare) {
    if (mustShare)
      mailboxes_[recv->owner]->post(recv);
    else
      mailboxes_[recv->owner]->postUnmatched(recv);
  }
  // Sends a copy of `count` instances of `type` at `data` from `from`, when
  // the message is short enough to go eager (and, to a rank on another
  // host, within the eager credit); false, sending nothing, otherwise.
  // With `mayDefer` (a nonblocking send) the message may stay unpublished
  // until publishSends(from).
  bool sendEager(int from, const Envelope& envelope, const uint8_t* data, const TypeLayout& type,
                 int64_t count, int destWorldRank, bool mayDefer);
  // Shows the receivers every message `rank` has left unpublished. Every
  // MPI call but a nonblocking send starts with it, and so does the end of
  // a rank, so a message stays unseen only while its sender keeps posting
  // sends or computes: never while it waits, polls or is finished, which
  // is what keeps a blocked job from looking deadlocked.
  void publishSends(int rank) {
    Outbox& outbox = outboxes_[rank];
    if (!outbox.destinations.empty() || outbox.batchedRemote) publishOutbox(outbox, rank);
  }
  // Blocks until `request` completes; false when the job was aborted.
  bool waitFor(int rank, const Request& request, const WaitInfo& info);
  // Blocks until any of `requests` (null entries skipped) completes.
  bool waitForAny(int rank, const std::vector<Request*>& requests, const WaitInfo& info);
  std::optional<ProbeResult> probe(int rank, uint32_t context, int source, int tag);
  std::optional<ProbeResult> waitProbe(int rank, uint32_t context, int source, int tag,
                                       const WaitInfo& info, bool& aborted);
  // Matched probe: the earliest arrived message for `rank` that fits, taken
  // out of matching (Mailbox::takeMatching); waitTakeMatching() blocks
  // until one comes. On the rank's own thread, or under its call lock.
  std::optional<Arrival> takeMatching(int rank, uint32_t context, int source, int tag) {
    return mailboxes_[rank]->takeMatching(context, source, tag);
  }
  std::optional<Arrival> waitTakeMatching(int rank, uint32_t context, int source, int tag,
                                          const WaitInfo& info, bool& aborted);
  void receiveMatched(const Arrival& arrival, const std::shared_ptr<Request>& recv) {
    mailboxes_[recv->owner]->receiveMatched(arrival, recv);
  }
  // Takes a posted receive back (MPI_Cancel); false when it has matched.
  bool withdrawRecv(const Request& recv) { return mailboxes_[recv.owner]->withdraw(recv); }
  // Where a posted receive stands in its rank's matching order, -1 when it
  // has matched (Mailbox::postedPosition).
  ptrdiff_t postedPosition(const Request& recv) {
    return mailboxes_[recv.owner]->postedPosition(recv);
  }
  // Matches whatever has arrived for `rank`, before a Test looks at its
  // requests.
  void progress(int rank) { mailboxes_[rank]->drain(); }
  // Whether no message to `rank` waits unmatched (a receive it posted is
  // its pending request, which its own vote reports). On the rank's own
  // thread.
  bool mailboxHoldsNoArrival(int rank) { return mailboxes_[rank]->holdsNoArrival(); }
  bool isComplete(const Request& request) { return isCompleteNow(request); }
  // Called after an unsuccessful Test or Iprobe: when ranks share CPUs, a
  // rank spinning on those gives its CPU to the rank it waits for.
  void yieldIfSharingCpus();

  // Collectives: every member of `comm` arrives; false when aborted.
  bool arrive(Communicator& comm, int commRank, const WaitInfo& info);
  // World rank `rank` stores `value` (release) into a collective progress
  // mark of `comm` and wakes the members that sleep waiting for marks.
  void publishMark(int rank, Communicator& comm, std::atomic<uint64_t>& mark, uint64_t value);
  // World rank `rank` stores `value` (release) into a collective progress
  // mark of `comm` that only `waiters` (ranks of `comm`) wait for, and wakes
  // those of them that sleep: a host's meeting (HostMeeting.h) wakes its
  // leader or its members, not every member of the communicator.
  void publishMarkFor(int rank, Communicator& comm, std::atomic<uint64_t>& mark, uint64_t value,
                      std::span<const int> waiters);
  // Whom a wait waits for: anyone (a message may come from another host),
  // or only ranks of this host (a HostMeeting), which need not read the
  // connections to other hosts meanwhile.
  enum class Awaited { AnyHost, ThisHost };
  // Waits until `ready()`, which reads only atomics, holds: polls it first,
  // then sleeps until a wake-up finds it true, matching the rank's arriving
  // messages all the while. False when aborted. A caller that holds the
  // rank's call lock lets go of it between looks (waitSharingRank).
  bool waitUntilReady(int rank, const WaitInfo& info, util::FunctionRef<bool()> ready,
                      Awaited awaited = Awaited::AnyHost);
  // The lock the threads of world rank `rank` take around their MPI calls
  // once it asked for MPI_THREAD_MULTIPLE (RankCallLock.h).
  RankCallLock& callLock(int rank) { return callLocks_[rank]; }
  // Runs `body` under the world lock.
  void locked(const std::function<void()>& body);
  // A wait for the other ranks outside any MPI call's own (a barrier
  // control point's agreement): sleeps until `done()`, which reads only
  // atomics, holds, counted as blocked by checkDeadlock meanwhile, without
  // touching the rank's mailbox. False when aborted. Whoever makes `done()`
  // true calls wakeWaiter(rank) after.
  bool waitForOthers(int rank, const WaitInfo& info, util::FunctionRef<bool()> done) {
    return sleepUntil(rank, info, done);
  }
  void wakeWaiter(int rank) { notify(rank); }

  // Ranks on other hosts (RemoteDelivery.cpp). Before any rank starts:
  // the ranks `remote` marks are reached through `link` from now on.
  void attachRemoteRanks(RemoteRanks& link, std::vector<bool> remote);
  // Whether `worldRank` runs on another host, by the table in force: one
  // acquire load, no lock (switchRemoteRanks).
  bool isRemote(int worldRank) const {
    const std::vector<bool>* table = remoteTable_.load(std::memory_order_acquire);
    return table && (*table)[size_t(worldRank)];
  }
  // The job's rank -> part table switched (issue 22's live move, while
  // every rank of the job is held at one barrier control point): the ranks
  // `remote` marks are remote from now on. The old table stays readable
  // for whoever still reads it (tables are few and small, and kept until
  // the World goes). False when `remote` is not one flag a rank.
  bool switchRemoteRanks(std::vector<bool> remote);
  // How many times the table has been switched: the per-host collective
  // layouts are built for one generation.
  uint64_t remoteGeneration() const { return remoteGeneration_.load(std::memory_order_acquire); }
  RemoteRanks* remoteRanks() const { return remote_; }
  // Whether `comm` has a member on another host.
  bool spansHosts(const Communicator& comm) const;
  // On the link's receiving thread, in the order the sender sent them: a
  // message for local rank `message.to` from remote rank `message.from`,
  // whose envelope.bytes packed data are the bytes of `frame` from
  // `dataOffset` on. A large message keeps `frame` and is copied once, into
  // its receive.
  void deliverRemote(const RemoteMessage& message, std::unique_ptr<uint8_t[]> frame,
                     size_t dataOffset);
  // On the link's receiving thread: the remote receiver of synchronous
  // send `matchId` matched it. False when no such send is waiting.
  bool remoteSendMatched(uint64_t matchId);
  // Cross-host rendezvous (RemoteRendezvous.cpp), on the link's receiving
  // thread. A message's envelope from remote rank `message.from`, whose
  // sender waits under id message.matchId for a receive to match it.
  void deliverRequestToSend(const RemoteMessage& message);
  // Local rank `sender`'s rendezvous send `sendId` matched a receive of
  // remote rank `receiver`, which waits for the data under `receiveId` on
  // its host: the data goes. False, with `reason`, when no such send waits.
  bool remoteClearToSend(int sender, uint64_t sendId, int receiver, uint64_t receiveId,
                         std::string& reason);
  // Where the `bytes` of data for receive `receiveId` of local rank
  // `receiver`, sent from host `fromHost`, go; null, with `reason`, unless
  // exactly that receive waits for exactly that much data from there.
  uint8_t* remoteRendezvousTarget(int fromHost, int receiver, uint64_t receiveId, int64_t bytes,
                                  std::string& reason);
  // The last byte of receive `receiveId`'s data has landed.
  void remoteRendezvousLanded(uint64_t receiveId);
  // Host `host` has left the job: its ranks have ended, it answers no more
  // clear-to-send, and all the data it sent came before this call. A
  // receive that waits for rendezvous data from there, or matches a
  // message of its later, ends the job.
  void remoteHostEnded(int host);

  // One-sided operations across hosts (RemoteWindows.cpp): the windows
  // spanning hosts that this host's members hold, by the id every host
  // knows them by, and the operations sent from here and not yet done.
  struct RemoteWindowTables;
  RemoteWindowTables& remoteWindowTables() { return *remoteWindows_; }
  // On the link's receiving thread: applies `op` from a rank of another
  // host, whose op.dataBytes data bytes are at `data`, and reports it
  // done. False, with a one-line `reason`, for an operation no window of
  // this host allows.
  bool applyRemoteRma(const RemoteRmaOp& op, const uint8_t* data, std::string& reason);
  // On the link's receiving thread: operation `id` of local rank `origin`
  // was applied; `data` holds the `bytes` it fetched. False, with a
  // `reason`, when no such operation waits or the size is not its.
  bool remoteRmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes,
                     std::string& reason);

  // What may happen to the ranks at a barrier on MPI_COMM_WORLD (null:
  // nothing). Set by the launcher before any rank starts.
  class BarrierControlPoint* barrierControlPoint() const { return barrierControlPoint_; }
  void setBarrierControlPoint(class BarrierControlPoint* controlPoint) {
    barrierControlPoint_ = controlPoint;
  }

  // Lifecycle and fate.
  void rankStarted(int rank);
  // On the rank's own thread, once it has started.
  void rankFinished(int rank);
  // A live move (BarrierControlPoint::arrive): the rank has left its
  // instance at a control point and runs nowhere until it arrives in a
  // fresh one. A departed rank is neither running nor blocked; the others
  // may wait for it, and checkDeadlock reports it (not arrived) only once
  // they have all been blocked for many times the usual ticks.
  void rankDeparted(int rank);
  void rankArrived(int rank);
  // A departed rank that arrived on another part of the job instead (issue
  // 22's live move between hosts): it no longer runs here, and is not
  // reported as a departed rank that never arrived. False for a rank out
  // of range or not departed.
  bool rankLeft(int rank);
  // A rank's own progress on one communicator (issue 22's live move carries
  // it from the source, RankMove.h): collectives entered and finished,
  // communicators made from it.
  struct CommProgress {
    uint64_t collectives = 0;
    uint64_t finished = 0;
    uint64_t sequence = 0;
  };
  // Member `rank`'s progress on `comm`, on its source while it is
  // suspended; nullopt when `rank` is not a member.
  std::optional<CommProgress> progressOf(const Communicator& comm, int rank) const;
  // A rank arriving from a live move, before it runs: its progress on
  // `comm` becomes `progress` (the other members, held at the same control
  // point or gone on past it, read only its finished mark, which only
  // grows). False with `error` for a rank that is not a member.
  bool restoreProgress(Communicator& comm, int rank, const CommProgress& progress,
                       std::string& error);
  // The communicator with `context` that a rank of this process still
  // holds (made by makeCommunicator), null when none: a rank arriving
  // from a live move shares it with this host's members.
  std::shared_ptr<Communicator> liveCommunicator(uint32_t context);
  // Records the first abort (exit status and message) and wakes all; the
  // first one also ends the job's parts on other hosts.
  void abort(int status, const std::string& message);
  // For a world no launcher watches (a singleton job, run without -np):
  // abort() prints the first abort's message on stderr at once, as the
  // launcher prints it after a job.
  void reportAbortsItself() { reportsAbortsItself_ = true; }
  // The abort another host of the job reported: recorded like abort(), with
  // no message (that host reports it), and not sent back.
  void abortByOtherHost(int status);
  bool aborted() { return aborted_.load(); }
  int abortStatus();
  // The first abort's message the first time it is asked for, empty after:
  // a rank's pthread that ends the process and the launcher may both
  // report the abort, and only one of them prints it.
  std::string takeAbortMessage();
  // Called periodically by the launcher: a report when every running rank
  // has been blocked, with nothing happening, for `stableTicks` calls.
  // A job spread over hosts asks its link (RemoteRanks::checkJobDeadlock),
  // which compares every host's state.
  std::optional<std::string> checkDeadlock(int stableTicks);
  // What this host's ranks are doing now, for the link's job-wide check;
  // never quiet once the job is aborting.
  HostQuietState hostQuietState();

 private:
  // Sleeps until `done()`, evaluated without the lock, holds.
  bool sleepUntil(int rank, const WaitInfo& info, util::FunctionRef<bool()> done);
  // Waits until `done()` holds for a thread of a rank whose threads share
  // it, holding the rank's call lock only while it looks.
  bool waitSharingRank(RankCallLock& callLock, util::FunctionRef<bool()> done);
  void wakeLocked(int rank);
  // Records the abort unless one came first (then false) and wakes all.
  bool recordAbort(int status, const std::string& message);
  // After a lock-free change that `rank` may wait for: wakes it if asleep.
  void notify(int rank);
  void sendMatched(Request& send);
  void sendRemote(const std::shared_ptr<Request>& send, int destWorldRank, bool mayDefer);
  // With `mayDefer` the message joins the link's batch for its host, and
  // `from`'s outbox notes it.
  void sendRemoteCopy(int from, const Envelope& envelope, const uint8_t* data,
                      const TypeLayout& type, int64_t count, int destWorldRank, bool mayDefer);
  void acknowledgeRemoteMatch(Request& proxy);
  // Whether a message of `bytes` to remote rank `destWorldRank` may go
  // eagerly: it charges no credit, or the link had enough and took it.
  bool takeEagerCredit(int destWorldRank, int64_t bytes, bool synchronous);
  // The rendezvous side of sendRemote(): sends only the envelope of a
  // message of at least the rendezvous threshold.
  void sendRendezvous(const std::shared_ptr<Request>& send, int destWorldRank);
  struct RendezvousLanding;
  // On the receiving rank, when shared receive `recv` matched `proxy`, a
  // rendezvous message from another host: registers where its data lands
  // (`recv`'s buffer, or a temporary unless that is contiguous and large
  // enough) and sends the clear-to-send, without waiting: whoever lands
  // the data completes `recv` and wakes its rank. When the sending host
  // has left the job, aborts it instead.
  void askForRendezvousData(Request& proxy, const std::shared_ptr<Request>& recv);
  // Aborts the job for a message of `bytes` from world rank `from` that
  // world rank `to` matched, whose host ended without sending its data.
  void abortForUnsentData(int64_t bytes, int from, int to);
  void publishOutbox(Outbox& outbox, int rank);
  // After world rank `rank` made a lock-free change that members of `comm`
  // may wait for: counts it as an event for the deadlock watch and wakes
  // sleeping members.
  void announceProgress(int rank, Communicator& comm);
  // Counts such a change, then fences, so that whoever may sleep on it is
  // seen by the caller's next look at the sleepers.
  void countProgress(int rank);
  std::string describeWait(int rank);

  int size_;
  util::AdaptiveMutex mutex_;
  std::vector<std::unique_ptr<std::condition_variable_any>> wakeups_;
  bool ranksOwnCpus_ = false;
  bool reportsAbortsItself_ = false;
  // A rank going to sleep fences every thread (membarrier), so that
  // notify() needs no fence.
  bool sleeperFences_ = false;
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
  std::unique_ptr<Outbox[]> outboxes_;  // by sending rank

  std::shared_ptr<Communicator> worldComm_;
  std::vector<std::shared_ptr<Communicator>> selfComms_;
  std::mutex contextMutex_;
  uint32_t nextContext_ = 0;  // contexts are contextBase_ + 0 .. contextLimit_ - 1
  uint32_t contextBase_ = 0;
  uint32_t contextLimit_ = kContextsOfOneHost;
  std::vector<uint32_t> resumedContextEnds_;  // resumeContextsBelow's
  void applyResumedContextEnd(uint32_t end);  // with contextMutex_ held
  // Every communicator made here, by context (liveCommunicator); expired
  // entries are swept when the map has doubled since the last sweep.
  std::mutex madeMutex_;
  std::map<uint32_t, std::weak_ptr<Communicator>> made_;
  size_t madeSwept_ = 0;

  enum class RankPhase { NotStarted, Running, Departed, Finished };
  std::vector<RankPhase> phases_;
  std::vector<std::optional<WaitInfo>> waits_;
  int running_ = 0;
  // Ranks asleep on their condition variable and not woken since: a rank
  // that was notified but has not run yet is not blocked, however long the
  // scheduler takes to run it. Written under the lock, read lock-free by
  // wakers.
  std::unique_ptr<std::atomic<bool>[]> asleep_;
  int blocked_ = 0;
  // Blocked ranks that are evaluating their wait's condition: that may
  // take a message from the mailbox and copy it into the receive buffer
  // (80 MiB from another host take seconds on a loaded machine), so they
  // are busy, not blocked, meanwhile. Under the lock.
  int looking_ = 0;
  // How many asleep_ entries are set; read without the lock by a rank that
  // completes a barrier, which takes the lock only to wake sleepers.
  std::atomic<int> sleepers_{0};
  std::atomic<uint64_t> epoch_{0};
  // Events that ranks announce lock-free, counted by each rank on its own
  // cache line; together with epoch_ they tell the watchdog that something
  // happened.
  std::unique_ptr<ProgressMark[]> announced_;
  std::unique_ptr<RankCallLock[]> callLocks_;  // by rank
  uint64_t watchedEpoch_ = 0;
  int quietTicks_ = 0;

  // Null unless some ranks run on other hosts, so that a local message
  // pays one predictable branch for them.
  RemoteRanks* remote_ = nullptr;
  // Which ranks are remote: an immutable table behind an atomic pointer,
  // switched whole (switchRemoteRanks); every table made is kept in
  // remoteTables_, under remoteTablesMutex_.
  std::atomic<const std::vector<bool>*> remoteTable_{nullptr};
  std::atomic<uint64_t> remoteGeneration_{0};
  std::mutex remoteTablesMutex_;
  std::vector<std::unique_ptr<const std::vector<bool>>> remoteTables_;
  struct AwaitingMatch;
  std::shared_ptr<AwaitingMatch> awaitingMatch_;
  struct RendezvousTables;
  std::shared_ptr<RendezvousTables> rendezvous_;
  static std::shared_ptr<RendezvousTables> makeRendezvousTables(int worldSize);
  // A wait of `rank` whose poll ran out while data of a message to it is
  // landing polls on, until `done` or that data has landed (at most
  // RemoteRendezvous.cpp's kLandingPoll): asleep, it would leave the
  // reading to the link's thread, a wake-up for every part of the data,
  // and then wait for its own wake-up. True when `done`.
  bool pollWhileLanding(int rank, util::FunctionRef<bool()> done);
  // Messages to other hosts of at least this many bytes go by rendezvous.
  static int64_t rendezvousThresholdBytes();
  int64_t rendezvousThreshold_ = 0;
  std::shared_ptr<RemoteWindowTables> remoteWindows_;
  static std::shared_ptr<RemoteWindowTables> makeRemoteWindowTables();
  bool applyRemoteLock(const RemoteRmaOp& op, Window& window, int member, std::string& reason);

  class BarrierControlPoint* barrierControlPoint_ = nullptr;

  std::atomic<bool> aborted_{false};
  int abortStatus_ = 0;
  std::string abortMessage_;
  bool abortReported_ = false;
};

}  // namespace synergy::mpi
