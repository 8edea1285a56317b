//===- HostSyncService.cpp - the main host's side of a spread region's synchronisation
#include "omp/HostSyncService.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "granule/ProcessEnd.h"
#include "omp/Allocators.h"
#include "omp/DsmTeam.h"
#include "omp/KeyedLocks.h"
#include "omp/Team.h"

namespace synergy::omp {
namespace {

// The most waiters (a nested team's threads) a thread host may bring per
// region: each is a thread here.
constexpr size_t kMaxWaiterProxiesPerHost = 1024;

}  // namespace

HostSyncService::HostSyncService(ThreadHostLink& link, Team& team, KeyedLocks& locks,
                                 std::recursive_mutex& libcLock, AllocatorTable& allocators,
                                 std::vector<HostCopy*> copies,
                                 std::vector<std::vector<int>> placement,
                                 std::map<int, int> globalIds)
    : link_(link),
      team_(team),
      locks_(locks),
      libcLock_(libcLock),
      allocators_(allocators),
      copies_(std::move(copies)),
      placement_(std::move(placement)),
      globalIds_(std::move(globalIds)),
      waiterProxies_(placement_.size(), 0),
      reductionLists_(placement_.size()),
      shippedVersions_(placement_.size(), 0) {
  for (uint32_t host = 0; host < placement_.size(); ++host)
    for (int thread : placement_[host]) {
      auto proxy = std::make_unique<Proxy>();
      proxy->host = host;
      proxy->threadNum = thread;
      proxies_[{thread, 0}] = std::move(proxy);
    }
  for (auto& [thread, proxy] : proxies_) {
    Proxy* raw = proxy.get();
    raw->thread = std::thread([this, raw] { runProxy(*raw); });
  }
  for (uint32_t host = 0; host < placement_.size(); ++host)
    services_.emplace_back([this, host] { serve(host); });
}

HostSyncService::~HostSyncService() { finish(); }

void HostSyncService::fail(uint32_t host, const std::string& message) {
  std::fprintf(stderr, "synergy-run: error: thread host %u: %s\n", host + 1, message.c_str());
  std::_Exit(2);
}

void HostSyncService::finish() {
  for (std::thread& service : services_)
    if (service.joinable()) service.join();
  {
    std::lock_guard<std::mutex> guard(lock_);
    for (auto& [thread, proxy] : proxies_) proxy->closed = true;
    changed_.notify_all();
  }
  for (auto& [thread, proxy] : proxies_)
    if (proxy->thread.joinable()) proxy->thread.join();
}

uint32_t HostSyncService::takeReductionList(uint32_t host) {
  std::unique_lock<std::mutex> lock(lock_);
  changed_.wait(lock, [&] { return !reductionLists_.at(host).empty(); });
  uint32_t list = reductionLists_[host].front();
  reductionLists_[host].pop_front();
  return list;
}

bool HostCopy::mergeUpdate(const std::vector<uint8_t>& payload, snapshot::DsmReplica& standIn,
                           bool& released, std::string& error) {
  if (released) {
    error = "a copy update where the operation it releases was due";
    return false;
  }
  snapshot::LinearMemory& memory = standIn.memory();
  snapshot::CopyUpdate update;
  if (!snapshot::parseCopyUpdate(payload.data(), payload.size(), memory.maxPages(), update,
                                 error))
    return false;
  std::lock_guard<std::mutex> guard(lock);
  if (link.updateComplete() && !standIn.pull()) {
    error = "cannot grow its stand-in replica";
    return false;
  }
  if (update.pages > memory.pages() && memory.grow(update.pages - memory.pages()) < 0) {
    error = "cannot grow its stand-in replica to " + std::to_string(update.pages) + " pages";
    return false;
  }
  if (!link.accept(update, memory, error)) return false;
  noteJoinBytes(payload.size());
  if (link.updateComplete()) {
    if (!standIn.push()) {
      error = "cannot grow the main memory for its writes";
      return false;
    }
    released = true;
    updateMerged.notify_all();
  }
  return true;
}

void HostSyncService::serve(uint32_t host) {
  HostCopy& copy = *copies_[host];
  snapshot::DsmReplica& standIn = team_.dsm->standIn(int(host));
  // A complete update waits for the operation it releases.
  bool released = false;
  for (;;) {
    std::vector<uint8_t> payload;
    ThreadHostLink::FromHost kind = ThreadHostLink::FromHost::Update;
    std::string error;
    if (!link_.nextFromHost(host, payload, kind, error)) fail(host, error);
    if (kind == ThreadHostLink::FromHost::Update) {
      if (!copy.mergeUpdate(payload, standIn, released, error)) fail(host, error);
      continue;
    }
    if (kind == ThreadHostLink::FromHost::ReductionList) {
      if (!released || payload.size() != 4)
        fail(host, "a reduction list that does not follow a copy update");
      released = false;
      uint32_t list = uint32_t(payload[0]) | uint32_t(payload[1]) << 8 |
                      uint32_t(payload[2]) << 16 | uint32_t(payload[3]) << 24;
      std::lock_guard<std::mutex> guard(lock_);
      reductionLists_[host].push_back(list);
      Proxy& leader = *proxies_.at({placement_[host].front(), 0});
      leader.requests.push_back(SyncRequest{SyncOp::ReductionArrive, uint32_t(leader.threadNum), {}});
      changed_.notify_all();
      continue;
    }
    SyncRequest request;
    if (!decodeSyncRequest(payload.data(), payload.size(), request, error)) fail(host, error);
    const std::vector<int>& threads = placement_[host];
    if (std::find(threads.begin(), threads.end(), int(request.threadNum)) == threads.end())
      fail(host, "a request of thread " + std::to_string(request.threadNum) +
                     ", which it does not run");
    if (syncOpReleases(request.op) != released)
      fail(host, released ? "a copy update followed by an operation that does not release"
                          : "an operation that releases without its copy update");
    released = false;
    noteSynchronisation();
    if (request.op == SyncOp::Join) return;
    handle(host, request);
  }
}

bool HostSyncService::handleAllocatorRequest(uint32_t host, const SyncRequest& request) {
  auto handleArgument = [&] {
    if (request.arguments[0] > UINT32_MAX) fail(host, "an allocator handle past 2^32");
    return uint32_t(request.arguments[0]);
  };
  switch (request.op) {
    case SyncOp::AllocatorCreate: {
      AllocatorTraits traits;
      if (!decodeAllocatorTraits(request.arguments, traits))
        fail(host, "malformed traits of a new allocator");
      answer(host, request, allocators_.create(traits), 0, false);
      return true;
    }
    case SyncOp::AllocatorDestroy:
      allocators_.destroy(handleArgument());
      return true;
    case SyncOp::AllocatorTraits: {
      uint64_t words[2] = {0, 0};
      if (std::optional<AllocatorTraits> traits = allocators_.traits(handleArgument()))
        encodeAllocatorTraits(*traits, words);
      answer(host, request, words[0], words[1], false);
      return true;
    }
    case SyncOp::PoolReserve:
      answer(host, request, allocators_.reserve(handleArgument(), request.arguments[1]) ? 1 : 0,
             0, false);
      return true;
    case SyncOp::PoolRefund:
      allocators_.unreserve(handleArgument(), request.arguments[1]);
      return true;
    default:
      return false;
  }
}

bool performStandInAtomic(const SyncRequest& request, snapshot::DsmReplica& standIn,
                          std::recursive_mutex& exclusive, uint64_t& old, std::string& error) {
  granule::AtomicAccess access;
  uint64_t shape = request.arguments[3];
  access.op = granule::AtomicOp(shape & 0xff);
  access.width = uint32_t(shape >> 8);
  access.operand = request.arguments[1];
  access.replacement = request.arguments[2];
  if (shape >> 16 || request.arguments[0] > UINT32_MAX) {
    error = "an atomic access of shape " + std::to_string(shape) + " at " +
            std::to_string(request.arguments[0]);
    return false;
  }
  access.address = uint32_t(request.arguments[0]);
  std::lock_guard<std::recursive_mutex> guard(exclusive);
  if (!standIn.pull()) {
    error = "cannot grow its stand-in replica";
    return false;
  }
  snapshot::LinearMemory& memory = standIn.memory();
  if (!granule::atomicAccessFits(access, memory.sizeBytes())) {
    error = "an atomic access of shape " + std::to_string(shape) + " at " +
            std::to_string(access.address) + " outside the memory or misaligned";
    return false;
  }
  old = granule::applyAtomicAccess(memory.base() + access.address, access);
  if (!standIn.push()) {
    error = "cannot grow the main memory for an atomic";
    return false;
  }
  return true;
}

void HostSyncService::performAtomic(uint32_t host, const SyncRequest& request) {
  uint64_t old = 0;
  std::string error;
  if (!performStandInAtomic(request, team_.dsm->standIn(int(host)),
                            team_.dsm->mainCopy().exclusive(), old, error))
    fail(host, error);
  answer(host, request, old, 0, true);
}

void HostSyncService::handle(uint32_t host, const SyncRequest& request) {
  if (handleAllocatorRequest(host, request)) return;
  if (request.op == SyncOp::Atomic) return performAtomic(host, request);
  switch (request.op) {
    case SyncOp::Release:
      return;
    case SyncOp::Unlock:
      // At once, not behind a lock its thread number's proxy waits for: the
      // threads of a thread host's nested team ask as one spread thread, and
      // another of them may wait there for a lock whose holder waits for
      // this one.
      if (request.arguments[0] > UINT32_MAX) fail(host, "a lock past 4 GiB");
      if (!locks_.unlock(uint32_t(request.arguments[0]), globalIds_.at(int(request.threadNum))))
        fail(host, "thread " + std::to_string(request.threadNum) +
                       " released an OpenMP critical section or lock it does not hold");
      return;
    case SyncOp::ThreadExit:
      // As a local thread's exit() or trap ends the process
      // (endProcessFromThread).
      if (request.arguments[0] > 255) fail(host, "a thread's exit status above 255");
      granule::endProcess(int(request.arguments[0]));
    case SyncOp::FulfillEvent:
      // The host's writes are in the main copy: the task's result is whole.
      if (request.arguments[0] > UINT32_MAX ||
          !fulfilEventFromAnotherHost(team_.tasks, uint32_t(request.arguments[0])))
        fail(host, "omp_fulfill_event for event " + std::to_string(request.arguments[0]) +
                       ", which is no detached task's of the main host whose event is pending "
                       "(unknown, already fulfilled, or a thread host's task)");
      return;
    case SyncOp::Copyprivate:
      if (request.arguments[0] > UINT32_MAX) fail(host, "copyprivate data past 4 GiB");
      team_.copyprivateData.store(uint32_t(request.arguments[0]), std::memory_order_release);
      return;
    case SyncOp::Single: {
      uint64_t mine = request.arguments[0];
      bool taken = team_.singlesTaken.compare_exchange_strong(mine, mine + 1);
      answer(host, request, taken ? 1 : 0, 0, false);
      return;
    }
    case SyncOp::LoopChunk: {
      LoopShare shape;
      shape.tripCount = request.arguments[2];
      shape.kind = int(uint32_t(request.arguments[3]));
      shape.ordered = (request.arguments[3] >> 32) != 0;
      shape.chunk = request.arguments[4];
      if ((shape.kind != LoopShare::kDynamic && shape.kind != LoopShare::kGuided) || shape.chunk == 0)
        fail(host, "a loop chunk of a loop that is not dynamic or guided");
      LoopShare& loop = team_.loop(request.arguments[0], shape);
      uint64_t begin = 0, end = 0;
      if (!claimSharedChunks(loop, team_.size, begin, end)) {
        team_.finishLoop(request.arguments[0]);
        begin = end = 0;
      } else {
        noteLoopClaim(loop.kind == LoopShare::kDynamic ? (end - begin + loop.chunk - 1) / loop.chunk
                                                       : 1);
      }
      answer(host, request, begin, end, false);
      return;
    }
    default: {
      std::lock_guard<std::mutex> guard(lock_);
      proxyOf(host, request).requests.push_back(request);
      changed_.notify_all();
    }
  }
}

HostSyncService::Proxy& HostSyncService::proxyOf(uint32_t host, const SyncRequest& request) {
  auto found = proxies_.find({int(request.threadNum), request.waiter});
  if (found != proxies_.end()) return *found->second;
  if (++waiterProxies_[host] > kMaxWaiterProxiesPerHost)
    fail(host, "more than " + std::to_string(kMaxWaiterProxiesPerHost) +
                   " threads asking as the region's threads");
  auto proxy = std::make_unique<Proxy>();
  proxy->host = host;
  proxy->threadNum = int(request.threadNum);
  proxy->waiter = request.waiter;
  Proxy* raw = proxy.get();
  proxies_[{raw->threadNum, raw->waiter}] = std::move(proxy);
  // It waits for lock_, which the caller holds, before it looks at its queue.
  raw->thread = std::thread([this, raw] { runProxy(*raw); });
  return *raw;
}

void HostSyncService::runProxy(Proxy& proxy) {
  for (;;) {
    SyncRequest request;
    {
      std::unique_lock<std::mutex> lock(lock_);
      changed_.wait(lock, [&] { return !proxy.requests.empty() || proxy.closed; });
      if (proxy.requests.empty()) break;
      request = proxy.requests.front();
      proxy.requests.pop_front();
    }
    serveBlocking(proxy, request);
  }
  // A thread that ended its region holding these released them with it.
  for (; proxy.libcDepth > 0; --proxy.libcDepth) libcLock_.unlock();
}

void HostSyncService::arriveAtBarrier(bool completesTasks) {
  uint32_t generation = team_.barrier.generation();
  if (!team_.barrier.arrive()) {
    team_.barrier.awaitOpening(generation);
    return;
  }
  // The main host's threads run its tasks while they wait at a barrier; at
  // a reduction they run none, and the barrier completes no task there.
  while (completesTasks && team_.tasks.unfinished.load(std::memory_order_acquire) != 0)
    std::this_thread::yield();
  team_.barrier.complete();
  team_.tasks.signal();
}

void HostSyncService::serveBlocking(Proxy& proxy, const SyncRequest& request) {
  uint32_t host = proxy.host;
  int owner = globalIds_.at(proxy.threadNum);
  auto key = [&] {
    if (request.arguments[0] > UINT32_MAX) fail(host, "a lock past 4 GiB");
    return uint32_t(request.arguments[0]);
  };
  auto orderedLoop = [&]() -> LoopShare& {
    LoopShare shape;
    shape.tripCount = request.arguments[2];
    shape.kind = int(uint32_t(request.arguments[3]));
    shape.ordered = true;
    shape.chunk = request.arguments[4];
    if (request.arguments[1] > UINT32_MAX) fail(host, "an ordered iteration past 2^32");
    return team_.loop(request.arguments[0], shape);
  };
  auto awaitTurn = [&](LoopShare& loop) {
    uint32_t iteration = uint32_t(request.arguments[1]);
    for (uint32_t next; (next = loop.orderedNext.load(std::memory_order_acquire)) != iteration;)
      loop.orderedNext.waitWhileEquals(next, team_.spins);
  };
  auto passTurn = [&](LoopShare& loop) {
    loop.orderedNext.store(uint32_t(request.arguments[1]) + 1, std::memory_order_release);
    loop.orderedNext.wakeAll();
  };
  switch (request.op) {
    case SyncOp::Barrier:
      arriveAtBarrier(true);
      answer(host, request, team_.copyprivateData.load(std::memory_order_acquire), 0, true);
      return;
    case SyncOp::ReductionArrive:
      arriveAtBarrier(false);
      answer(host, request, 0, 0, false);
      return;
    case SyncOp::Lock:
    case SyncOp::NestLock:
      answer(host, request, uint64_t(locks_.lock(key(), owner, request.op == SyncOp::NestLock)),
             0, true);
      return;
    case SyncOp::TestLock:
    case SyncOp::TestNestLock: {
      int depth = locks_.tryLock(key(), owner, request.op == SyncOp::TestNestLock);
      answer(host, request, uint64_t(depth), 0, depth != 0);
      return;
    }
    case SyncOp::LibcLock:
      libcLock_.lock();
      ++proxy.libcDepth;
      answer(host, request, 0, 0, true);
      return;
    case SyncOp::LibcUnlock:
      if (proxy.libcDepth == 0) fail(host, "libc's unlock without its lock");
      --proxy.libcDepth;
      libcLock_.unlock();
      return;
    case SyncOp::Acquire:
      answer(host, request, 0, 0, true);
      return;
    case SyncOp::OrderedEnter:
      awaitTurn(orderedLoop());
      answer(host, request, 0, 0, true);
      return;
    case SyncOp::OrderedLeave:
      passTurn(orderedLoop());
      return;
    case SyncOp::OrderedSkip: {
      LoopShare& loop = orderedLoop();
      awaitTurn(loop);
      passTurn(loop);
      return;
    }
    default:
      fail(host, "an operation the proxy does not serve");
  }
}

void HostSyncService::answer(uint32_t host, const SyncRequest& request, uint64_t first,
                             uint64_t second, bool acquires) {
  HostCopy& copy = *copies_[host];
  std::unique_lock<std::mutex> guard(copy.lock);
  std::vector<std::vector<uint8_t>> update;
  std::string error;
  if (acquires) {
    copy.updateMerged.wait(guard, [&] { return copy.link.updateComplete(); });
    // Only pages pushed since the host's last answer can differ from its
    // copy: the region started with the copy equal to the main memory.
    snapshot::DsmMain& main = team_.dsm->mainCopy().dsm();
    uint64_t now = 0;
    std::vector<uint64_t> pages = main.pagesChangedSince(shippedVersions_[host], now);
    if (!copy.link.shipPages(main.memory(), pages, link_.maxPayloadBytes(), update, error))
      fail(host, error);
    shippedVersions_[host] = now;
  }
  for (const std::vector<uint8_t>& payload : update) noteLaterCopyBytes(payload.size());
  link_.sendReply(host, std::move(update),
                  encodeSyncReply(
                      SyncReply{request.threadNum, acquires, {first, second}, request.waiter}));
}

}  // namespace synergy::omp
