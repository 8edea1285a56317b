//===- World.cpp - the shared state of one MPI job on this host -----------===//
#include "mpi/World.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "mpi/MpiAbi.h"

namespace synergy::mpi {

namespace {

// Standard sends up to this many bytes are buffered and complete at once, as
// OpenMPI's shared-memory transport does for small messages; larger ones
// wait for their receive and are copied once.
constexpr int64_t kEagerLimit = 8192;

// A waiting rank polls for its wake-up before it sleeps on its condition
// variable: a futex wake-up costs microseconds, a poll that sees the message
// much less, as in shared-memory MPI transports.
//  - A rank with a CPU to itself spins for kBusyPoll, which covers a
//    ping-pong round trip with room to spare. It never yields: bound to a
//    CPU that other processes share, it would give it away for a whole time
//    slice.
//  - Ranks that share CPUs yield between polls, kYieldPolls times, so that
//    the rank they wait for can run in their place, as mpirun does when
//    oversubscribed.
constexpr auto kBusyPoll = std::chrono::microseconds(100);
constexpr int kYieldPolls = 20;

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `ready` until it holds; false when the budget ran out.
template <typename Ready>
bool pollUntil(const Ready& ready, bool ownCpu) {
  if (!ownCpu) {
    for (int i = 0; i < kYieldPolls; ++i) {
      if (ready()) return true;
      std::this_thread::yield();
    }
    return ready();
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

bool envelopeMatches(const Request& recv, uint32_t context, int source, int tag) {
  return recv.context == context && (recv.peer == abi::kAnySource || recv.peer == source) &&
         (recv.tag == abi::kAnyTag || recv.tag == tag);
}

// Copies a message's data into a posted receive and fills its status.
void deliver(const uint8_t* src, const TypeLayout& srcType, int64_t srcCount, int64_t srcBytes,
             int source, int tag, Request& recv) {
  int64_t bytes = std::min(srcBytes, recv.bytes);
  copyTyped(src, srcType, srcCount, recv.buffer, *recv.type, recv.count, bytes);
  recv.statusSource = source;
  recv.statusTag = tag;
  recv.statusBytes = bytes;
  recv.statusError = srcBytes > recv.bytes ? abi::kErrTruncate : abi::kSuccess;
}

}  // namespace

World::World(int size, bool ranksOwnCpus)
    : size_(size),
      wakeCounts_(new std::atomic<uint64_t>[size]),
      ranksOwnCpus_(ranksOwnCpus),
      mailboxes_(size),
      phases_(size),
      waits_(size),
      asleep_(size, 0) {
  for (int i = 0; i < size; ++i) {
    wakeups_.push_back(std::make_unique<std::condition_variable_any>());
    wakeCounts_[i].store(0);
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

std::shared_ptr<Communicator> World::makeCommunicator(std::vector<int> worldRanks) {
  auto comm = std::make_shared<Communicator>();
  {
    std::lock_guard<std::mutex> guard(contextMutex_);
    comm->context = nextContext_++;
  }
  comm->rankOfWorld.assign(size_, -1);
  for (size_t i = 0; i < worldRanks.size(); ++i) comm->rankOfWorld[worldRanks[i]] = int(i);
  comm->worldRanks = std::move(worldRanks);
  size_t members = comm->worldRanks.size();
  for (std::vector<Contribution>& slots : comm->slotSets) slots.resize(members);
  comm->collectivesOfMember.assign(members, 0);
  comm->postedUpTo.reset(new std::atomic<uint64_t>[members]);
  comm->finishedUpTo.reset(new std::atomic<uint64_t>[members]);
  for (size_t i = 0; i < members; ++i) {
    comm->postedUpTo[i].store(0);
    comm->finishedUpTo[i].store(0);
  }
  comm->sequenceOfRank.assign(comm->worldRanks.size(), 0);
  comm->name = "communicator #" + std::to_string(comm->context);
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
  wakeCounts_[rank].fetch_add(1, std::memory_order_release);
  // A rank that is not asleep is running or polling, and sees the count.
  if (asleep_[rank]) {
    asleep_[rank] = 0;
    --blocked_;
    sleepers_.fetch_sub(1);
    wakeups_[rank]->notify_one();
  }
}

bool World::waitLocked(std::unique_lock<util::AdaptiveMutex>& lock, int rank, const WaitInfo& info,
                       const std::function<bool()>& done, bool poll) {
  if (done()) return !aborted_;
  if (poll) {
    uint64_t seen = wakeCounts_[rank].load(std::memory_order_acquire);
    lock.unlock();
    pollUntil([&] { return wakeCounts_[rank].load(std::memory_order_acquire) != seen; },
              ranksOwnCpus_);
    lock.lock();
    if (done() || aborted_) return !aborted_;
  }
  waits_[rank] = info;
  while (!done() && !aborted_) {
    if (!asleep_[rank]) {
      // Announced before `done` is looked at again, so that a lock-free
      // waker either is seen by that check or sees this sleeper.
      asleep_[rank] = 1;
      ++blocked_;
      sleepers_.fetch_add(1);
      continue;
    }
    wakeups_[rank]->wait(lock);
  }
  if (asleep_[rank]) {
    asleep_[rank] = 0;
    --blocked_;
    sleepers_.fetch_sub(1);
  }
  waits_[rank].reset();
  return !aborted_;
}

bool World::waitUntilReady(int rank, const WaitInfo& info, const std::function<bool()>& ready) {
  if (ready() || pollUntil(ready, ranksOwnCpus_)) return !aborted_;
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  return waitLocked(lock, rank, info, ready, /*poll=*/false);
}

void World::startSend(const std::shared_ptr<Request>& send, int destWorldRank) {
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  Mailbox& box = mailboxes_[destWorldRank];
  for (auto it = box.posted.begin(); it != box.posted.end(); ++it) {
    if (!envelopeMatches(**it, send->context, send->senderRank, send->tag)) continue;
    std::shared_ptr<Request> recv = *it;
    box.posted.erase(it);
    lock.unlock();
    deliver(send->buffer, *send->type, send->count, send->bytes, send->senderRank, send->tag,
            *recv);
    lock.lock();
    markComplete(*recv);
    markComplete(*send);
    wakeLocked(destWorldRank);
    return;
  }
  Mailbox::Message message{send->context, send->senderRank, send->tag, send->bytes, {}, nullptr};
  if (send->buffered || (!send->synchronous && send->bytes <= kEagerLimit)) {
    message.eager.resize(size_t(send->bytes));
    packTyped(send->buffer, *send->type, send->count, message.eager.data());
    markComplete(*send);
  } else {
    message.rendezvous = send;
  }
  box.unexpected.push_back(std::move(message));
  wakeLocked(destWorldRank);
}

void World::startRecv(const std::shared_ptr<Request>& recv) {
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  Mailbox& box = mailboxes_[recv->owner];
  for (auto it = box.unexpected.begin(); it != box.unexpected.end(); ++it) {
    if (!envelopeMatches(*recv, it->context, it->source, it->tag)) continue;
    Mailbox::Message message = std::move(*it);
    box.unexpected.erase(it);
    lock.unlock();
    if (message.rendezvous) {
      const Request& send = *message.rendezvous;
      deliver(send.buffer, *send.type, send.count, send.bytes, message.source, message.tag, *recv);
    } else {
      deliver(message.eager.data(), *predefinedLayout(4), message.bytes, message.bytes,
              message.source, message.tag, *recv);
    }
    lock.lock();
    markComplete(*recv);
    if (message.rendezvous) {
      markComplete(*message.rendezvous);
      wakeLocked(message.rendezvous->owner);
    }
    ++epoch_;
    return;
  }
  box.posted.push_back(recv);
}

bool World::isComplete(const Request& request) { return isCompleteNow(request); }

void World::yieldIfSharingCpus() {
  if (!ranksOwnCpus_) std::this_thread::yield();
}

bool World::waitFor(int rank, const Request& request, const WaitInfo& info) {
  return waitUntilReady(rank, info, [&] { return isCompleteNow(request); });
}

bool World::waitForAny(int rank, const std::vector<Request*>& requests, const WaitInfo& info) {
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  return waitLocked(lock, rank, info, [&] {
    for (const Request* request : requests)
      if (request && request->complete) return true;
    return false;
  });
}

std::optional<ProbeResult> World::probe(int rank, uint32_t context, int source, int tag) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  Request filter;
  filter.context = context;
  filter.peer = source;
  filter.tag = tag;
  for (const Mailbox::Message& message : mailboxes_[rank].unexpected)
    if (envelopeMatches(filter, message.context, message.source, message.tag))
      return ProbeResult{message.source, message.tag, message.bytes};
  return std::nullopt;
}

std::optional<ProbeResult> World::waitProbe(int rank, uint32_t context, int source, int tag,
                                            const WaitInfo& info, bool& aborted) {
  std::unique_lock<util::AdaptiveMutex> lock(mutex_);
  Request filter;
  filter.context = context;
  filter.peer = source;
  filter.tag = tag;
  std::optional<ProbeResult> found;
  aborted = !waitLocked(lock, rank, info, [&] {
    for (const Mailbox::Message& message : mailboxes_[rank].unexpected) {
      if (envelopeMatches(filter, message.context, message.source, message.tag)) {
        found = ProbeResult{message.source, message.tag, message.bytes};
        return true;
      }
    }
    return false;
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
    announceProgress(comm);
    return !aborted_;
  }
  return waitUntilReady(comm.worldRanks[commRank], info,
                        [&] { return comm.generation.load() != generation; });
}

void World::announceProgress(Communicator& comm) {
  epoch_.fetch_add(1);
  if (sleepers_.load() > 0) {
    std::lock_guard<util::AdaptiveMutex> guard(mutex_);
    for (int member : comm.worldRanks) wakeLocked(member);
  }
}

void World::publishMark(Communicator& comm, std::atomic<uint64_t>& mark, uint64_t value) {
  mark.store(value);
  announceProgress(comm);
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
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (phases_[rank] == RankPhase::Running) --running_;
  phases_[rank] = RankPhase::Finished;
  ++epoch_;
}

void World::abort(int status, const std::string& message) {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  if (!aborted_) {
    aborted_ = true;
    abortStatus_ = status;
    abortMessage_ = message;
  }
  for (int i = 0; i < size_; ++i) wakeLocked(i);
}

bool World::aborted() {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  return aborted_;
}

int World::abortStatus() {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  return abortStatus_;
}

std::string World::abortMessage() {
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  return abortMessage_;
}

std::string World::describeWait(int rank) {
  if (phases_[rank] == RankPhase::Finished) return "finished";
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
                  call.find("Probe") != std::string::npos || call.find("Wait") != std::string::npos;
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
  std::lock_guard<util::AdaptiveMutex> guard(mutex_);
  bool allStarted =
      std::find(phases_.begin(), phases_.end(), RankPhase::NotStarted) == phases_.end();
  uint64_t epoch = epoch_.load();
  if (aborted_ || !allStarted || running_ == 0 || blocked_ < running_ ||
      epoch != watchedEpoch_) {
    watchedEpoch_ = epoch;
    quietTicks_ = 0;
    return std::nullopt;
  }
  if (++quietTicks_ < stableTicks) return std::nullopt;
  std::ostringstream report;
  report << "deadlock: every running rank is blocked and no message can arrive";
  for (int rank = 0; rank < size_; ++rank)
    report << "\n  rank " << rank << ": " << describeWait(rank);
  return report.str();
}

}  // namespace synergy::mpi
