//===- World.cpp - the shared state of one MPI job on this host -----------===//
#include "mpi/World.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mpi/MpiAbi.h"

namespace synergy::mpi {

namespace {

// Standard sends up to this many bytes are buffered and complete at once, as
// OpenMPI's shared-memory transport does for small messages; larger ones
// wait for their receive and are copied once.
constexpr int64_t kEagerLimit = 8192;

// A waiting rank polls for what it waits for before it sleeps on its
// condition variable: a futex wake-up costs microseconds, a poll that sees
// the message much less, as in shared-memory MPI transports.
//  - A rank with a CPU to itself spins for kBusyPoll, which covers a
//    ping-pong round trip with room to spare. It never yields: bound to a
//    CPU that other processes share, it would give it away for a whole time
//    slice.
//  - Ranks that share CPUs yield between polls, kYieldPolls times, so that
//    the rank they wait for can run in their place, as mpirun does when
//    oversubscribed.
constexpr auto kBusyPoll = std::chrono::microseconds(100);
constexpr int kYieldPolls = 20;
// A rank of a job spread over hosts reads its host's connections itself
// while it polls (RemoteRanks::receiveWhileWaiting), so a message from
// another host reaches it without the link's thread reading it first and
// then waking it; and while it polls, arrivals do not wake that thread
// at all (RemoteRanks::startPolling): two thread wake-ups a message become
// none. Where ranks share CPUs, one waiting rank at a time keeps yielding
// between polls for kCrossHostPoll more, which covers a cross-host round
// trip on loopback with room to spare, before it sleeps
// and leaves the reading to the link's thread; it delivers what it reads
// to the others too. More such pollers would take the CPUs from the ranks
// that have work.
constexpr auto kCrossHostPoll = std::chrono::microseconds(200);
// 1 while a rank of this process is in that longer poll.
std::atomic<int> crossHostPollers{0};
// A poll that found what it waited for lets the connections stay quiet a
// little longer (RemoteRanks::stopPolling(true)): the rank goes back to
// work, and its next wait, or another rank's, reads what came meanwhile
// (MPI_Alltoall at 4 ranks on 3 hosts toggled them 2.4-2.9 times a call,
// and each toggle back woke the I/O thread for what had come). Not while
// a rank of this process sleeps through a wait for another host: only
// the I/O thread reads for it. Counts the ranks from the stop of their
// poll to the end of their sleep.
std::atomic<int> crossHostSleepers{0};
// A rank of such a job that waits in a host's meeting (HostMeeting.h) for
// its leader's release, or a leader for its members' posts, waits for a
// rank of this process, which is mostly the leader on its cross-host
// round trip: it keeps yielding between polls for as long, without taking
// the one cross-host poller's turn, which the leader needs to read the
// round trip's answer itself. Asleep, it would cost the leader a futex
// wake-up and itself a scheduler wake-up on every collective.
constexpr auto kHostMeetingPoll = kCrossHostPoll;

// checkDeadlock's quiet ticks while a rank has departed at a control point
// (a live move), as a multiple of those that declare a deadlock otherwise:
// 30 s at the launcher's 20 ticks of 100 ms.
constexpr int kDepartedRankTicksFactor = 15;

// Whether membarrier(2) can run a full fence on every other thread of the
// process, so that lock-free wakers need none of their own.
bool canFenceOtherThreads() {
  static const bool registered = [] {
    long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    return commands >= 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
           syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  }();
  return registered;
}

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// What a waiting rank polls for: in a job on one host; in a job spread over
// hosts, for anything (a message may come from another host); or there,
// in a host's meeting, for ranks of this host only.
enum class PollScope { OneHost, CrossHost, HostMeeting };

// Yields between looks at `ready` until it holds or `budget` ran out.
template <typename Ready>
bool yieldPollFor(const Ready& ready, std::chrono::microseconds budget) {
  bool done = false;
  auto deadline = std::chrono::steady_clock::now() + budget;
  do {
    done = ready();
    if (!done) std::this_thread::yield();
  } while (!done && std::chrono::steady_clock::now() < deadline);
  return done || ready();
}

// Polls `ready` until it holds; false when the budget ran out.
template <typename Ready>
bool pollUntil(const Ready& ready, bool ownCpu, PollScope scope) {
  if (!ownCpu) {
    for (int i = 0; i < kYieldPolls; ++i) {
      if (ready()) return true;
      std::this_thread::yield();
    }
    if (scope == PollScope::HostMeeting) return yieldPollFor(ready, kHostMeetingPoll);
    int none = 0;
    if (scope == PollScope::OneHost ||
        !crossHostPollers.compare_exchange_strong(none, 1, std::memory_order_relaxed))
      return ready();
    bool done = yieldPollFor(ready, kCrossHostPoll);
    crossHostPollers.store(0, std::memory_order_relaxed);
    return done;
  }
  auto deadline = std::chrono::steady_clock::now() + kBusyPoll;
  do {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpuRelax();
    }
  } while (std::chrono::steady_clock::now() < deadline);
  return ready();
}

std::mutex bindingsMutex;
std::unordered_map<const granule::Granule*, std::pair<World*, int>>& bindings() {
  static std::unordered_map<const granule::Granule*, std::pair<World*, int>> map;
  return map;
}

}  // namespace

World::World(int size, bool ranksOwnCpus)
    : size_(size),
      ranksOwnCpus_(ranksOwnCpus),
      sleeperFences_(canFenceOtherThreads()),
      phases_(size),
      waits_(size),
      outboxes_(new Outbox[size]),
      asleep_(new std::atomic<bool>[size]),
      announced_(new ProgressMark[size]),
      callLocks_(new RankCallLock[size]),
      remoteWindows_(makeRemoteWindowTables()) {
  for (int i = 0; i < size; ++i) {
    wakeups_.push_back(std::make_unique<std::condition_variable_any>());
    mailboxes_.push_back(
        std::make_unique<Mailbox>(size, [this](Request& send) { sendMatched(send); },
                                  [this](Request& proxy, const std::shared_ptr<Request>& recv) {
                                    askForRendezvousData(proxy, recv);
                                  }));
    asleep_[i].store(false);
    outboxes_[i].listed.assign(size, false);
  }
  std::vector<int> all(size);
  for (int i = 0; i < size; ++i) all[i] = i;
  worldComm_ = makeCommunicator(all);
  worldComm_->name = "MPI_COMM_WORLD";
  for (int i = 0; i < size; ++i) {
    selfComms_.push_back(makeCommunicator({i}));
    selfComms_.back()->name = "MPI_COMM_SELF";
  }
}

void Contribution::reset() {
  kind = root = color = key = 0;
  send = nullptr;
  sendType = nullptr;
  sendCount = 0;
  recv = nullptr;
  recvType = nullptr;
  recvCount = 0;
  sendCounts = sendDispls = recvCounts = recvDispls = nullptr;
  staged.clear();
  derivedSendType = nullptr;
  derivedRecvType = nullptr;
}

void Contribution::setSendType(const Layout& type) {
  sendType = type.get();
  if (type && !type->predefined) derivedSendType = type;
}

void Contribution::setRecvType(const Layout& type) {
  recvType = type.get();
  if (type && !type->predefined) derivedRecvType = type;
}

std::optional<uint32_t> World::reserveContexts(uint32_t count) {
  std::lock_guard<std::mutex> guard(contextMutex_);
  if (count > contextLimit_ - nextContext_) return std::nullopt;
  uint32_t first = contextBase_ + nextContext_;
  nextContext_ += count;
  return first;
}

uint32_t World::nextContext() {
  std::lock_guard<std::mutex> guard(contextMutex_);
  return contextBase_ + nextContext_;
}

void World::resumeContextsBelow(uint32_t end) {
  std::lock_guard<std::mutex> guard(contextMutex_);
  resumedContextEnds_.push_back(end);
  applyResumedContextEnd(end);
}

void World::applyResumedContextEnd(uint32_t end) {
  if (end > contextBase_ && end - contextBase_ <= contextLimit_)
    nextContext_ = std::max(nextContext_, end - contextBase_);
}

std::shared_ptr<Communicator> World::makeCommunicator(std::vector<int> worldRanks) {
  std::optional<uint32_t> context = reserveContexts(1);
  if (!context) return nullptr;
  return makeCommunicator(std::move(worldRanks), *context);
}

std::shared_ptr<Communicator> World::makeCommunicator(std::vector<int> worldRanks,
                                                      uint32_t context) {
  auto comm = std::make_shared<Communicator>();
  comm->context = context;
  comm->rankOfWorld.assign(size_, -1);
  for (size_t i = 0; i < worldRanks.size(); ++i) comm->rankOfWorld[worldRanks[i]] = int(i);
  comm->worldRanks = std::move(worldRanks);
  size_t members = comm->worldRanks.size();
  for (std::vector<Contribution>& slots : comm->slotSets) slots = std::vector<Contribution>(members);
  comm->finishedUpTo.reset(new ProgressMark[members]);
  comm->progressOf.reset(new MemberProgress[members]);
  for (size_t i = 0; i < members; ++i) comm->progressOf[i].finishedOf.assign(members, 0);
  comm->sequenceOfRank.assign(comm->worldRanks.size(), 0);
  comm->name = "communicator #" + std::to_string(comm->context);
  std::lock_guard<std::mutex> guard(madeMutex_);
  made_[context] = comm;
  if (made_.size() >= 2 * madeSwept_ + 64) {
    std::erase_if(made_, [](const auto& entry) { return entry.second.expired(); });
    madeSwept_ = made_.size();
  }
  return comm;
}

void World::bind(const granule::Granule* granule, World* world, int rank) {
  std::lock_guard<std::mutex> guard(bindingsMutex);
  bindings()[granule] = {world, rank};
}

std::pair<World*, int> World::bindingOf(const granule::Granule* granule) {
  std::lock_guard<std::mutex> guard(bindingsMutex);
  auto it = bindings().find(granule);
  if (it == bindings().end()) return {nullptr, -1};
  return it->second;
}

void World::wakeLocked(int rank) {
  ++epoch_;
  // A rank that is not asleep is running or polling, and sees the change.
  if (asleep_[rank].load(std::memory_order_relaxed)) {
    asleep_[rank].store(false, std::memory_order_relaxed);
    --blocked_;
    sleepers_.fetch_sub(1);
    wakeups_[rank]->notify_one();
  }
}

void World::notify(int rank) {
  // Either the sleeper's last look sees the change, or this sees the
  // sleeper. A fence here would hold every send until its slot's cache
  // line has come over from the receiver, so where the kernel can, the
  // sleeper pays instead (see sleepUntil).
  if (sleeperFences_)
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!asleep_[rank].load(std::memory_order_relaxed)) return;
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  wakeLocked(rank);
}

bool World::sleepUntil(int rank, const WaitInfo& info, util::FunctionRef<bool()> done) {
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  waits_[rank] = info;
  for (;;) {
    if (!asleep_[rank].load(std::memory_order_relaxed)) {
      asleep_[rank].store(true, std::memory_order_relaxed);
      ++blocked_;
      sleepers_.fetch_add(1);
    }
    // `done` may complete a rendezvous send and wake its rank, which takes
    // the lock.
    ++looking_;
    lock.unlock();
    // Orders the flag before the look at `done` here and, with
    // membarrier, each waker's change before its look at the flag.
    if (sleeperFences_)
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    else
      std::atomic_thread_fence(std::memory_order_seq_cst);
    bool finished = done();
    lock.lock();
    --looking_;
    if (finished) break;
    // A waker that saw the flag clears it under the lock before notifying.
    if (asleep_[rank].load(std::memory_order_relaxed)) wakeups_[rank]->wait(lock);
  }
  if (asleep_[rank].load(std::memory_order_relaxed)) {
    asleep_[rank].store(false, std::memory_order_relaxed);
    --blocked_;
    sleepers_.fetch_sub(1);
  }
  waits_[rank].reset();
  return !aborted_;
}

bool World::waitUntilReady(int rank, const WaitInfo& info, util::FunctionRef<bool()> ready,
                           Awaited awaited) {
  Mailbox& box = *mailboxes_[rank];
  // A wait for ranks of this host leaves the connections to the ranks
  // that wait for other hosts.
  bool readsConnections = remote_ && awaited == Awaited::AnyHost;
  auto done = [&] {
    if (readsConnections) remote_->receiveWhileWaiting();
    box.drain();
    return ready() || aborted_.load(std::memory_order_relaxed);
  };
  RankCallLock& callLock = callLocks_[rank];
  if (callLock.enabled() && callLock.heldHere()) return waitSharingRank(callLock, done);
  PollScope scope = !remote_                   ? PollScope::OneHost
                    : awaited == Awaited::AnyHost ? PollScope::CrossHost
                                                  : PollScope::HostMeeting;
  if (done()) return !aborted_;
  bool polled;
  if (readsConnections) {
    remote_->startPolling();
    polled = pollUntil(done, ranksOwnCpus_, scope) || pollWhileLanding(rank, done);
    if (!polled) {
      crossHostSleepers.fetch_add(1, std::memory_order_seq_cst);
      remote_->stopPolling(/*mayLinger=*/false);
      bool ok = sleepUntil(rank, info, done);
      crossHostSleepers.fetch_sub(1, std::memory_order_seq_cst);
      return ok;
    }
    remote_->stopPolling(
        /*mayLinger=*/crossHostSleepers.load(std::memory_order_seq_cst) == 0);
  } else {
    polled = pollUntil(done, ranksOwnCpus_, scope);
  }
  if (polled) return !aborted_;
  return sleepUntil(rank, info, done);
}

bool World::waitSharingRank(RankCallLock& callLock, util::FunctionRef<bool()> done) {
  // The rank's condition variable and its asleep flag describe one waiting
  // thread, and several of this rank's threads may wait at once; so these
  // poll, backing off to short sleeps. Such a rank never counts as blocked,
  // which keeps the deadlock watch from reporting it.
  constexpr int kYieldingLooks = 64;
  constexpr std::chrono::microseconds kLongestNap{200};
  std::chrono::microseconds nap{1};
  for (int looks = 0;; ++looks) {
    if (done()) return !aborted_;
    int depth = callLock.releaseAll();
    if (looks < kYieldingLooks) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, kLongestNap);
    }
    callLock.reacquire(depth);
  }
}

void World::startSend(const std::shared_ptr<Request>& send, int destWorldRank, bool mayDefer) {
  if (isRemote(destWorldRank)) return sendRemote(send, destWorldRank, mayDefer);
  if (mailboxes_[destWorldRank]->send(send->owner, send, kEagerLimit)) markComplete(*send);
  notify(destWorldRank);
}

bool World::sendEager(int from, const Envelope& envelope, const uint8_t* data,
                      const TypeLayout& type, int64_t count, int destWorldRank, bool mayDefer) {
  if (envelope.bytes > kEagerLimit) return false;
  if (isRemote(destWorldRank)) {
    // Without credit it goes by rendezvous, through the caller's request.
    if (!takeEagerCredit(destWorldRank, envelope.bytes, /*synchronous=*/false)) return false;
    sendRemoteCopy(from, envelope, data, type, count, destWorldRank, mayDefer);
    return true;
  }
  if (mailboxes_[destWorldRank]->sendCopy(from, envelope, data, type, count, mayDefer)) {
    notify(destWorldRank);
    return true;
  }
  Outbox& outbox = outboxes_[from];
  if (!outbox.listed[destWorldRank]) {
    outbox.listed[destWorldRank] = true;
    outbox.destinations.push_back(destWorldRank);
  }
  return true;
}

void World::publishOutbox(Outbox& outbox, int rank) {
  if (outbox.batchedRemote) {
    outbox.batchedRemote = false;
    remote_->publishBatched();
  }
  for (int destination : outbox.destinations) {
    outbox.listed[destination] = false;
    if (mailboxes_[destination]->publishFrom(rank)) notify(destination);
  }
  outbox.destinations.clear();
}

void World::sendMatched(Request& send) {
  int owner = send.owner;
  if (isRemote(owner)) return acknowledgeRemoteMatch(send);
  markComplete(send);
  notify(owner);
}

void World::yieldIfSharingCpus() {
  if (!ranksOwnCpus_) std::this_thread::yield();
}

bool World::waitFor(int rank, const Request& request, const WaitInfo& info) {
  mailboxes_[rank]->drain();
  if (isCompleteNow(request)) return !aborted_;
  return waitUntilReady(rank, info, [&] { return isCompleteNow(request); });
}

bool World::waitForAny(int rank, const std::vector<Request*>& requests, const WaitInfo& info) {
  return waitUntilReady(rank, info, [&] {
    for (const Request* request : requests)
      if (request && isCompleteNow(*request)) return true;
    return false;
  });
}

std::optional<ProbeResult> World::probe(int rank, uint32_t context, int source, int tag) {
  Mailbox& box = *mailboxes_[rank];
  box.drain();
  return box.probe(context, source, tag);
}

std::optional<ProbeResult> World::waitProbe(int rank, uint32_t context, int source, int tag,
                                            const WaitInfo& info, bool& aborted) {
  Mailbox& box = *mailboxes_[rank];
  std::optional<ProbeResult> found;
  aborted = !waitUntilReady(rank, info, [&] {
    found = box.probe(context, source, tag);
    return found.has_value();
  });
  return found;
}

std::optional<Arrival> World::waitTakeMatching(int rank, uint32_t context, int source, int tag,
                                               const WaitInfo& info, bool& aborted) {
  Mailbox& box = *mailboxes_[rank];
  std::optional<Arrival> found;
  aborted = !waitUntilReady(rank, info, [&] {
    found = box.takeMatching(context, source, tag);
    return found.has_value();
  });
  return found;
}

bool World::arrive(Communicator& comm, int commRank, const WaitInfo& info) {
  uint64_t generation = comm.generation.load();
  if (comm.arrived.fetch_add(1) + 1 == comm.size()) {
    // Reset before the generation moves: a member that sees the new
    // generation may arrive at the next barrier at once.
    comm.arrived.store(0);
    comm.generation.fetch_add(1);
    announceProgress(comm.worldRanks[commRank], comm);
    return !aborted_;
  }
  return waitUntilReady(comm.worldRanks[commRank], info,
                        [&] { return comm.generation.load() != generation; });
}

void World::countProgress(int rank) {
  // Only `rank` writes its counter, so it needs no read-modify-write.
  std::atomic<uint64_t>& announced = announced_[rank].value;
  announced.store(announced.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  // Either a sleeper's last look at what it waits for sees the change, or
  // the caller's look that follows sees the sleeper (see notify()).
  if (sleeperFences_)
    std::atomic_signal_fence(std::memory_order_seq_cst);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void World::announceProgress(int rank, Communicator& comm) {
  countProgress(rank);
  if (sleepers_.load(std::memory_order_relaxed) > 0) {
    std::lock_guard<util::AdaptiveMutex> guard(mutex_);
    for (int member : comm.worldRanks) wakeLocked(member);
  }
}

void World::publishMark(int rank, Communicator& comm, std::atomic<uint64_t>& mark,
                        uint64_t value) {
  mark.store(value, std::memory_order_release);
  announceProgress(rank, comm);
}

void World::publishMarkFor(int rank, Communicator& comm, std::atomic<uint64_t>& mark,
                           uint64_t value, std::span<const int> waiters) {
  mark.store(value, std::memory_order_release);
  countProgress(rank);
  bool anyAsleep = false;
  for (int waiter : waiters)
    anyAsleep = anyAsleep || asleep_[comm.worldRanks[waiter]].load(std::memory_order_relaxed);
  if (!anyAsleep) return;
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  for (int waiter : waiters) wakeLocked(comm.worldRanks[waiter]);
}

void World::locked(const std::function<void()>& body) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  body();
}

void World::rankStarted(int rank) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  phases_[rank] = RankPhase::Running;
  ++running_;
  ++epoch_;
}

void World::rankFinished(int rank) {
  publishSends(rank);
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (phases_[rank] == RankPhase::Running) --running_;
  phases_[rank] = RankPhase::Finished;
  ++epoch_;
}

void World::rankDeparted(int rank) {
  publishSends(rank);
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (phases_[rank] == RankPhase::Running) --running_;
  phases_[rank] = RankPhase::Departed;
  ++epoch_;
}

void World::rankArrived(int rank) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (phases_[rank] != RankPhase::Departed) return;
  phases_[rank] = RankPhase::Running;
  ++running_;
  ++epoch_;
}

bool World::rankLeft(int rank) {
  if (rank < 0 || rank >= size_) return false;
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (phases_[rank] != RankPhase::Departed) return false;
  phases_[rank] = RankPhase::Finished;
  ++epoch_;
  return true;
}

namespace {

// World rank `rank`'s index in intracommunicator `comm`, whose progress it
// keeps; nullopt when it is not a member (or `comm` is an
// intercommunicator, whose progress a live move does not carry).
std::optional<size_t> progressIndex(const Communicator& comm, int rank) {
  if (rank < 0 || size_t(rank) >= comm.rankOfWorld.size() || comm.rankOfWorld[size_t(rank)] < 0 ||
      comm.inter)
    return std::nullopt;
  return size_t(comm.rankOfWorld[size_t(rank)]);
}

}  // namespace

std::optional<World::CommProgress> World::progressOf(const Communicator& comm, int rank) const {
  std::optional<size_t> member = progressIndex(comm, rank);
  if (!member) return std::nullopt;
  size_t me = *member;
  return CommProgress{comm.progressOf[me].collectives,
                      comm.finishedUpTo[me].value.load(std::memory_order_acquire),
                      comm.sequenceOfRank[me]};
}

bool World::restoreProgress(Communicator& comm, int rank, const CommProgress& progress,
                            std::string& error) {
  std::optional<size_t> member = progressIndex(comm, rank);
  if (!member) {
    error = "rank " + std::to_string(rank) + " is not a member of communicator #" +
            std::to_string(comm.context) + " here";
    return false;
  }
  size_t me = *member;
  comm.progressOf[me].collectives = progress.collectives;
  // What it knew of the others is not carried: it reads their marks again.
  std::fill(comm.progressOf[me].finishedOf.begin(), comm.progressOf[me].finishedOf.end(), 0);
  comm.sequenceOfRank[me] = progress.sequence;
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  // The others wait for this mark; wake them as publishMark would.
  comm.finishedUpTo[me].value.store(progress.finished, std::memory_order_release);
  for (int i = 0; i < size_; ++i) wakeLocked(i);
  return true;
}

std::shared_ptr<Communicator> World::liveCommunicator(uint32_t context) {
  std::lock_guard<std::mutex> guard(madeMutex_);
  auto found = made_.find(context);
  return found == made_.end() ? nullptr : found->second.lock();
}

bool World::recordAbort(int status, const std::string& message) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  bool first = !aborted_;
  if (first) {
    aborted_ = true;
    abortStatus_ = status;
    abortMessage_ = message;
  }
  for (int i = 0; i < size_; ++i) wakeLocked(i);
  return first;
}

void World::abort(int status, const std::string& message) {
  if (!recordAbort(status, message)) return;
  if (reportsAbortsItself_) std::fprintf(stderr, "synergy-run: %s\n", message.c_str());
  if (remote_) remote_->abortJob(status);
}

void World::abortByOtherHost(int status) { recordAbort(status, ""); }

int World::abortStatus() {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  return abortStatus_;
}

std::string World::takeAbortMessage() {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (abortReported_) return {};
  abortReported_ = true;
  return abortMessage_;
}

std::string World::describeWait(int rank) {
  if (phases_[rank] == RankPhase::Finished) return "finished";
  if (phases_[rank] == RankPhase::Departed)
    return "departed at a barrier control point (a live move) and has not arrived";
  if (!waits_[rank]) return "running";
  const WaitInfo& info = *waits_[rank];
  std::ostringstream text;
  text << "blocked in " << info.call;
  auto rankText = [](int r) {
    if (r == abi::kAnySource) return std::string("MPI_ANY_SOURCE");
    return std::to_string(r);
  };
  std::string call = info.call;
  bool receives = call.find("Recv") != std::string::npos ||
                  call.find("Probe") != std::string::npos || call.find("probe") != std::string::npos ||
                  call.find("Wait") != std::string::npos;
  bool sends = call.find("send") != std::string::npos || call.find("Send") != std::string::npos;
  if (receives && call.find("Wait") == std::string::npos)
    text << " (source " << rankText(info.peer) << ", tag "
         << (info.tag == abi::kAnyTag ? std::string("MPI_ANY_TAG") : std::to_string(info.tag))
         << ")";
  else if (sends)
    text << " (destination " << info.peer << ", tag " << info.tag << ")";
  if (info.comm) text << " on " << info.comm->name;
  return text.str();
}

std::optional<std::string> World::checkDeadlock(int stableTicks) {
  if (remote_) return remote_->checkJobDeadlock(stableTicks);
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  bool allStarted =
      std::find(phases_.begin(), phases_.end(), RankPhase::NotStarted) == phases_.end();
  bool departed = std::find(phases_.begin(), phases_.end(), RankPhase::Departed) != phases_.end();
  uint64_t epoch = epoch_.load();
  for (int rank = 0; rank < size_; ++rank) epoch += announced_[rank].value.load();
  // A departed rank is neither running nor blocked, and the others may be
  // held for it (or have finished): the job waits for it, so its not
  // arriving is reported as every rank being blocked would be.
  if (aborted_ || !allStarted || (running_ == 0 && !departed) || blocked_ < running_ ||
      looking_ != 0 || epoch != watchedEpoch_) {
    watchedEpoch_ = epoch;
    quietTicks_ = 0;
    return std::nullopt;
  }
  // Its arrival (decoding and restoring its memory, a second or more for a
  // large one on a loaded machine) changes nothing the check sees until it
  // is done, so a departed rank is given many more ticks.
  if (++quietTicks_ < (departed ? stableTicks * kDepartedRankTicksFactor : stableTicks))
    return std::nullopt;
  std::ostringstream report;
  report << kDeadlockReportHeading;
  for (int rank = 0; rank < size_; ++rank)
    report << "\n  rank " << rank << ": " << describeWait(rank);
  return report.str();
}

// The ranks of other hosts never start here, so this host only says whether
// its own are all blocked; the link compares that with the other hosts'
// states and counts the messages in flight between them.
HostQuietState World::hostQuietState() {
  HostQuietState local;
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  bool allStarted = true, allFinished = true;
  for (int rank = 0; rank < size_; ++rank) {
    if (isRemote(rank)) continue;
    allStarted = allStarted && phases_[rank] != RankPhase::NotStarted;
    allFinished = allFinished && phases_[rank] == RankPhase::Finished;
  }
  local.progress = epoch_.load();
  for (int rank = 0; rank < size_; ++rank) local.progress += announced_[rank].value.load();
  local.finished = allFinished;
  local.quiet = !aborted_ && allStarted && blocked_ >= running_ && looking_ == 0;
  if (local.quiet)
    for (int rank = 0; rank < size_; ++rank)
      if (!isRemote(rank)) local.waits.emplace_back(rank, describeWait(rank));
  return local;
}

}  // namespace synergy::mpi
