//===- RemoteWindows.cpp - one-sided MPI on windows that span hosts -------===//
//
// This file implements the windows whose members sit on several hosts.
//
// Creation is collective across hosts: every member learns every member's
// size and displacement unit (an allgather through the host leaders); the
// members of one host share one WindowSync, made by the first of them,
// which also registers its Window under an id every host derives alike
// (the communicator's context and how many such windows the member made
// on it). A barrier closes the creation, so no operation from another host
// can arrive before the window is registered here.
//
// An operation on a member of another host is flattened at the origin into
// the byte runs it touches in the target's window memory (checked there
// against the target's size, which the origin knows) and travels with its
// data to the target's host. That host checks it again, as hostile input,
// applies it on the link's receiving thread, accumulates and atomics under
// the World lock that this host's own accumulates hold, and replies with
// what it fetched; the origin's host unpacks that into the origin's result
// buffer and counts the operation done. Fence and free wait until all of
// this member's operations are done, then hold a barrier across hosts on
// the window's own context (member 0's host reserves it at creation): after
// it, every operation of the epoch, to and from every host, is complete.
//
// Passive target: a target's lock is the word in its own host's
// WindowSync, so that host decides every request. A lock request from
// another host is granted at once when the word allows it and otherwise
// waits in a queue, which is tried again whenever a lock of this host is
// let go (by a local member or by another host's unlock); the origin waits
// for the grant. Unlock and flush first wait until the origin's operations
// on the target are done.
//
// General active target keeps its counters in the WindowSync of the host
// that waits on them: a post to an origin of another host adds a grant
// there, and a complete towards a target of another host, once the
// origin's operations on it are done, adds a completion there.
//
// A dynamic window's member attaches regions to its own host's WindowSync.
// An operation on it from another host names target addresses, not
// offsets: the origin checks only that they lie in linear memory, and the
// target's host requires, as one host does, that all of it falls inside
// one region the target has attached when the operation arrives; one that
// does not ends the job with MPI_ERR_RMA_RANGE, naming the origin, as the
// origin has returned from the call by then.
//
// Windows of shared memory cannot span hosts at all.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <mutex>

#include "mpi/HostCollectives.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/ReduceOp.h"
#include "mpi/Window.h"

namespace synergy::mpi {

namespace {

// The most byte runs one operation across hosts may touch: a target
// datatype with more pieces is refused rather than shipped run by run.
constexpr size_t kMaxRmaRuns = 1 << 16;
// A run's offset and length, as the link carries them.
constexpr int64_t kRunBytes = 16;

// An operation sent from this host and not done yet.
struct PendingRma {
  int origin = 0;
  int target = 0;  // window rank
  uint8_t* result = nullptr;
  Layout resultType;
  int64_t resultCount = 0;
  int64_t replyBytes = 0;
  std::shared_ptr<RemoteRmaCounts> counts;
};

// Each member's part of a window, as the creation exchanges it.
struct MemberPart {
  uint64_t base;  // a host address, meaningful on the member's host only
  int64_t size;
  int64_t dispUnit;
  // Member 0's: the context of the window's fences (WindowSync::fences),
  // which its host reserved; 0 when it had none left.
  int64_t fenceContext;
};

bool fetches(RmaKind kind) { return kind != RmaKind::Put && kind != RmaKind::Accumulate; }

// Data bytes an operation of `kind` touching `bytes` target bytes carries.
int64_t dataBytesOf(RmaKind kind, int op, int64_t bytes) {
  switch (kind) {
    case RmaKind::Put:
    case RmaKind::Accumulate:
      return bytes;
    case RmaKind::Get:
      return 0;
    case RmaKind::GetAccumulate:
      return op == int(PredefinedOp::NoOp) ? 0 : bytes;
    case RmaKind::CompareAndSwap:
      return 2 * bytes;
  }
  return 0;
}

bool isLockKind(RmaKind kind) {
  return kind >= RmaKind::LockShared && kind <= RmaKind::UnlockExclusive;
}

bool takeLock(std::atomic<int64_t>& word, bool exclusive) {
  int64_t seen = word.load();
  if (exclusive) return seen == 0 && word.compare_exchange_strong(seen, -1);
  return seen >= 0 && word.compare_exchange_strong(seen, seen + 1);
}

int firstLocalMember(World& world, const Communicator& comm) {
  for (int member = 0; member < comm.size(); ++member)
    if (!world.isRemote(comm.worldRanks[member])) return member;
  return -1;
}

}  // namespace

struct World::RemoteWindowTables {
  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<Window>> windows;
  uint64_t lastOperation = 0;
  std::map<uint64_t, PendingRma> pending;
  // Lock requests from other hosts that wait for a lock of this host.
  struct WaitingLock {
    uint64_t window;
    int member;  // the target's window rank
    int origin;
    uint64_t id;
    bool exclusive;
  };
  std::deque<WaitingLock> waitingLocks;
  // Every window of this host's members, by its fence context
  // (registerWindowHere): where a member arriving in a live move finds it.
  std::map<uint32_t, std::weak_ptr<WindowSync>> byFenceContext;
  // Operations from other hosts on a member that a live move brings here
  // and that has not arrived yet (its memory is not in place): applied
  // when it arrives (windowArrives), in the order they came.
  struct BeforeArrival {
    RemoteRmaOp op;
    std::vector<uint8_t> data;
  };
  std::vector<BeforeArrival> beforeArrival;
  // The ranks the last route switch brought here that have not arrived
  // yet (windowsFollowRoutes, rankArrived).
  std::set<int> arriving;
};

namespace {

// Counts `wire` in flight towards window rank `target`, keeps what its
// reply needs and queues it.
void sendOperation(World& world, Window& window, RemoteRmaOp& wire, int target,
                   PendingRma pending, util::FunctionRef<void(uint8_t*)> pack) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  pending.origin = wire.origin;
  pending.target = target;
  pending.counts = window.inFlight;
  window.inFlight->toTarget[target].fetch_add(1);
  window.inFlight->total.fetch_add(1);
  {
    std::lock_guard<std::mutex> guard(tables.mutex);
    wire.id = ++tables.lastOperation;
    tables.pending.emplace(wire.id, std::move(pending));
  }
  world.remoteRanks()->sendRma(wire, pack);
}

// Grants every waiting lock request that its lock's word now allows.
void grantWaiting(World& world) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::vector<std::pair<int, uint64_t>> granted;
  {
    std::lock_guard<std::mutex> guard(tables.mutex);
    for (auto it = tables.waitingLocks.begin(); it != tables.waitingLocks.end();) {
      auto window = tables.windows.find(it->window);
      if (window != tables.windows.end() &&
          !takeLock(window->second->sync->lockOf[it->member], it->exclusive)) {
        ++it;
        continue;
      }
      // A request on a window freed meanwhile was erroneous; it is dropped.
      if (window != tables.windows.end()) granted.emplace_back(it->origin, it->id);
      it = tables.waitingLocks.erase(it);
    }
  }
  for (auto [origin, id] : granted) world.remoteRanks()->rmaDone(origin, id, nullptr, 0);
}

}  // namespace

bool awaitRmaAcrossHosts(HostCall& call, Window& window, int target) {
  std::atomic<int64_t>& count = target < 0 ? window.inFlight->total : window.inFlight->toTarget[target];
  WaitInfo info{call.name, target < 0 ? 0 : window.comm->worldRanks[target], 0, window.comm.get()};
  return call.world().waitUntilReady(call.rank.worldRank, info, [&] {
    return count.load(std::memory_order_acquire) == 0;
  });
}

bool lockAcrossHosts(HostCall& call, Window& window, int target, bool lock, bool exclusive) {
  if (!awaitRmaAcrossHosts(call, window, target)) return false;
  RemoteRmaOp wire;
  wire.origin = call.rank.worldRank;
  wire.target = window.comm->worldRanks[target];
  wire.window = window.spanningId;
  wire.kind = lock ? (exclusive ? RmaKind::LockExclusive : RmaKind::LockShared)
                   : (exclusive ? RmaKind::UnlockExclusive : RmaKind::UnlockShared);
  sendOperation(call.world(), window, wire, target, PendingRma(), [](uint8_t*) {});
  return awaitRmaAcrossHosts(call, window, target);
}

void grantWaitingLocks(HostCall& call) { grantWaiting(call.world()); }

bool signalEpochAcrossHosts(HostCall& call, Window& window, int peer, bool exposure) {
  if (!exposure && !awaitRmaAcrossHosts(call, window, peer)) return false;
  RemoteRmaOp wire;
  wire.origin = call.rank.worldRank;
  wire.target = window.comm->worldRanks[peer];
  wire.window = window.spanningId;
  wire.kind = exposure ? RmaKind::ExposureGrant : RmaKind::AccessCompletion;
  sendOperation(call.world(), window, wire, peer, PendingRma(), [](uint8_t*) {});
  return true;
}


namespace {

const char* rmaKindName(RmaKind kind) {
  switch (kind) {
    case RmaKind::Put: return "put";
    case RmaKind::Get: return "get";
    case RmaKind::Accumulate: return "accumulate";
    case RmaKind::GetAccumulate: return "get-accumulate";
    case RmaKind::CompareAndSwap: return "compare-and-swap";
    default: return "operation";
  }
}

// For an operation on dynamic window member `member` of this host, whose
// `runs` are addresses in that member's memory: finds the region the member
// has attached that holds all of them, makes the runs offsets into it,
// `base` its start and `size` its size. False when no one region holds
// them all.
bool rebaseOnAttachedRegion(Window& window, int member, std::vector<TypeSegment>& runs,
                            uint8_t*& base, int64_t& size) {
  if (runs.empty()) return true;  // touches nothing
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const TypeSegment& run : runs) {
    if (run.length <= 0 || run.offset < 0 || run.offset > INT64_MAX - run.length) return false;
    first = std::min(first, run.offset);
    last = std::max(last, run.offset + run.length);
  }
  std::lock_guard<std::mutex> guard(window.sync->attachedMutex);
  for (const WindowSync::Region& region : window.sync->attached[size_t(member)]) {
    int64_t start = int64_t(region.guestAddress);
    if (first < start || last > start + region.size) continue;
    for (TypeSegment& run : runs) run.offset -= start;
    base = region.first;
    size = region.size;
    return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<World::RemoteWindowTables> World::makeRemoteWindowTables() {
  return std::make_shared<RemoteWindowTables>();
}

RemoteRmaCounts::RemoteRmaCounts(int members)
    : toTarget(new std::atomic<int64_t>[size_t(members)]) {
  for (int i = 0; i < members; ++i) toTarget[i].store(0);
}

uint32_t createSpanningWindow(HostCall& call, uint8_t* base, int64_t size, int dispUnit, int comm,
                              uint32_t winOut, uint32_t allocatedGuest, int flavor) {
  if (flavor == abi::kWinFlavorShared)
    return call.fail(comm, abi::kErrUnsupportedOperation,
                     std::string(call.name) +
                         " on a communicator whose ranks span hosts is not supported: shared "
                         "memory cannot span hosts (use MPI_Comm_split_type with "
                         "MPI_COMM_TYPE_SHARED for a communicator of one host)");
  if (!call.bytes(winOut, 4)) return call.fail(comm, abi::kErrArg, "win pointer outside memory");
  World& world = call.world();
  const std::shared_ptr<Communicator>& members = call.rank.comm(comm)->comm;
  auto window = std::make_shared<Window>();
  window->commHandle = comm;
  window->comm = members;
  window->allocatedGuest = allocatedGuest;
  window->flavor = flavor;
  window->me = members->rankOfWorld[call.rank.worldRank];
  window->lockHeld.assign(size_t(members->size()), HeldLock::None);
  uint32_t serial = ++call.rank.windowsSpanningHostsOn[members->context];
  window->spanningId = uint64_t(members->context) << 32 | serial;
  window->inFlight = std::make_shared<RemoteRmaCounts>(members->size());

  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  MemberPart mine{uint64_t(reinterpret_cast<uintptr_t>(base)), size, dispUnit, 0};
  if (window->me == 0) mine.fenceContext = int64_t(world.reserveContexts(1).value_or(0));
  std::vector<MemberPart> parts(size_t(members->size()));
  if (int error = allgatherAcrossHosts(call, comm, reinterpret_cast<const uint8_t*>(&mine),
                                       bytes.get(), sizeof mine,
                                       reinterpret_cast<uint8_t*>(parts.data()), *bytes,
                                       sizeof mine))
    return error;
  for (int member = 0; member < members->size(); ++member) {
    const MemberPart& part = parts[size_t(member)];
    bool here = !world.isRemote(members->worldRanks[member]);
    window->bases.push_back(here ? reinterpret_cast<uint8_t*>(uintptr_t(part.base)) : nullptr);
    window->sizes.push_back(part.size);
    window->dispUnits.push_back(part.dispUnit);
  }
  int64_t fenceContext = parts[0].fenceContext;
  if (fenceContext <= 0 || fenceContext > int64_t(UINT32_MAX))
    return call.fail(comm, abi::kErrIntern, "no communicator context left for the window");
  std::shared_ptr<Communicator> fences =
      meetAt(world, uint32_t(fenceContext), -1, membersHere(world, members->worldRanks),
             [&] { return world.makeCommunicator(members->worldRanks, uint32_t(fenceContext)); });
  window->fenceCommHandle = call.rank.addComm(fences, abi::kErrorsReturn);
  window->fenceContext = uint32_t(fenceContext);
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  bool registers = firstLocalMember(world, *members) == window->me;
  if (registers) {
    window->sync = std::make_shared<WindowSync>(members->size());
    std::lock_guard<std::mutex> guard(tables.mutex);
    tables.windows[window->spanningId] = window;
  }
  if (int error = barrierAcrossHosts(call, comm)) return error;
  if (!registers) {
    std::lock_guard<std::mutex> guard(tables.mutex);
    window->sync = tables.windows.at(window->spanningId)->sync;
  }
  registerWindowHere(world, window);
  call.store<int32_t>(winOut, call.rank.addWindow(window));
  return abi::kSuccess;
}

int rmaAcrossHosts(HostCall& call, RmaTarget& t, RmaKind kind, int op, uint8_t* result,
                   const Layout& resultType, int64_t resultCount, const uint8_t* compared) {
  Window& window = *t.window;
  World& world = call.world();
  RemoteRanks& link = *world.remoteRanks();
  const TypeLayout& type = *t.targetType;
  int64_t bytes = type.size * t.targetCount;
  bool accumulates = kind == RmaKind::Accumulate || kind == RmaKind::GetAccumulate;
  if (accumulates) {
    if (!accumulateOpFits(op, type, t.targetCount))
      return failOnWindow(call, window, abi::kErrOp,
                          "op " + std::to_string(op) + " is not a predefined op for this datatype");
    ByteSpan span = touchedSpan(type, t.targetCount);
    if (bytes > span.last - span.first)
      return failOnWindow(call, window, abi::kErrType,
                          "the target datatype of an accumulate overlaps itself");
    // Nothing to apply or fetch; its type may have no elements to send.
    if (bytes == 0) return abi::kSuccess;
  }
  RemoteRmaOp wire;
  wire.origin = call.rank.worldRank;
  wire.target = window.comm->worldRanks[t.targetRank];
  wire.window = window.spanningId;
  wire.kind = kind;
  wire.element = type.element;
  wire.op = op;
  wire.dataBytes = dataBytesOf(kind, op, bytes);
  if (std::max(bytes, wire.dataBytes) > link.maxRmaBytes())
    return failOnWindow(call, window, abi::kErrUnsupportedOperation,
                        std::string(call.name) + " of " + std::to_string(bytes) +
                            " bytes on a rank of another host is larger than the " +
                            std::to_string(link.maxRmaBytes()) +
                            " bytes such an operation may carry");
  // Every run holds at least one byte, so there are at most `bytes` runs.
  for (int64_t instance = 0; instance < t.targetCount && type.size > 0; ++instance) {
    for (const TypeSegment& segment : type.segments) {
      int64_t at = t.targetOffset + instance * type.extent() + segment.offset;
      if (!wire.runs.empty() && wire.runs.back().offset + wire.runs.back().length == at) {
        wire.runs.back().length += segment.length;
        continue;
      }
      if (wire.runs.size() == kMaxRmaRuns)
        return failOnWindow(call, window, abi::kErrUnsupportedOperation,
                            std::string(call.name) + " touching more than " +
                                std::to_string(kMaxRmaRuns) +
                                " separate pieces of a window on another host is not supported");
      wire.runs.push_back({at, segment.length});
    }
  }
  if (int64_t(wire.runs.size()) * kRunBytes + wire.dataBytes > link.maxRmaBytes())
    return failOnWindow(call, window, abi::kErrUnsupportedOperation,
                        std::string(call.name) + " is too large for one operation across hosts");
  PendingRma pending;
  if (fetches(kind)) {
    pending.result = result;
    pending.resultType = resultType;
    pending.resultCount = resultCount;
    pending.replyBytes = bytes;
  }
  sendOperation(world, window, wire, t.targetRank, std::move(pending), [&](uint8_t* out) {
    if (wire.dataBytes == 0) return;
    if (kind == RmaKind::CompareAndSwap) {
      std::memcpy(out, t.origin, size_t(bytes));
      std::memcpy(out + bytes, compared, size_t(bytes));
      return;
    }
    packTyped(t.origin, *t.originType, t.originCount, out);
  });
  return abi::kSuccess;
}

int fenceAcrossHosts(HostCall& call, Window& window) {
  if (!awaitRmaAcrossHosts(call, window, -1)) call.leaveAbortedJob();
  if (int error = barrierAcrossHosts(call, window.fenceCommHandle))
    return failOnWindow(call, window, error, "the barrier across hosts failed");
  return abi::kSuccess;
}

int freeAcrossHosts(HostCall& call, Window& window) {
  if (!awaitRmaAcrossHosts(call, window, -1)) call.leaveAbortedJob();
  if (int error = barrierAcrossHosts(call, window.fenceCommHandle))
    return failOnWindow(call, window, error, "the barrier across hosts failed");
  // No operation on the window is under way anywhere now.
  World::RemoteWindowTables& tables = call.world().remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  auto it = tables.windows.find(window.spanningId);
  if (it != tables.windows.end() && it->second.get() == &window) tables.windows.erase(it);
  return abi::kSuccess;
}

// A live move (issue 22). A member's Window points into every member's
// memory on its host (bases[]) and shares their WindowSync, which the
// host's tables list by the window's fence context; a departing member is
// taken out of both, and its arrival puts its rebuilt Window into those of
// the host it lands on, as creation would have.

void registerWindowHere(World& world, const std::shared_ptr<Window>& window) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  window->sync->here[size_t(window->me)] = window;
  tables.byFenceContext[window->fenceContext] = window->sync;
}

void unregisterWindowHere(World& world, const Window& window) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  WindowSync& sync = *window.sync;
  sync.here[size_t(window.me)].reset();
  bool anyHere = false;
  for (const std::weak_ptr<Window>& member : sync.here) anyHere = anyHere || !member.expired();
  auto listed = tables.byFenceContext.find(window.fenceContext);
  if (!anyHere && listed != tables.byFenceContext.end() && listed->second.lock().get() == &sync)
    tables.byFenceContext.erase(listed);
  // Every member has passed the free's collective: no operation comes.
  auto it = window.spanningId ? tables.windows.find(window.spanningId) : tables.windows.end();
  if (it != tables.windows.end() && it->second.get() == &window) tables.windows.erase(it);
}

std::string windowNotCarried(const RankState& rank, const Window& window) {
  std::string name = "window " + std::to_string(window.handle);
  if (window.flavor != abi::kWinFlavorCreate && window.flavor != abi::kWinFlavorAllocate)
    return name + " is " +
           (window.flavor == abi::kWinFlavorDynamic ? "a dynamic" : "a shared memory") +
           " window";
  for (size_t target = 0; target < window.lockHeld.size(); ++target)
    if (window.lockHeld[target] != HeldLock::None)
      return name + " holds a lock on rank " + std::to_string(target) + " (MPI_Win_lock)";
  if (window.lockAllHeld != HeldLock::None) return name + " holds MPI_Win_lock_all";
  if (window.accessEpoch) return name + " is in an access epoch (MPI_Win_start)";
  if (window.exposureOrigins >= 0) return name + " is in an exposure epoch (MPI_Win_post)";
  if (window.inFlight && window.inFlight->total.load() != 0)
    return name + " has one-sided operations in flight";
  const WindowSync& sync = *window.sync;
  const int members = window.comm->size(), me = window.me;
  if (sync.lockOf[me].load() != 0) return name + " is locked by another member";
  if (sync.completions[me].load() != 0)
    return name + " has an access epoch completed towards it and not waited for";
  for (int other = 0; other < members; ++other)
    if (sync.grants[size_t(other) * members + me].load() != 0 ||
        sync.grants[size_t(me) * members + other].load() != 0)
      return name + " has an exposure epoch posted and not started";
  if (window.spanningId) {
    World::RemoteWindowTables& tables = rank.world->remoteWindowTables();
    std::lock_guard<std::mutex> guard(tables.mutex);
    for (const World::RemoteWindowTables::WaitingLock& waiting : tables.waitingLocks)
      if (waiting.window == window.spanningId && waiting.member == me)
        return name + " has a lock request of another host queued on it";
  }
  auto attributes = rank.windowAttributes.find(window.handle);
  if (attributes != rank.windowAttributes.end() && !attributes->second.empty())
    return name + " has an attribute set";
  if (window.errhandler != abi::kErrorsAreFatal && window.errhandler != abi::kErrorsReturn)
    return name + " has a user error handler";
  if (!window.info.empty()) return name + " has info hints set (MPI_Win_set_info)";
  return {};
}

std::vector<std::shared_ptr<Window>> windowsOf(World& world, int worldRank) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  std::map<int, std::shared_ptr<Window>> byHandle;
  for (const auto& [context, listed] : tables.byFenceContext)
    if (std::shared_ptr<WindowSync> sync = listed.lock())
      for (const std::weak_ptr<Window>& member : sync->here)
        if (std::shared_ptr<Window> window = member.lock())
          if (window->comm->worldRanks[size_t(window->me)] == worldRank)
            byHandle.emplace(window->handle, window);
  std::vector<std::shared_ptr<Window>> windows;
  for (auto& [handle, window] : byHandle) windows.push_back(std::move(window));
  return windows;
}

void windowDeparts(World& world, const Window& window) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  WindowSync& sync = *window.sync;
  sync.here[size_t(window.me)].reset();
  std::shared_ptr<Window> stays;
  for (const std::weak_ptr<Window>& member : sync.here)
    if (std::shared_ptr<Window> other = member.lock()) {
      std::atomic_ref<uint8_t*>(other->bases[size_t(window.me)]).store(nullptr);
      if (!stays) stays = std::move(other);
    }
  if (!stays) {
    auto listed = tables.byFenceContext.find(window.fenceContext);
    if (listed != tables.byFenceContext.end() && listed->second.lock().get() == &sync)
      tables.byFenceContext.erase(listed);
  }
  // Operations from other hosts on the members that stay read their bases.
  auto it = window.spanningId ? tables.windows.find(window.spanningId) : tables.windows.end();
  if (it != tables.windows.end() && it->second.get() == &window) {
    if (stays)
      it->second = stays;
    else
      tables.windows.erase(it);
  }
}

namespace {

// `window`, a Window of this host, addresses the members of other hosts
// through them; the first to span hosts takes an id every host derives
// alike from the fence context (a created one's serial is never 0).
// Under the tables' mutex.
void followRoutes(World& world, World::RemoteWindowTables& tables,
                  const std::shared_ptr<Window>& window) {
  bool spans = false;
  for (size_t member = 0; member < window->bases.size(); ++member)
    if (world.isRemote(window->comm->worldRanks[member])) {
      std::atomic_ref<uint8_t*>(window->bases[member]).store(nullptr);
      spans = true;
    }
  if (!spans) return;
  if (!window->spanningId) window->spanningId = uint64_t(window->fenceContext) << 32;
  if (!window->inFlight) window->inFlight = std::make_shared<RemoteRmaCounts>(window->comm->size());
  auto listed = tables.windows.find(window->spanningId);
  if (listed == tables.windows.end() || listed->second->sync != window->sync)
    tables.windows[window->spanningId] = window;
}

}  // namespace

namespace {
bool linkArrival(World& world, World::RemoteWindowTables& tables,
                 const std::shared_ptr<Window>& window, std::string& error);
}  // namespace

bool windowArrives(World& world, const std::shared_ptr<Window>& window, std::string& error) {
  if (!linkArrival(world, world.remoteWindowTables(), window, error)) return false;
  // Members here that wait to address its memory look again.
  for (int worldRank : window->comm->worldRanks)
    if (!world.isRemote(worldRank)) world.wakeWaiter(worldRank);
  return true;
}

void rankArrived(World& world, int worldRank) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::vector<World::RemoteWindowTables::BeforeArrival> early;
  {
    std::lock_guard<std::mutex> guard(tables.mutex);
    tables.arriving.erase(worldRank);
    auto queued = tables.beforeArrival.begin();
    while (queued != tables.beforeArrival.end()) {
      if (queued->op.target == worldRank) {
        early.push_back(std::move(*queued));
        queued = tables.beforeArrival.erase(queued);
      } else {
        ++queued;
      }
    }
  }
  // What other hosts sent it before it arrived, in the order it came.
  for (const World::RemoteWindowTables::BeforeArrival& queued : early) {
    std::string reason;
    if (!world.applyRemoteRma(queued.op, queued.data.data(), reason)) {
      world.abort(abi::kErrIntern, "rank " + std::to_string(queued.op.origin) +
                                       ": a one-sided operation on rank " +
                                       std::to_string(queued.op.target) +
                                       " sent before it arrived from a live move: " + reason);
      return;
    }
  }
}

bool awaitMemberArrival(HostCall& call, Window& window, int target) {
  auto here = [&] {
    return std::atomic_ref<uint8_t*>(window.bases[size_t(target)]).load(std::memory_order_acquire) !=
           nullptr;
  };
  if (here()) return true;
  WaitInfo info{call.name, window.comm->worldRanks[size_t(target)], 0, window.comm.get()};
  return call.world().waitUntilReady(call.rank.worldRank, info, here);
}

namespace {

// windowArrives' part under the tables' mutex: links `window` with its
// members here.
bool linkArrival(World& world, World::RemoteWindowTables& tables,
                 const std::shared_ptr<Window>& window, std::string& error) {
  std::lock_guard<std::mutex> guard(tables.mutex);
  const size_t me = size_t(window->me), members = size_t(window->comm->size());
  std::shared_ptr<WindowSync> sync;
  auto listed = tables.byFenceContext.find(window->fenceContext);
  if (listed != tables.byFenceContext.end()) sync = listed->second.lock();
  if (sync && (sync->here.size() != members || !sync->here[me].expired())) {
    error = "window " + std::to_string(window->handle) +
            " does not match the window of its members here";
    return false;
  }
  if (!sync) {
    sync = std::make_shared<WindowSync>(int(members));
    tables.byFenceContext[window->fenceContext] = sync;
  }
  window->sync = sync;
  // The members here know every member's part: the arriving rank's
  // record (hostile bytes) must say the same, or its operations on them
  // could reach past their windows.
  for (const std::weak_ptr<Window>& member : sync->here)
    if (std::shared_ptr<Window> other = member.lock())
      if (other->sizes != window->sizes || other->dispUnits != window->dispUnits ||
          other->flavor != window->flavor ||
          (other->spanningId && window->spanningId && other->spanningId != window->spanningId)) {
        error = "window " + std::to_string(window->handle) +
                " does not match the window of its members here";
        return false;
      }
  for (size_t member = 0; member < members; ++member)
    if (std::shared_ptr<Window> other = sync->here[member].lock()) {
      if (other->spanningId && !window->spanningId) window->spanningId = other->spanningId;
      if (window->spanningId && !other->spanningId) other->spanningId = window->spanningId;
      window->bases[member] = other->bases[member];
      std::atomic_ref<uint8_t*>(other->bases[me]).store(window->bases[me], std::memory_order_release);
    }
  sync->here[me] = window;
  for (const std::weak_ptr<Window>& member : sync->here)
    if (std::shared_ptr<Window> here = member.lock()) followRoutes(world, tables, here);
  return true;
}

}  // namespace

void windowsFollowRoutes(World& world, const std::vector<bool>& before) {
  World::RemoteWindowTables& tables = world.remoteWindowTables();
  std::lock_guard<std::mutex> guard(tables.mutex);
  for (size_t rank = 0; rank < before.size(); ++rank) {
    if (world.isRemote(int(rank)))
      tables.arriving.erase(int(rank));
    else if (before[rank])
      tables.arriving.insert(int(rank));
  }
  for (const auto& [context, listed] : tables.byFenceContext)
    if (std::shared_ptr<WindowSync> sync = listed.lock())
      for (const std::weak_ptr<Window>& member : sync->here)
        if (std::shared_ptr<Window> window = member.lock()) followRoutes(world, tables, window);
}

bool fencesAcrossHosts(World& world, const Window& window) {
  return window.spanningId && world.spansHosts(*window.comm);
}

bool World::applyRemoteRma(const RemoteRmaOp& op, const uint8_t* data, std::string& reason) {
  std::shared_ptr<Window> window;
  {
    std::lock_guard<std::mutex> guard(remoteWindows_->mutex);
    auto it = remoteWindows_->windows.find(op.window);
    if (it != remoteWindows_->windows.end()) window = it->second;
  }
  if (!window) {
    // A window of a rank a live move brings here, which has not arrived.
    std::lock_guard<std::mutex> guard(remoteWindows_->mutex);
    if (remoteWindows_->arriving.count(op.target)) {
      remoteWindows_->beforeArrival.push_back(
          {op, std::vector<uint8_t>(data, data + std::max<int64_t>(op.dataBytes, 0))});
      return true;
    }
    reason = "MpiRma for window " + std::to_string(op.window) + ", which no rank here holds";
    return false;
  }
  int member = window->comm->rankOfWorld[size_t(op.target)];
  if (member < 0 || window->comm->rankOfWorld[size_t(op.origin)] < 0) {
    reason = "MpiRma from rank " + std::to_string(op.origin) + " to rank " +
             std::to_string(op.target) + ", which are not both members of its window";
    return false;
  }
  if (isLockKind(op.kind)) return applyRemoteLock(op, *window, member, reason);
  if (op.kind == RmaKind::ExposureGrant || op.kind == RmaKind::AccessCompletion) {
    if (!op.runs.empty() || op.dataBytes != 0) {
      reason = "MpiRma epoch signal with data";
      return false;
    }
    int sender = window->comm->rankOfWorld[size_t(op.origin)];
    int members = window->comm->size();
    if (op.kind == RmaKind::ExposureGrant)
      window->sync->grants[size_t(member) * members + sender].fetch_add(1);
    else
      window->sync->completions[member].fetch_add(1);
    notify(op.target);
    remote_->rmaDone(op.origin, op.id, nullptr, 0);
    return true;
  }
  std::vector<TypeSegment> runs = op.runs;
  uint8_t* base = window->bases[size_t(member)];
  if (!base && window->flavor != abi::kWinFlavorDynamic) {
    if (isRemote(op.target)) {
      reason = "MpiRma for rank " + std::to_string(op.target) + ", which does not run here";
      return false;
    }
    // A member a live move brings here, which has not arrived yet.
    std::lock_guard<std::mutex> guard(remoteWindows_->mutex);
    base = std::atomic_ref<uint8_t*>(window->bases[size_t(member)]).load(std::memory_order_acquire);
    if (!base && !remoteWindows_->arriving.count(op.target)) {
      reason = "MpiRma for rank " + std::to_string(op.target) + ", whose window is not here";
      return false;
    }
    if (!base) {
      remoteWindows_->beforeArrival.push_back(
          {op, std::vector<uint8_t>(data, data + std::max<int64_t>(op.dataBytes, 0))});
      return true;
    }
  }
  int64_t size = window->sizes[size_t(member)];
  if (window->flavor == abi::kWinFlavorDynamic &&
      !rebaseOnAttachedRegion(*window, member, runs, base, size)) {
    // A well-formed operation of an erroneous program, which on one host
    // fails at the origin; here the origin has moved on, so the job ends.
    abort(abi::kErrRmaRange,
          "rank " + std::to_string(op.origin) + ": a one-sided " + rmaKindName(op.kind) +
              " on rank " + std::to_string(op.target) +
              " of a dynamic window: the target range is outside every region that rank "
              "attached (" + errorClassName(abi::kErrRmaRange) + ")");
    return true;
  }
  int64_t bytes = 0;
  for (const TypeSegment& run : runs) {
    if (run.length <= 0 || run.offset < 0 || run.offset > size - run.length) {
      reason = "MpiRma touching bytes outside the target's window";
      return false;
    }
    bytes += run.length;
  }
  if (op.dataBytes != dataBytesOf(op.kind, op.op, bytes)) {
    reason = "MpiRma whose data is not the size of the bytes it touches";
    return false;
  }
  bool accumulates = op.kind == RmaKind::Accumulate || op.kind == RmaKind::GetAccumulate;
  if (accumulates &&
      (op.op < 1 || op.op > abi::kLastPredefinedOp || op.element >= ElementKind::Mixed ||
       !opAppliesTo(PredefinedOp(op.op), op.element) ||
       bytes % packedElementSize(op.element) != 0)) {
    reason = "MpiRma accumulate with an op or datatype it cannot apply";
    return false;
  }
  constexpr int64_t kMaxComparedBytes = 16;
  if (op.kind == RmaKind::CompareAndSwap && (runs.size() != 1 || bytes > kMaxComparedBytes)) {
    reason = "MpiRma compare-and-swap of more than one element";
    return false;
  }
  auto gather = [&](uint8_t* out) {
    for (const TypeSegment& run : runs) {
      std::memcpy(out, base + run.offset, size_t(run.length));
      out += run.length;
    }
  };
  auto scatter = [&](const uint8_t* in) {
    for (const TypeSegment& run : runs) {
      std::memmove(base + run.offset, in, size_t(run.length));
      in += run.length;
    }
  };
  std::vector<uint8_t> fetched(fetches(op.kind) ? static_cast<size_t>(bytes) : 0);
  switch (op.kind) {
    case RmaKind::Put:
      scatter(data);
      break;
    case RmaKind::Get:
      gather(fetched.data());
      break;
    case RmaKind::Accumulate:
    case RmaKind::GetAccumulate: {
      std::vector<uint8_t> current(static_cast<size_t>(bytes));
      int64_t elements = bytes / packedElementSize(op.element);
      locked([&] {
        gather(current.data());
        if (op.kind == RmaKind::GetAccumulate) fetched = current;
        if (op.op == int(PredefinedOp::NoOp)) return;
        applyPredefinedOp(PredefinedOp(op.op), op.element, data, current.data(), elements);
        scatter(current.data());
      });
      break;
    }
    case RmaKind::CompareAndSwap:
      locked([&] {
        gather(fetched.data());
        if (std::memcmp(fetched.data(), data + bytes, size_t(bytes)) == 0) scatter(data);
      });
      break;
  }
  remote_->rmaDone(op.origin, op.id, fetched.data(), int64_t(fetched.size()));
  return true;
}

bool World::applyRemoteLock(const RemoteRmaOp& op, Window& window, int member,
                            std::string& reason) {
  if (!op.runs.empty() || op.dataBytes != 0) {
    reason = "MpiRma lock request with data";
    return false;
  }
  std::atomic<int64_t>& word = window.sync->lockOf[member];
  bool exclusive = op.kind == RmaKind::LockExclusive || op.kind == RmaKind::UnlockExclusive;
  if (op.kind == RmaKind::LockShared || op.kind == RmaKind::LockExclusive) {
    {
      // Under the tables' lock: a member of this host that lets go of the
      // lock right after a failed take grants the queued request.
      std::lock_guard<std::mutex> guard(remoteWindows_->mutex);
      if (!takeLock(word, exclusive)) {
        remoteWindows_->waitingLocks.push_back(
            {op.window, member, op.origin, op.id, exclusive});
        return true;
      }
    }
    remote_->rmaDone(op.origin, op.id, nullptr, 0);
    return true;
  }
  int64_t seen = word.load();
  if (exclusive ? seen != -1 : seen <= 0) {
    reason = "MpiRma unlock of a lock that is not held";
    return false;
  }
  if (exclusive)
    word.store(0);
  else
    word.fetch_sub(1);
  // Members of this host waiting for the lock look again.
  for (int worldRank : window.comm->worldRanks)
    if (!isRemote(worldRank)) notify(worldRank);
  grantWaiting(*this);
  remote_->rmaDone(op.origin, op.id, nullptr, 0);
  return true;
}

bool World::remoteRmaDone(int origin, uint64_t id, const uint8_t* data, int64_t bytes,
                          std::string& reason) {
  PendingRma pending;
  {
    std::lock_guard<std::mutex> guard(remoteWindows_->mutex);
    auto it = remoteWindows_->pending.find(id);
    if (it == remoteWindows_->pending.end() || it->second.origin != origin ||
        it->second.replyBytes != bytes) {
      reason = "MpiRmaDone for no one-sided operation of rank " + std::to_string(origin) +
               " that fetched " + std::to_string(bytes) + " bytes";
      return false;
    }
    pending = std::move(it->second);
    remoteWindows_->pending.erase(it);
  }
  if (pending.result) unpackTyped(data, pending.result, *pending.resultType, pending.resultCount);
  pending.counts->toTarget[pending.target].fetch_sub(1);
  pending.counts->total.fetch_sub(1, std::memory_order_release);
  notify(origin);
  return true;
}

}  // namespace synergy::mpi
