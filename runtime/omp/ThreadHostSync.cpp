//===- ThreadHostSync.cpp - a thread host's synchronisation through the main host
#include "omp/ThreadHostSync.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "omp/Team.h"
#include "wasm-rt.h"

namespace synergy::omp {
namespace {

// A trapped thread's status, as endProcessFromThread's.
constexpr uint32_t kTrapExitStatus = 134;

// Set while this process is a thread host, so that the libc lock of other
// processes never looks for an OpenMP team.
std::atomic<bool> servingAsThreadHost{false};

// The waiter numbers of the process's threads (SyncMessages.h): 0 is the
// asking thread itself.
std::atomic<uint32_t> lastWaiter{0};

}  // namespace

ThreadHostSync::ThreadHostSync(MainHostLink& link, granule::Granule& root,
                               snapshot::CopyLink& copy)
    : link_(link), root_(root), copy_(copy) {
  servingAsThreadHost.store(true);
  std::string error;
  snapshot::LinearMemory& memory = *root_.linearMemory();
  written_ = snapshot::createDirtyTracker(snapshot::DirtyTrackingMode::Mprotect, error);
  if (written_ && !written_->start(memory.base(), memory.sizeBytes(), error)) written_.reset();
}

ThreadHostSync::~ThreadHostSync() {
  if (written_) written_->stop();
  servingAsThreadHost.store(false);
}

bool ThreadHostSync::shipWrites(std::vector<std::vector<uint8_t>>& update, std::string& error) {
  const snapshot::LinearMemory& memory = *root_.linearMemory();
  if (!written_) return copy_.ship(memory, link_.maxPayloadBytes(), update, error);
  // The guest grew the copy (malloc, under libc's lock): the new pages count
  // as written.
  if (memory.sizeBytes() > written_->bytes() && !written_->extend(memory.sizeBytes(), error))
    return false;
  return copy_.shipPages(memory, written_->takeDirtyPages(), link_.maxPayloadBytes(), update,
                         error);
}

void ThreadHostSync::fail(const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: thread host: %s\n", message.c_str());
  std::_Exit(2);
}

bool ThreadHostSync::acceptUpdate(const std::vector<uint8_t>& payload, std::string& error) {
  snapshot::LinearMemory& memory = *root_.linearMemory();
  snapshot::CopyUpdate update;
  if (!snapshot::parseCopyUpdate(payload.data(), payload.size(), memory.maxPages(), update, error))
    return false;
  std::lock_guard<std::mutex> guard(linkLock_);
  wasm_rt_memory_t* wasmMemory = root_.module().memory(root_.instance());
  if (update.pages > wasmMemory->pages &&
      wasm_rt_grow_memory(wasmMemory, uint32_t(update.pages - wasmMemory->pages)) == UINT32_MAX) {
    error = "cannot grow the copy to " + std::to_string(update.pages) + " pages";
    return false;
  }
  if (written_ && memory.sizeBytes() > written_->bytes() &&
      !written_->extend(memory.sizeBytes(), error))
    return false;
  return copy_.accept(update, memory, error);
}

bool ThreadHostSync::deliverReply(const std::vector<uint8_t>& payload, std::string& error) {
  SyncReply reply;
  if (!decodeSyncReply(payload.data(), payload.size(), reply, error)) return false;
  {
    std::lock_guard<std::mutex> guard(linkLock_);
    // An answer that acquires follows its whole update.
    if (!copy_.updateComplete() || (reply.withUpdate && copy_.receivedSequence() == 0)) {
      error = "a synchronisation answer in the middle of a copy update";
      return false;
    }
  }
  std::lock_guard<std::mutex> guard(answersLock_);
  auto waiting = answers_.find({reply.threadNum, reply.waiter});
  if (waiting == answers_.end() || waiting->second.arrived) {
    error = "an answer to thread " + std::to_string(reply.threadNum) +
            (reply.waiter ? " (waiter " + std::to_string(reply.waiter) + ")" : "") +
            ", which waits for none";
    return false;
  }
  waiting->second = Answer{true, reply};
  answered_.notify_all();
  return true;
}

uint32_t ThreadHostSync::waiter() {
  thread_local const uint32_t mine = lastWaiter.fetch_add(1) + 1;
  return mine;
}

uint32_t ThreadHostSync::spreadThread(const OmpThread& me) {
  int number = me.at.threadNum;
  for (const Team* team = me.at.team; team && !team->threadHost; team = team->parent)
    number = team->parentThreadNum;
  return uint32_t(number);
}

SyncReply ThreadHostSync::call(SyncRequest request, bool answered, uint32_t reductionList) {
  // Threads of a nested team ask as the spread team's thread they descend
  // from, each as its own waiter: each has its answer, and the main host
  // serves each on its own.
  const std::pair<uint32_t, uint32_t> asker{request.threadNum, request.waiter};
  if (answered) {
    std::unique_lock<std::mutex> lock(answersLock_);
    answered_.wait(lock, [&] { return !answers_.count(asker); });
    answers_[asker] = Answer{};
  }
  {
    std::lock_guard<std::mutex> guard(linkLock_);
    std::vector<std::vector<uint8_t>> update;
    std::string error;
    if ((reductionList || syncOpReleases(request.op)) && !shipWrites(update, error))
      fail(error);
    if (reductionList)
      link_.sendUpdate(std::move(update), reductionList);
    else
      link_.sendRequest(std::move(update), encodeSyncRequest(request));
  }
  if (!answered) return SyncReply{};
  std::unique_lock<std::mutex> lock(answersLock_);
  answered_.wait(lock, [&] { return answers_.at(asker).arrived; });
  SyncReply reply = answers_.at(asker).reply;
  answers_.erase(asker);
  answered_.notify_all();
  return reply;
}

void ThreadHostSync::barrier(OmpThread& me) {
  Team& team = *me.at.team;
  TaskPool& tasks = team.tasks;
  uint32_t generation = team.barrier.generation();
  if (!team.barrier.arrive()) {
    runTasksAsAtBarrier(me, [&] { return team.barrier.generation() != generation; });
    return;
  }
  // Every thread of the host is here, so once the host's tasks are done no
  // more can be created before the barrier opens: only then does the host's
  // party arrive, carrying the tasks' writes.
  runTasksAsAtBarrier(me, [&] { return tasks.unfinished.load(std::memory_order_acquire) == 0; });
  SyncReply reply = call(SyncRequest{SyncOp::Barrier, uint32_t(me.at.threadNum), {}}, true);
  team.copyprivateData.store(uint32_t(reply.results[0]), std::memory_order_release);
  team.barrier.complete();
  tasks.signal();
}

int ThreadHostSync::localOwner(const OmpThread& me) {
  std::lock_guard<std::mutex> guard(localOwnersLock_);
  return localOwners_.emplace(&me, int(localOwners_.size())).first->second;
}

int ThreadHostSync::lock(OmpThread& me, uint32_t key, bool nested) {
  hostLocks_.lock(key, localOwner(me), nested);
  SyncOp op = nested ? SyncOp::NestLock : SyncOp::Lock;
  return int(call(SyncRequest{op, spreadThread(me), {key}, waiter()}, true).results[0]);
}

int ThreadHostSync::testLock(OmpThread& me, uint32_t key, bool nested) {
  if (hostLocks_.tryLock(key, localOwner(me), nested) == 0) return 0;
  SyncOp op = nested ? SyncOp::TestNestLock : SyncOp::TestLock;
  int depth = int(call(SyncRequest{op, spreadThread(me), {key}, waiter()}, true).results[0]);
  if (depth == 0) hostLocks_.unlock(key, localOwner(me));
  return depth;
}

void ThreadHostSync::unlock(OmpThread& me, uint32_t key) {
  if (!hostLocks_.heldBy(key, localOwner(me)))
    fail("thread " + std::to_string(me.globalThreadId()) +
         " released an OpenMP critical section or lock it does not hold");
  // The unlock goes out before another of the host's threads may ask.
  call(SyncRequest{SyncOp::Unlock, spreadThread(me), {key}, waiter()}, false);
  hostLocks_.unlock(key, localOwner(me));
}

bool ThreadHostSync::single(OmpThread& me, uint64_t number) {
  return call(SyncRequest{SyncOp::Single, uint32_t(me.at.threadNum), {number}}, true)
             .results[0] == 1;
}

void ThreadHostSync::offerCopyprivate(OmpThread& me, uint32_t data) {
  me.at.team->copyprivateData.store(data, std::memory_order_release);
  call(SyncRequest{SyncOp::Copyprivate, uint32_t(me.at.threadNum), {data}}, false);
}

SyncRequest ThreadHostSync::loopRequest(SyncOp op, OmpThread& me, const LoopShare& loop,
                                        uint64_t value) {
  return SyncRequest{op,
                     uint32_t(me.at.threadNum),
                     {me.at.loopIndex, value, loop.tripCount,
                      uint64_t(loop.kind) | (loop.ordered ? 1ull << 32 : 0), loop.chunk}};
}

bool ThreadHostSync::claimChunk(OmpThread& me, const LoopShare& loop, uint64_t& begin,
                                uint64_t& end) {
  uint64_t& next = me.at.claimedNext;
  uint64_t& claimedEnd = me.at.claimedEnd;
  if (next >= claimedEnd) {
    SyncReply reply = call(loopRequest(SyncOp::LoopChunk, me, loop, 0), true);
    next = reply.results[0];
    claimedEnd = reply.results[1];
    if (next >= claimedEnd) {
      next = claimedEnd = 0;
      return false;
    }
    if (claimedEnd > loop.tripCount) fail("a loop chunk past the loop's end");
  }
  // The main host's claim holds whole chunks of a dynamic loop
  // (claimSharedChunks), run one at a time; a guided claim is one chunk.
  begin = next;
  end = loop.kind == LoopShare::kDynamic ? std::min(claimedEnd, begin + loop.chunk) : claimedEnd;
  next = end;
  return true;
}

void ThreadHostSync::orderedEnter(OmpThread& me, const LoopShare& loop, uint32_t iteration) {
  call(loopRequest(SyncOp::OrderedEnter, me, loop, iteration), true);
}

void ThreadHostSync::orderedLeave(OmpThread& me, const LoopShare& loop, uint32_t iteration) {
  call(loopRequest(SyncOp::OrderedLeave, me, loop, iteration), false);
}

void ThreadHostSync::orderedSkip(OmpThread& me, const LoopShare& loop, uint32_t iteration) {
  call(loopRequest(SyncOp::OrderedSkip, me, loop, iteration), false);
}

void ThreadHostSync::reduce(uint32_t threadNum, uint32_t list) {
  call(SyncRequest{SyncOp::ReductionArrive, threadNum, {}}, true, list);
}

uint32_t ThreadHostSync::createAllocator(OmpThread& me, const AllocatorTraits& traits) {
  SyncRequest request{SyncOp::AllocatorCreate, spreadThread(me), {}, waiter()};
  encodeAllocatorTraits(traits, request.arguments);
  uint64_t handle = call(request, true).results[0];
  if (handle != kNullAllocator && (handle < kFirstUserAllocator || handle > UINT32_MAX))
    fail("a new allocator's handle " + std::to_string(handle) + " is no user allocator's");
  return uint32_t(handle);
}

void ThreadHostSync::destroyAllocator(OmpThread& me, uint32_t handle) {
  call(SyncRequest{SyncOp::AllocatorDestroy, spreadThread(me), {handle}, waiter()}, false);
}

std::optional<AllocatorTraits> ThreadHostSync::allocatorTraits(OmpThread& me, uint32_t handle) {
  SyncReply reply =
      call(SyncRequest{SyncOp::AllocatorTraits, spreadThread(me), {handle}, waiter()}, true);
  if (reply.results[0] == 0) return std::nullopt;
  AllocatorTraits traits;
  if (!decodeAllocatorTraits(reply.results, traits))
    fail("malformed traits of allocator " + std::to_string(handle));
  return traits;
}

bool ThreadHostSync::reservePool(OmpThread& me, uint32_t handle, uint64_t bytes) {
  SyncRequest request{SyncOp::PoolReserve, spreadThread(me), {handle, bytes}, waiter()};
  uint64_t reserved = call(request, true).results[0];
  if (reserved > 1) fail("a pool reservation answered " + std::to_string(reserved));
  return reserved == 1;
}

void ThreadHostSync::refundPool(OmpThread& me, uint32_t handle, uint64_t bytes) {
  call(SyncRequest{SyncOp::PoolRefund, spreadThread(me), {handle, bytes}, waiter()}, false);
}

void ThreadHostSync::fulfilEvent(OmpThread& me, uint32_t event) {
  call(SyncRequest{SyncOp::FulfillEvent, spreadThread(me), {event}, waiter()}, false);
}

void ThreadHostSync::lockLibc(OmpThread& me) {
  // The threads of a spread thread's nested teams ask as that thread, each
  // as its own waiter, whose proxy on the main host takes libc's lock and
  // so must release it: lock and unlock come from one OS thread here. The
  // host lets one of its threads hold it at a time.
  libcOnThisHost_.lock();
  call(SyncRequest{SyncOp::LibcLock, spreadThread(me), {}, waiter()}, true);
}

void ThreadHostSync::unlockLibc(OmpThread& me) {
  call(SyncRequest{SyncOp::LibcUnlock, spreadThread(me), {}, waiter()}, false);
  libcOnThisHost_.unlock();
}

void ThreadHostSync::lockLibc(uint32_t pthread) {
  call(SyncRequest{SyncOp::LibcLock, pthread, {}}, true);
}

void ThreadHostSync::unlockLibc(uint32_t pthread) {
  call(SyncRequest{SyncOp::LibcUnlock, pthread, {}}, false);
}

uint64_t ThreadHostSync::pthreadCall(uint32_t pthread, uint32_t function, uint32_t a, uint32_t b,
                                     uint32_t c) {
  return call(SyncRequest{SyncOp::PthreadCall, pthread, {function, a, b, c}}, true).results[0];
}

void ThreadHostSync::pthreadEnd(uint32_t pthread, uint32_t result) {
  call(SyncRequest{SyncOp::PthreadEnd, pthread, {result}}, false);
}

void ThreadHostSync::endJob(uint32_t threadNum, const granule::RunResult& outcome,
                            uint32_t asWaiter) {
  uint32_t status = uint32_t(outcome.exitCode);
  if (outcome.kind == granule::RunResult::Kind::Trapped) {
    std::fprintf(stderr, "trap: %s in %s\n", outcome.trapReason.c_str(),
                 outcome.trapFunction.c_str());
    status = kTrapExitStatus;
  }
  std::fflush(nullptr);
  jobEnded_.store(true);
  call(SyncRequest{SyncOp::ThreadExit, threadNum, {status}, asWaiter}, false);
  for (;;) pause();
}

void ThreadHostSync::endJob(const OmpThread& me, const granule::RunResult& outcome) {
  endJob(spreadThread(me), outcome, waiter());
}

void ThreadHostSync::finishRegion(uint32_t threadNum) {
  call(SyncRequest{SyncOp::Join, threadNum, {}}, false);
}

uint64_t ThreadHostSync::atomic(uint32_t threadNum, const granule::AtomicAccess& access,
                                uint32_t asWaiter) {
  SyncRequest request{SyncOp::Atomic,
                      threadNum,
                      {access.address, access.operand, access.replacement,
                       uint64_t(access.op) | uint64_t(access.width) << 8},
                      asWaiter};
  uint64_t old = call(request, true).results[0];
  if (access.width < 8 && old >> (8 * access.width) != 0)
    fail("an atomic's old value " + std::to_string(old) + " wider than its " +
         std::to_string(access.width) + " bytes");
  return old;
}

void ThreadHostSync::acquire(uint32_t threadNum, uint32_t asWaiter) {
  call(SyncRequest{SyncOp::Acquire, threadNum, {}, asWaiter}, true);
}

void ThreadHostSync::release(uint32_t threadNum, uint32_t asWaiter) {
  call(SyncRequest{SyncOp::Release, threadNum, {}, asWaiter}, false);
}

uint32_t RemoteSync::asWaiter() const { return perThread_ ? ThreadHostSync::waiter() : 0; }

void RemoteSync::acquire() { sync_.acquire(threadNum_, asWaiter()); }

void RemoteSync::release() { sync_.release(threadNum_, asWaiter()); }

uint64_t RemoteSync::performAtomic(const granule::AtomicAccess& access, uint8_t* /*cell*/) {
  return sync_.atomic(threadNum_, access, asWaiter());
}

ThreadHostSync* threadHostSyncOf(granule::Granule& granule) {
  if (!servingAsThreadHost.load(std::memory_order_relaxed)) return nullptr;
  for (Team* team = ompThread(granule).at.team; team; team = team->parent)
    if (team->threadHost) return team->threadHost;
  return nullptr;
}

}  // namespace synergy::omp
