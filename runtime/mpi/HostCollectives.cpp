//===- HostCollectives.cpp - collectives over ranks on several hosts ------===//
//
// This file implements HostCollectives.h. Every collective works on packed
// bytes: members pack their contributions once, leaders move and combine
// packed blocks, and members unpack the result once (MPI_Bcast of a
// contiguous buffer sends from it and receives into it, with no copy).
// Which members sit on which host is worked out once per communicator.
// A host's members need not be consecutive ranks (a Comm_split with a
// reversing key makes such communicators): leaders place each member's
// block by its rank, and a reduction folds each run of consecutive ranks
// of a host on that host, then the runs of all hosts in rank order, so the
// fold is the rank-order one whatever the op. A host holding consecutive
// ranks has one run.
//
// MPI_Barrier, MPI_Reduce, MPI_Allreduce and MPI_Alltoall have no
// messages on a host: its members post their buffers in a HostMeeting, and
// the leader reads and writes them in place (packing what goes to other
// hosts straight from them), which saves each member's data two copies and
// the trip through the mailboxes. The other collectives still send their
// local phases as messages. MPI_Bcast keeps them on purpose: its eager
// messages let a root and its leader leave at once, so that broadcasts in
// a row overlap, where a meeting would hold the leader until every member
// of its host had come; a small one relays between the leaders, so that
// no host sends it to all others (kRelayedBcastBytes). A large MPI_Reduce sends its hosts' partial results
// to the root's host in segments, which that host folds as they come
// (reduceSegments()); a host of one member sends its contribution from
// where it is. A large MPI_Allreduce runs between the leaders as a
// reduce-scatter, then an allgather (allreduceBySegments()); a small one
// over three hosts or more as a reduce to one leader, then a broadcast
// from it (allreduceAtOneLeader()). MPI_Alltoall receives each other
// host's bundle straight into its members' buffers, and sends each of its
// own gathered from their blocks (the link reads them in place, and the
// receiver sees one message), when their types allow it.
//
// The messages are point-to-point sends and receives through the World.
// Where a step sends to several hosts or members (the leaders' exchange, a
// root host's sends, sharing on a host), it posts all of its receives and
// sends, then waits for them all, so that the link writes to every host at
// once. A send to another host completes once it is queued or written; a
// large send between two ranks of one host waits for its receive, so every
// phase posts its receives in an order the senders follow.
//
//===----------------------------------------------------------------------===//
#include "mpi/HostCollectives.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "mpi/CollectiveEngine.h"
#include "mpi/HostMeeting.h"
#include "mpi/MpiAbi.h"
#include "mpi/ReduceOp.h"
#include "mpi/World.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

namespace {

// Collective messages carry this bit in their context, which no
// communicator's own context has.
constexpr uint32_t kCollectiveContextBit = 1u << 31;
// MPI_Comm_create_group's messages carry these bits (bit 30 alone marks
// the nonblocking collectives' messages on one host), with the call's tag
// as theirs, so that creations under different tags never meet.
constexpr uint32_t kGroupCreationContextBits = kCollectiveContextBit | 1u << 30;

using Bytes = std::vector<uint8_t>;

std::array<std::atomic<uint64_t>, int(CollectiveKind::WinFree) + 1> crossHostMessages{};

const char* kindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::Barrier: return "MPI_Barrier";
    case CollectiveKind::Bcast: return "MPI_Bcast";
    case CollectiveKind::Reduce: return "MPI_Reduce";
    case CollectiveKind::Allreduce: return "MPI_Allreduce";
    case CollectiveKind::Gather: return "MPI_Gather";
    case CollectiveKind::Gatherv: return "MPI_Gatherv";
    case CollectiveKind::Scatter: return "MPI_Scatter";
    case CollectiveKind::Scatterv: return "MPI_Scatterv";
    case CollectiveKind::Allgather: return "MPI_Allgather";
    case CollectiveKind::Allgatherv: return "MPI_Allgatherv";
    case CollectiveKind::Alltoall: return "MPI_Alltoall";
    case CollectiveKind::Alltoallv: return "MPI_Alltoallv";
    case CollectiveKind::ReduceScatter: return "MPI_Reduce_scatter";
    case CollectiveKind::ReduceScatterBlock: return "MPI_Reduce_scatter_block";
    case CollectiveKind::Scan: return "MPI_Scan";
    case CollectiveKind::Exscan: return "MPI_Exscan";
    case CollectiveKind::CommSplit: return "MPI_Comm_split";
    default: return "?";
  }
}

const Layout& byteLayout() {
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  return bytes;
}

// A byte layout of blocks of `block` bytes at `places`, in that order,
// relative to the first place: a message sent from it or received into it
// gathers or scatters blocks that lie in several members' buffers, all in
// this process.
Layout blockPlaces(const std::vector<const uint8_t*>& places, int64_t block) {
  auto layout = std::make_shared<TypeLayout>();
  layout->element = ElementKind::Byte;
  layout->committed = true;
  for (const uint8_t* place : places) {
    auto offset = int64_t(reinterpret_cast<uintptr_t>(place) -
                          reinterpret_cast<uintptr_t>(places.front()));
    layout->segments.push_back(TypeSegment{offset, block});
    layout->lb = std::min(layout->lb, offset);
    layout->ub = std::max(layout->ub, offset + block);
  }
  layout->size = block * int64_t(places.size());
  layout->trueLb = layout->lb;
  layout->trueUb = layout->ub;
  return layout;
}

// Starts sending `bytes` bytes at `data` to member `peer` of `comm`, or
// receiving them from it, in `context` with `tag`; awaitMessage() waits for
// it. A send to another host completes once it is queued, or, when it
// lends its buffer to the link, once that has been written.
// A receive may instead take one instance of `type`, a layout of `bytes`
// data bytes at `data`. `mode` makes a receive one that may leave its data
// where it arrived (Request::mayBorrow), or a send a synchronous one.
enum class MessageMode { Standard, Borrowing, Synchronous };

std::shared_ptr<Request> postMessage(HostCall& call, Communicator& comm, Request::Kind kind,
                                     int peer, uint8_t* data, int64_t bytes, uint32_t context,
                                     int tag, const Layout* type = nullptr,
                                     MessageMode mode = MessageMode::Standard) {
  auto request = std::make_shared<Request>();
  request->kind = kind;
  request->mayBorrow = mode == MessageMode::Borrowing;
  request->synchronous = mode == MessageMode::Synchronous;
  request->owner = call.rank.worldRank;
  request->buffer = data;
  setType(*request, type ? *type : byteLayout());
  request->count = type ? 1 : bytes;
  request->bytes = bytes;
  request->context = context;
  request->comm = &comm;
  request->peer = peer;
  request->tag = tag;
  World& world = call.world();
  if (kind == Request::Kind::Send) {
    request->senderRank = comm.rankOfWorld[call.rank.worldRank];
    world.startSend(request, comm.worldRanks[peer]);
  } else {
    world.startRecv(request);
  }
  return request;
}

void awaitMessage(HostCall& call, Communicator& comm, const Request& request) {
  if (!call.world().waitFor(call.rank.worldRank, request,
                            WaitInfo{call.name, request.peer, 0, &comm}))
    call.leaveAbortedJob();
}

// postMessage(), then awaitMessage().
void runMessage(HostCall& call, Communicator& comm, Request::Kind kind, int peer, uint8_t* data,
                int64_t bytes, uint32_t context, int tag) {
  awaitMessage(call, comm, *postMessage(call, comm, kind, peer, data, bytes, context, tag));
}

}  // namespace

// Who is where: the members by host, hosts in the order of their first
// member. Every call of a collective reads it, so it is worked out once per
// communicator and route generation (hostLayoutOf()).
struct HostLayout {
  // A run of consecutive ranks on one host: members [begin, end) of
  // members[host].
  struct Run {
    size_t begin;
    size_t end;
  };
  std::vector<std::vector<int>> members;  // comm ranks by host, ascending
  std::vector<int> hostOfMember;
  std::vector<int> indexOnHost;
  std::vector<std::vector<Run>> runs;  // by host, in rank order
  uint64_t generation = 0;  // World::remoteGeneration() it was made for
};

namespace {

HostLayout layOut(const Communicator& comm, const RemoteRanks& remote, uint64_t generation) {
  HostLayout layout;
  layout.generation = generation;
  std::map<int, size_t> indexOfHost;
  for (int member = 0; member < comm.size(); ++member) {
    int host = remote.hostOf(comm.worldRanks[member]);
    auto [it, added] = indexOfHost.emplace(host, layout.members.size());
    if (added) layout.members.emplace_back();
    layout.indexOnHost.push_back(int(layout.members[it->second].size()));
    layout.members[it->second].push_back(member);
    layout.hostOfMember.push_back(int(it->second));
  }
  layout.runs.resize(layout.members.size());
  for (size_t host = 0; host < layout.members.size(); ++host) {
    const std::vector<int>& members = layout.members[host];
    for (size_t i = 0; i < members.size(); ++i)
      if (i == 0 || members[i] != members[i - 1] + 1)
        layout.runs[host].push_back(HostLayout::Run{i, i + 1});
      else
        layout.runs[host].back().end = i + 1;
  }
  return layout;
}

const HostLayout& hostLayoutOf(Communicator& comm, World& world) {
  uint64_t generation = world.remoteGeneration();
  const HostLayout* now = comm.hostLayoutNow.load(std::memory_order_acquire);
  if (now && now->generation == generation) return *now;
  std::lock_guard<std::mutex> guard(comm.hostLayoutMutex);
  now = comm.hostLayoutNow.load(std::memory_order_acquire);
  if (now && now->generation == generation) return *now;
  comm.hostLayouts.push_back(
      std::make_shared<const HostLayout>(layOut(comm, *world.remoteRanks(), generation)));
  comm.hostLayoutNow.store(comm.hostLayouts.back().get(), std::memory_order_release);
  return *comm.hostLayouts.back();
}

// One collective call of one rank: who is where, and the messages.
class HostPhases {
 public:
  HostPhases(HostCall& call, int commHandle, CollectiveKind kind)
      : call_(call),
        world_(call.world()),
        comm_(*call.rank.comm(commHandle)->comm),
        kind_(kind),
        layout_(hostLayoutOf(comm_, world_)) {
    me_ = comm_.rankOfWorld[call.rank.worldRank];
    myHost_ = layout_.hostOfMember[me_];
  }

  using Run = HostLayout::Run;

  int me() const { return me_; }
  int size() const { return comm_.size(); }
  Communicator& communicator() const { return comm_; }
  int hosts() const { return int(layout_.members.size()); }
  int myHost() const { return myHost_; }
  int hostOf(int member) const { return layout_.hostOfMember[member]; }
  // The position of `member` in membersOf(hostOf(member)).
  int indexOnHost(int member) const { return layout_.indexOnHost[member]; }
  const std::vector<Run>& runsOf(int host) const { return layout_.runs[host]; }
  // The first rank of run `run` of `host`.
  int firstOf(int host, const Run& run) const { return layout_.members[host][run.begin]; }
  const std::vector<int>& membersOf(int host) const { return layout_.members[host]; }
  int leaderOf(int host) const { return layout_.members[host][0]; }
  bool leads() const { return leaderOf(myHost_) == me_; }
  int myLeader() const { return leaderOf(myHost_); }

  // Messages started with postSend() and postReceive(), which waitAll()
  // completes. Sends and receives of one step are posted together, so
  // that the link writes to every other host at once and no large send
  // waits for its write before the next one starts.
  using Posted = std::vector<std::shared_ptr<Request>>;

  // A short message is copied out at once, as a short MPI_Send is, and
  // needs no request: collectives in a loop send many of them.
  void postSend(Posted& posted, int to, const uint8_t* data, int64_t bytes) {
    if (world_.isRemote(comm_.worldRanks[to])) crossHostMessages[int(kind_)].fetch_add(1);
    uint32_t context = comm_.context | kCollectiveContextBit;
    if (world_.sendEager(call_.rank.worldRank, Envelope{context, me_, int(kind_), bytes}, data,
                         *byteLayout(), bytes, comm_.worldRanks[to], /*mayDefer=*/false)) {
      if (world_.aborted()) call_.leaveAbortedJob();
      return;
    }
    posted.push_back(postMessage(call_, comm_, Request::Kind::Send, to,
                                 const_cast<uint8_t*>(data), bytes, context, int(kind_)));
  }
  void postSend(Posted& posted, int to, const Bytes& data) {
    postSend(posted, to, data.data(), int64_t(data.size()));
  }
  // A send that completes only once its receive has matched it: on
  // another host, once that host acknowledges the match, or, when the
  // receive borrows the message, once it has given it back.
  void postSynchronousSend(Posted& posted, int to, const uint8_t* data, int64_t bytes) {
    if (world_.isRemote(comm_.worldRanks[to])) crossHostMessages[int(kind_)].fetch_add(1);
    posted.push_back(postMessage(call_, comm_, Request::Kind::Send, to,
                                 const_cast<uint8_t*>(data), bytes,
                                 comm_.context | kCollectiveContextBit, int(kind_), nullptr,
                                 MessageMode::Synchronous));
  }
  // A send that gathers the message from the places `type` lists,
  // relative to `base` (the type's size is the message's): a large one is
  // read in place by the link, with no packing.
  void postSend(Posted& posted, int to, const uint8_t* base, const Layout& type) {
    if (world_.isRemote(comm_.worldRanks[to])) crossHostMessages[int(kind_)].fetch_add(1);
    posted.push_back(postMessage(call_, comm_, Request::Kind::Send, to, const_cast<uint8_t*>(base),
                                 type->size, comm_.context | kCollectiveContextBit, int(kind_),
                                 &type));
  }
  void postReceive(Posted& posted, int from, uint8_t* data, int64_t bytes) {
    posted.push_back(postMessage(call_, comm_, Request::Kind::Recv, from, data, bytes,
                                 comm_.context | kCollectiveContextBit, int(kind_)));
  }
  // A receive of `bytes` whose data may stay where it arrived: after
  // waitAll() it is at lentData() when the receive has a `lender`, which
  // returnLent() gives back once read, and in `data` otherwise.
  void postBorrowingReceive(Posted& posted, int from, uint8_t* data, int64_t bytes) {
    posted.push_back(postMessage(call_, comm_, Request::Kind::Recv, from, data, bytes,
                                 comm_.context | kCollectiveContextBit, int(kind_), nullptr,
                                 MessageMode::Borrowing));
  }
  void returnLent(Request& receive) { world_.returnLent(receive); }
  // A receive that scatters the message over the places `type` lists,
  // relative to `base` (the type's size is the message's).
  void postReceive(Posted& posted, int from, uint8_t* base, const Layout& type) {
    posted.push_back(postMessage(call_, comm_, Request::Kind::Recv, from, base, type->size,
                                 comm_.context | kCollectiveContextBit, int(kind_), &type));
  }
  // A step whose messages all come from or go to members of this host
  // leaves the connections to other hosts alone while it waits: a member
  // that polled them for its leader's share took the socket's lock from
  // under its leader's own reads and writes (one MPI_Bcast in a loop at 6
  // ranks on 3 hosts spent a third of its time switching threads there).
  // The step's messages are waited for in one stretch, named after the
  // first that is not done (for the deadlock report): a wait that reads
  // the connections costs a setsockopt on each at its start and its end
  // (transport/Transport.cpp), which a wait per message paid again for
  // each (MPI_Alltoall at 4 ranks on 3 hosts: 6.5 a call).
  void waitAll(const Posted& posted) {
    World::Awaited awaited = World::Awaited::ThisHost;
    for (const std::shared_ptr<Request>& request : posted)
      if (hostOf(request->peer) != myHost_) awaited = World::Awaited::AnyHost;
    for (size_t first = 0; first < posted.size(); ++first) {
      if (isCompleteNow(*posted[first])) continue;
      auto allDone = [&] {
        for (size_t i = first; i < posted.size(); ++i)
          if (!isCompleteNow(*posted[i])) return false;
        return true;
      };
      if (!world_.waitUntilReady(call_.rank.worldRank,
                                 WaitInfo{call_.name, posted[first]->peer, 0, &comm_}, allDone,
                                 awaited))
        call_.leaveAbortedJob();
    }
  }

  void send(int to, const uint8_t* data, int64_t bytes) {
    Posted posted;
    postSend(posted, to, data, bytes);
    waitAll(posted);
  }
  void send(int to, const Bytes& data) { send(to, data.data(), int64_t(data.size())); }

  void receive(int from, uint8_t* data, int64_t bytes) {
    Posted posted;
    postReceive(posted, from, data, bytes);
    waitAll(posted);
  }
  Bytes receive(int from, int64_t bytes) {
    Bytes data(static_cast<size_t>(bytes));
    receive(from, data.data(), bytes);
    return data;
  }
  // The next message from `from`, whatever its size: the v-forms' members
  // do not know the counts the others passed.
  Bytes receiveAny(int from) {
    bool aborted = false;
    std::optional<ProbeResult> found =
        world_.waitProbe(call_.rank.worldRank, comm_.context | kCollectiveContextBit, from,
                         int(kind_), WaitInfo{call_.name, from, 0, &comm_}, aborted);
    if (aborted || !found) call_.leaveAbortedJob();
    return receive(from, found->bytes);
  }

 private:
  HostCall& call_;
  World& world_;
  Communicator& comm_;
  CollectiveKind kind_;
  const HostLayout& layout_;
  int me_ = 0;
  int myHost_ = 0;
};

Bytes pack(const uint8_t* data, const TypeLayout& type, int64_t count) {
  Bytes packed(size_t(type.size * count));
  packTyped(data, type, count, packed.data());
  return packed;
}

// A reduction's op on packed operands: a predefined one, or a user-defined
// one, which runs in the guest of the rank that holds the operands (each
// host's leader), so a combiner never crosses hosts.
struct Reduction {
  HostCall& call;
  int comm;
  int op;
  int typeHandle;
  const TypeLayout& type;
  int64_t count;

  int64_t bytes() const { return type.size * count; }

  // inout = in op inout, both packed.
  void combine(const uint8_t* in, uint8_t* inout) const {
    if (op <= abi::kLastPredefinedOp) {
      applyPredefinedOp(PredefinedOp(op), type.element, in, inout,
                        count * type.elementsPerInstance());
      return;
    }
    if (applyUserOpPacked(call, comm, op, typeHandle, type, count, in, inout) == abi::kSuccess)
      return;
    // The other members wait for this result: the job cannot go on.
    call.world().abort(abi::kErrOp, "rank " + std::to_string(call.rank.worldRank) + ": " +
                                        call.name + ": the user-defined op failed");
    call.leaveAbortedJob();
  }

  // out = in op other, both packed, `out` apart from both: one pass over
  // the three for a predefined op.
  void combineInto(const uint8_t* in, const uint8_t* other, uint8_t* out) const {
    if (op <= abi::kLastPredefinedOp) {
      applyPredefinedOpInto(PredefinedOp(op), type.element, in, other, out,
                            count * type.elementsPerInstance());
      return;
    }
    std::memcpy(out, other, size_t(bytes()));
    combine(in, out);
  }

  // The rank-order fold of `operands` (packed, in rank order) into `out`,
  // bytes() long: x0 op (x1 op (...)). Reads each operand where it is; the
  // last may be `out` itself, and no other overlaps it.
  void foldInto(const std::vector<const uint8_t*>& operands, uint8_t* out) const {
    if (bytes() == 0) return;
    size_t pending = operands.size() - 1;  // operands[0, pending) are still to combine
    if (operands.back() != out) {
      if (pending == 0) {
        std::memcpy(out, operands.back(), size_t(bytes()));
        return;
      }
      --pending;
      combineInto(operands[pending], operands.back(), out);
    }
    while (pending > 0) {
      --pending;
      combine(operands[pending], out);
    }
  }

  // The same, of operands that it may consume.
  Bytes fold(std::vector<Bytes>& operands) const {
    Bytes result = std::move(operands.back());
    for (int i = int(operands.size()) - 2; i >= 0; --i)
      combine(operands[size_t(i)].data(), result.data());
    return result;
  }

  // Another reduction of the same op over `instances` of the type.
  Reduction over(int64_t instances) const {
    return Reduction{call, comm, op, typeHandle, type, instances};
  }
};

// The leader's share of a reduction: the contributions of its host's
// members (`operands`, packed, in their order on the host), each run's
// folded in rank order, the runs' results one after the other into
// `partials`, reduction.bytes() times the runs long.
void foldOnHost(const HostPhases& phases, const std::vector<const uint8_t*>& operands,
                const Reduction& reduction, uint8_t* partials) {
  const std::vector<HostPhases::Run>& runs = phases.runsOf(phases.myHost());
  for (size_t r = 0; r < runs.size(); ++r)
    reduction.foldInto({operands.begin() + ptrdiff_t(runs[r].begin),
                        operands.begin() + ptrdiff_t(runs[r].end)},
                       partials + int64_t(r) * reduction.bytes());
}

// foldOnHost() of this host's members' contributions, the leader's
// (`mine`) first, the others received from them.
Bytes reduceOnHost(HostPhases& phases, Bytes mine, const Reduction& reduction) {
  const std::vector<int>& members = phases.membersOf(phases.myHost());
  std::vector<Bytes> operands;
  operands.push_back(std::move(mine));
  for (size_t i = 1; i < members.size(); ++i)
    operands.push_back(phases.receive(members[i], int64_t(operands[0].size())));
  std::vector<const uint8_t*> packed;
  for (const Bytes& operand : operands) packed.push_back(operand.data());
  Bytes partials(size_t(reduction.bytes()) * phases.runsOf(phases.myHost()).size());
  foldOnHost(phases, packed, reduction, partials.data());
  return partials;
}

// The rank-order fold of every host's run results into `out`: `partials`
// holds each host's, as foldOnHost makes them (run r at r * strides[host]),
// and each is reduction.bytes() long.
void foldRunsInto(const HostPhases& phases, const std::vector<const uint8_t*>& partials,
                  const std::vector<int64_t>& strides, const Reduction& reduction,
                  uint8_t* out) {
  std::vector<std::pair<int, const uint8_t*>> runs;  // (first rank, result)
  for (int host = 0; host < phases.hosts(); ++host) {
    const std::vector<HostPhases::Run>& ofHost = phases.runsOf(host);
    for (size_t r = 0; r < ofHost.size(); ++r)
      runs.emplace_back(phases.firstOf(host, ofHost[r]),
                        partials[size_t(host)] + int64_t(r) * strides[size_t(host)]);
  }
  std::sort(runs.begin(), runs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const uint8_t*> operands;
  for (const auto& run : runs) operands.push_back(run.second);
  reduction.foldInto(operands, out);
}

// The same, with the runs of every host `stride` apart.
void foldRunsInto(const HostPhases& phases, const std::vector<const uint8_t*>& partials,
                  int64_t stride, const Reduction& reduction, uint8_t* out) {
  foldRunsInto(phases, partials, std::vector<int64_t>(size_t(phases.hosts()), stride), reduction,
               out);
}

// Concatenates the blocks of this host's members, in their order.
Bytes gatherOnHost(HostPhases& phases, Bytes mine) {
  const std::vector<int>& members = phases.membersOf(phases.myHost());
  Bytes bundle = std::move(mine);
  size_t block = bundle.size();
  bundle.resize(block * members.size());
  for (size_t i = 1; i < members.size(); ++i)
    phases.receive(members[i], bundle.data() + i * block, int64_t(block));
  return bundle;
}

// Sends the `bytes` at `data` to every other member of this host but
// `skip`.
void shareOnHost(HostPhases& phases, const uint8_t* data, int64_t bytes, int skip = -1) {
  HostPhases::Posted posted;
  for (int member : phases.membersOf(phases.myHost()))
    if (member != phases.me() && member != skip) phases.postSend(posted, member, data, bytes);
  phases.waitAll(posted);
}
void shareOnHost(HostPhases& phases, const Bytes& data, int skip = -1) {
  shareOnHost(phases, data.data(), int64_t(data.size()), skip);
}

// The leaders' all-to-all step: sends this host's block to the leader of
// every other host, one message each, and receives theirs, bytesFrom(host)
// bytes from each. Returns every host's block, in host order. The receives
// are posted first, so that a block that arrives while the sends are still
// being written lands in its buffer, and all sends go out together.
std::vector<Bytes> exchangeWithLeaders(HostPhases& phases, Bytes mine,
                                       util::FunctionRef<int64_t(int host)> bytesFrom) {
  std::vector<Bytes> blocks(size_t(phases.hosts()));
  HostPhases::Posted posted;
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    blocks[size_t(host)].resize(size_t(bytesFrom(host)));
    phases.postReceive(posted, phases.leaderOf(host), blocks[size_t(host)].data(),
                       int64_t(blocks[size_t(host)].size()));
  }
  for (int host = 0; host < phases.hosts(); ++host)
    if (host != phases.myHost()) phases.postSend(posted, phases.leaderOf(host), mine);
  phases.waitAll(posted);
  blocks[size_t(phases.myHost())] = std::move(mine);
  return blocks;
}

// Every member's block in rank order, from `bundles`, by host, each the
// concatenated blocks of that host's members; member i's is bytesOf(i)
// long.
Bytes inRankOrder(const HostPhases& phases, const std::vector<Bytes>& bundles,
                  util::FunctionRef<int64_t(int member)> bytesOf) {
  std::vector<const uint8_t*> blockOf(size_t(phases.size()));
  int64_t total = 0;
  for (int host = 0; host < phases.hosts(); ++host) {
    const uint8_t* at = bundles[size_t(host)].data();
    for (int member : phases.membersOf(host)) {
      blockOf[size_t(member)] = at;
      at += bytesOf(member);
      total += bytesOf(member);
    }
  }
  Bytes all;
  all.reserve(size_t(total));
  for (int member = 0; member < phases.size(); ++member)
    all.insert(all.end(), blockOf[size_t(member)], blockOf[size_t(member)] + bytesOf(member));
  return all;
}

// The blocks of `members` (block bytes each) of `all`, which holds every
// member's in rank order, concatenated.
Bytes blocksOf(const Bytes& all, const std::vector<int>& members, int64_t block) {
  Bytes bundle;
  bundle.reserve(size_t(block) * members.size());
  for (int member : members)
    bundle.insert(bundle.end(), all.begin() + member * block, all.begin() + (member + 1) * block);
  return bundle;
}

// The v-forms' messages: a list of blocks of any sizes, sent as their
// number, each one's size (8 bytes each), then their bytes, so that a
// leader can pass on blocks whose counts only their sender and receiver
// know.
Bytes encodeBlocks(const std::vector<Bytes>& blocks) {
  size_t total = sizeof(uint64_t) * (blocks.size() + 1);
  for (const Bytes& block : blocks) total += block.size();
  Bytes message(total);
  uint64_t number = blocks.size();
  std::memcpy(message.data(), &number, sizeof(number));
  size_t at = sizeof(uint64_t) * (blocks.size() + 1);
  for (size_t i = 0; i < blocks.size(); ++i) {
    uint64_t size = blocks[i].size();
    std::memcpy(message.data() + sizeof(uint64_t) * (i + 1), &size, sizeof(size));
    if (size) std::memcpy(message.data() + at, blocks[i].data(), size);
    at += size;
  }
  return message;
}

// Splits a message of encodeBlocks() that must hold `expected` blocks.
// Another host's runtime sent it, so every size is checked against the
// message before anything is copied; a message that does not add up stops
// the job, whose members would otherwise wait for data that never comes.
std::vector<Bytes> decodeBlocks(HostCall& call, const Bytes& message, size_t expected) {
  uint64_t number = 0;
  bool wellFormed = message.size() >= sizeof(number);
  if (wellFormed) std::memcpy(&number, message.data(), sizeof(number));
  wellFormed = wellFormed && number == expected &&
               (message.size() - sizeof(number)) / sizeof(uint64_t) >= expected;
  std::vector<Bytes> blocks;
  if (wellFormed) {
    size_t at = sizeof(uint64_t) * (expected + 1);
    blocks.resize(expected);
    for (size_t i = 0; i < expected && wellFormed; ++i) {
      uint64_t size;
      std::memcpy(&size, message.data() + sizeof(uint64_t) * (i + 1), sizeof(size));
      wellFormed = size <= message.size() - at;
      if (wellFormed) blocks[i].assign(message.begin() + ptrdiff_t(at),
                                       message.begin() + ptrdiff_t(at + size));
      at += wellFormed ? size : 0;
    }
    wellFormed = wellFormed && at == message.size();
  }
  if (!wellFormed) {
    call.world().abort(abi::kErrIntern, "rank " + std::to_string(call.rank.worldRank) + ": " +
                                            call.name +
                                            ": a malformed collective message between hosts");
    call.leaveAbortedJob();
  }
  return blocks;
}

// Unpacks a packed block into `count` instances of `type` at `to`, as
// much as fits; the error a single-host receive raises when it does not.
int unpackBlock(HostCall& call, int comm, const Bytes& block, uint8_t* to, const TypeLayout& type,
                int64_t count) {
  int64_t bytes = int64_t(block.size()), capacity = type.size * count;
  copyTyped(block.data(), *byteLayout(), bytes, to, type, count, std::min(bytes, capacity));
  if (bytes > capacity)
    return call.fail(comm, abi::kErrTruncate,
                     "received " + std::to_string(bytes) + " bytes into a buffer of " +
                         std::to_string(capacity));
  return abi::kSuccess;
}

// Packs each member's block of `blocks`.
std::vector<Bytes> packBlocks(const MemberBlocks& blocks, int members) {
  std::vector<Bytes> packed(static_cast<size_t>(members));
  for (int i = 0; i < members; ++i)
    packed[size_t(i)] = pack(blocks.block(i), *blocks.type, blocks.counts[i]);
  return packed;
}

// A host's leader reads and writes its members' buffers itself
// (HostMeeting.h): a member whose buffer holds another number of bytes
// than the leader's (a program passing different counts or datatypes)
// stops the job rather than have the leader read or write past it.
void requireBlockBytes(HostCall& call, int64_t memberBytes, int64_t leaderBytes) {
  if (memberBytes == leaderBytes) return;
  call.world().abort(abi::kErrTruncate,
                     "rank " + std::to_string(call.rank.worldRank) + ": " + call.name +
                         ": a rank on this host passed " + std::to_string(memberBytes) +
                         " bytes where this one passed " + std::to_string(leaderBytes) +
                         " (different counts or datatypes)");
  call.leaveAbortedJob();
}

// Whether any of the first `members` counts is negative.
bool anyNegative(const int32_t* counts, int members) {
  return std::any_of(counts, counts + members, [](int32_t count) { return count < 0; });
}

// The contributions this host's members posted in `meeting` (send,
// recvType, recvCount) for `reduction`, in member order. A predefined op
// reads a contiguous contribution where it is; the others are packed first
// into `packedAside` (a user-defined op gets copies: it runs in this
// rank's guest, which may write what it is given).
std::vector<const uint8_t*> meetingOperands(HostCall& call, const HostPhases& phases,
                                            const HostMeeting& meeting,
                                            const Reduction& reduction,
                                            std::vector<Bytes>& packedAside) {
  size_t members = phases.membersOf(phases.myHost()).size();
  packedAside.resize(members);
  std::vector<const uint8_t*> operands;
  for (size_t i = 0; i < members; ++i) {
    const Contribution& slot = meeting.slotOf(i);
    requireBlockBytes(call, slot.recvType->size * slot.recvCount, reduction.bytes());
    if (reduction.op <= abi::kLastPredefinedOp && slot.recvType->isContiguous()) {
      operands.push_back(slot.send + slot.recvType->lb);
    } else {
      packedAside[i] = pack(slot.send, *slot.recvType, slot.recvCount);
      operands.push_back(packedAside[i].data());
    }
  }
  return operands;
}

// This host's partial result of `reduction` (foldOnHost()'s layout). A
// host of one member has its contribution as its result: read where it is
// (or from its packed copy in `packedAside`), not copied. Any other's is
// folded into `folded`, which nothing zero-fills first (512 KiB of zeros
// cost its leader about what folding them does).
const uint8_t* hostPartial(HostCall& call, const HostPhases& phases, const HostMeeting& meeting,
                           const Reduction& reduction, std::vector<Bytes>& packedAside,
                           std::unique_ptr<uint8_t[]>& folded) {
  std::vector<const uint8_t*> operands =
      meetingOperands(call, phases, meeting, reduction, packedAside);
  if (operands.size() == 1) return operands[0];
  folded.reset(new uint8_t[size_t(reduction.bytes()) * phases.runsOf(phases.myHost()).size()]);
  foldOnHost(phases, operands, reduction, folded.get());
  return folded.get();
}

// Where a large reduction's partial results cross hosts in segments: the
// instance at which each segment starts, then `count`. A reduction of at
// least kPipelinedReduceBytes whose hosts each hold one run of consecutive
// ranks goes in segments of about kReduceSegmentBytes, so that the root's
// leader folds the first segments while the later ones are still on their
// way (a 512 KiB MPI_Reduce over two hosts took 4x OpenMPI's time when
// its leader received the whole partial before folding any of it); any
// other goes whole. Every host computes the same segments. Segments of
// 128 KiB (OpenMPI's TCP fragment) rather than 64: the bench's reduce
// kernel (512 KiB, two hosts) then took the root's process 7-11 recvfrom
// a call instead of 19-59 and the sender's 3-4 sendmsg instead of 8, and
// the ranks' CPU time was lower in 3 of 4 alternated runs (median about
// 280 against 420 us a call, load 16-17).
constexpr int64_t kPipelinedReduceBytes = 256 << 10;
constexpr int64_t kReduceSegmentBytes = 128 << 10;

std::vector<int64_t> reduceSegments(const HostPhases& phases, const Reduction& reduction) {
  bool oneRunEach = true;
  for (int host = 0; host < phases.hosts(); ++host)
    oneRunEach = oneRunEach && phases.runsOf(host).size() == 1;
  int64_t instanceBytes = std::max<int64_t>(reduction.type.size, 1);
  int64_t perSegment = std::max<int64_t>(kReduceSegmentBytes / instanceBytes, 1);
  std::vector<int64_t> starts{0};
  if (oneRunEach && reduction.bytes() >= kPipelinedReduceBytes)
    for (int64_t start = perSegment; start < reduction.count; start += perSegment)
      starts.push_back(start);
  starts.push_back(reduction.count);
  return starts;
}

// Whether the `bytes` at `a` and at `b` overlap.
bool overlaps(const uint8_t* a, const uint8_t* b, int64_t bytes) {
  auto from = reinterpret_cast<uintptr_t>(a), to = reinterpret_cast<uintptr_t>(b);
  return bytes > 0 && from < to + uint64_t(bytes) && to < from + uint64_t(bytes);
}

// A reduction's contribution and result buffers, as a HostMeeting posts
// them.
void postReduction(Contribution& slot, const uint8_t* send, uint8_t* recv,
                   const TypeLayout& type, int64_t count) {
  slot.send = send;
  slot.recv = recv;
  slot.recvType = &type;
  slot.recvCount = count;
}

// A small MPI_Allreduce over three hosts or more crosses them as a reduce
// to one leader, then a broadcast from it: every other leader sends its
// host's partial results to that leader and receives the result from it,
// 2 (hosts - 1) messages in two steps, where the leaders' exchange sends
// hosts (hosts - 1) in one. Over three hosts that is 4 messages against 6,
// and a leader other than the folding one sends and receives one message
// a call instead of two and folds nothing: a small allreduce costs CPU
// time, mostly per message (sendmsg, reads, wake-ups), more than it costs
// hops on loopback. Over two hosts both ways send 2 messages, and the
// exchange has one step.
constexpr int kOneLeaderHosts = 3;

bool foldsAtOneLeader(const HostPhases& phases) { return phases.hosts() >= kOneLeaderHosts; }

// A large MPI_Allreduce crosses hosts as a reduce-scatter, then an
// allgather, between the leaders: host h's leader folds only segment h of
// the result, from every host's partial results for it, then sends that
// segment to every other leader. Each leader thus sends and folds about
// 2/hosts of the data for each other host instead of all of it, in two
// steps of one message to each other host (512 KiB over three hosts took
// 2.2x OpenMPI's time when every leader sent its whole partial result to
// every other and folded all of them). Over two hosts, below
// kSplitAllreduceBytes the one exchange of whole partial results wins,
// having half the steps. Over three hosts or more the split competes with
// the reduce to one leader, which sends 4 messages where it sends 12 over
// three hosts, and wins up to kSplitOverOneLeaderBytes: at 32 and 64 KiB
// over three hosts (np 4) the ranks' CPU time per call was 0.45-0.55x the
// split's, at 128 KiB 1.07-1.35x.
constexpr int64_t kSplitAllreduceBytes = 32 << 10;
constexpr int64_t kSplitOverOneLeaderBytes = 128 << 10;

bool splitsAllreduce(const HostPhases& phases, const Reduction& reduction) {
  int64_t threshold = foldsAtOneLeader(phases) ? kSplitOverOneLeaderBytes : kSplitAllreduceBytes;
  return reduction.bytes() >= threshold && reduction.count >= phases.hosts();
}

// The leader's part of a split MPI_Allreduce (splitsAllreduce()), from its
// host's `partial` (foldOnHost()'s layout), into every member's receive
// buffer. Every host computes the same segments: host h's starts at
// instance count * h / hosts.
void allreduceBySegments(HostPhases& phases, const HostMeeting& meeting,
                         const Reduction& reduction, const uint8_t* partial) {
  int hosts = phases.hosts(), here = phases.myHost();
  int64_t instanceBytes = reduction.type.size;
  std::vector<int64_t> starts;
  for (int host = 0; host <= hosts; ++host) starts.push_back(reduction.count * host / hosts);
  auto offsetOf = [&](int host) { return starts[size_t(host)] * instanceBytes; };
  auto bytesOf = [&](int host) {
    return (starts[size_t(host) + 1] - starts[size_t(host)]) * instanceBytes;
  };
  // The result goes straight into the leader's receive buffer when it is
  // contiguous; the other members' are unpacked from it.
  const Contribution& leaderSlot = meeting.slotOf(0);
  std::unique_ptr<uint8_t[]> result;
  uint8_t* out;
  if (leaderSlot.recvType->isContiguous()) {
    out = leaderSlot.recv + leaderSlot.recvType->lb;
  } else {
    result.reset(new uint8_t[size_t(reduction.bytes())]);
    out = result.get();
  }
  size_t myRuns = phases.runsOf(here).size();
  // Step 1: each other host's segment of this host's runs goes to its
  // leader (from where it is when this host has one run), and this host's
  // segment of theirs comes here, to be folded from the frame it arrived
  // in when it came eagerly (a borrowing receive, as reduceAcrossHosts()'s)
  // rather than copied out of it first.
  std::vector<std::unique_ptr<uint8_t[]>> received(static_cast<size_t>(hosts)),
      outgoing(static_cast<size_t>(hosts));
  std::vector<const uint8_t*> segments(static_cast<size_t>(hosts));
  std::vector<int64_t> strides(static_cast<size_t>(hosts));
  HostPhases::Posted scatter;  // the receives, one per other host in host order, then the sends
  for (int host = 0; host < hosts; ++host) {
    if (host == here) continue;
    int64_t bytes = bytesOf(here) * int64_t(phases.runsOf(host).size());
    received[size_t(host)].reset(new uint8_t[size_t(bytes)]);
    segments[size_t(host)] = received[size_t(host)].get();
    strides[size_t(host)] = bytesOf(here);
    phases.postBorrowingReceive(scatter, phases.leaderOf(host), received[size_t(host)].get(),
                                bytes);
  }
  for (int host = 0; host < hosts; ++host) {
    if (host == here) continue;
    const uint8_t* from = partial + offsetOf(host);
    if (myRuns > 1) {
      outgoing[size_t(host)].reset(new uint8_t[size_t(bytesOf(host)) * myRuns]);
      for (size_t r = 0; r < myRuns; ++r)
        std::memcpy(outgoing[size_t(host)].get() + int64_t(r) * bytesOf(host),
                    from + int64_t(r) * reduction.bytes(), size_t(bytesOf(host)));
      from = outgoing[size_t(host)].get();
    }
    phases.postSend(scatter, phases.leaderOf(host), from, bytesOf(host) * int64_t(myRuns));
  }
  // This host's own runs are read where they are, unless that is where
  // the fold writes (MPI_IN_PLACE on a host of one member).
  Bytes mineAside;
  segments[size_t(here)] = partial + offsetOf(here);
  strides[size_t(here)] = reduction.bytes();
  if (overlaps(partial, out, reduction.bytes())) {
    mineAside.assign(partial + offsetOf(here), partial + offsetOf(here) + bytesOf(here));
    segments[size_t(here)] = mineAside.data();
  }
  phases.waitAll(scatter);
  // A lent message holds its host's runs as `received` would.
  for (int host = 0, k = 0; host < hosts; ++host)
    if (host != here)
      if (const Request& receive = *scatter[size_t(k++)]; receive.lender)
        segments[size_t(host)] = lentData(receive);
  foldRunsInto(phases, segments, strides,
               reduction.over(starts[size_t(here) + 1] - starts[size_t(here)]),
               out + offsetOf(here));
  for (int k = 0; k < hosts - 1; ++k)
    if (scatter[size_t(k)]->lender) phases.returnLent(*scatter[size_t(k)]);
  // Step 2: this host's segment of the result goes to every other leader,
  // and theirs come straight into place. The step-1 sends are done, so
  // nothing still reads what these receives write.
  HostPhases::Posted gather;
  for (int host = 0; host < hosts; ++host)
    if (host != here)
      phases.postReceive(gather, phases.leaderOf(host), out + offsetOf(host), bytesOf(host));
  for (int host = 0; host < hosts; ++host)
    if (host != here)
      phases.postSend(gather, phases.leaderOf(host), out + offsetOf(here), bytesOf(here));
  phases.waitAll(gather);
  if (result) unpackTyped(out, leaderSlot.recv, *leaderSlot.recvType, leaderSlot.recvCount);
  for (size_t i = 1; i < phases.membersOf(here).size(); ++i) {
    const Contribution& slot = meeting.slotOf(i);
    unpackTyped(out, slot.recv, *slot.recvType, slot.recvCount);
  }
}

// The host whose leader folds: the one with the most members (the first
// such), whose leader waits for its members anyway, while a host of one
// member sends its contribution as soon as it comes.
int foldingHost(const HostPhases& phases) {
  int folding = 0;
  for (int host = 1; host < phases.hosts(); ++host)
    if (phases.membersOf(host).size() > phases.membersOf(folding).size()) folding = host;
  return folding;
}

// Every host's partial result (foldOnHost()'s layout) for a leader that
// folds them all: this host's is `partial`; the others' are received from
// their leaders into `buffers`, which nothing zero-fills, once `posted`
// completes.
struct ReceivedPartials {
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  std::vector<const uint8_t*> ofHost;
};

ReceivedPartials postPartialReceives(HostPhases& phases, const Reduction& reduction,
                                     const uint8_t* partial, HostPhases::Posted& posted) {
  ReceivedPartials partials;
  partials.buffers.resize(size_t(phases.hosts()));
  partials.ofHost.resize(size_t(phases.hosts()));
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) {
      partials.ofHost[size_t(host)] = partial;
      continue;
    }
    int64_t bytes = reduction.bytes() * int64_t(phases.runsOf(host).size());
    partials.buffers[size_t(host)].reset(new uint8_t[size_t(bytes)]);
    partials.ofHost[size_t(host)] = partials.buffers[size_t(host)].get();
    phases.postReceive(posted, phases.leaderOf(host), partials.buffers[size_t(host)].get(), bytes);
  }
  return partials;
}

// The leader's part of a small MPI_Allreduce over three hosts or more
// (foldsAtOneLeader()), from its host's `partial` (foldOnHost()'s
// layout), into every member's receive buffer.
void allreduceAtOneLeader(HostPhases& phases, const HostMeeting& meeting,
                          const Reduction& reduction, const uint8_t* partial) {
  int here = phases.myHost(), folding = foldingHost(phases);
  Bytes result(size_t(reduction.bytes()));
  HostPhases::Posted posted;
  if (here != folding) {
    int64_t myBytes = reduction.bytes() * int64_t(phases.runsOf(here).size());
    phases.postSend(posted, phases.leaderOf(folding), partial, myBytes);
    phases.postReceive(posted, phases.leaderOf(folding), result.data(), reduction.bytes());
    phases.waitAll(posted);
  } else {
    ReceivedPartials partials = postPartialReceives(phases, reduction, partial, posted);
    phases.waitAll(posted);
    foldRunsInto(phases, partials.ofHost, reduction.bytes(), reduction, result.data());
    HostPhases::Posted sends;
    for (int host = 0; host < phases.hosts(); ++host)
      if (host != here) phases.postSend(sends, phases.leaderOf(host), result);
    phases.waitAll(sends);
  }
  const std::vector<int>& members = phases.membersOf(here);
  for (size_t i = 0; i < members.size(); ++i) {
    const Contribution& slot = meeting.slotOf(i);
    unpackTyped(result.data(), slot.recv, *slot.recvType, slot.recvCount);
  }
}

// MPI_Bcast of up to this many bytes relays between the leaders: the
// root's host sends to one host, and each other leader to at most two
// (host i after the root's sends to hosts 2i and 2i + 1), where a larger
// one goes from the root's host to every other at once. A small message
// costs its sender CPU time, mostly per message (the sendmsg, and on
// loopback the receiving socket's work and wake-ups with it), far more
// than its bytes: with every message from the root's host, its process
// spent 6.7 us of CPU a call on MPI_Bcast of 8 B at 6 ranks over 3 hosts
// and the others 1 to 1.4 us, so broadcasts in a row went at the root's
// pace. The relay shares that cost out, for one more hop to the last
// hosts; a large message's time is its bytes, which every host's leader
// would then have to receive in full before sending them on.
constexpr int64_t kRelayedBcastBytes = kStagedCollectiveBytes;

// The leaders' broadcast tree, in hosts counted from the root's (0).
int parentInBcastTree(int relative, int64_t bytes) {
  return bytes <= kRelayedBcastBytes ? relative / 2 : 0;
}
std::vector<int> childrenInBcastTree(int relative, int hosts, int64_t bytes) {
  std::vector<int> children;
  if (bytes > kRelayedBcastBytes) {
    if (relative == 0)
      for (int host = 1; host < hosts; ++host) children.push_back(host);
  } else if (relative == 0) {
    if (hosts > 1) children.push_back(1);
  } else {
    for (int child : {2 * relative, 2 * relative + 1})
      if (child < hosts) children.push_back(child);
  }
  return children;
}

}  // namespace

bool usesHostCollectives(HostCall& call, int comm) {
  CommHandle* handle = call.rank.comm(comm);
  return handle && call.world().spansHosts(*handle->comm);
}

int barrierAcrossHosts(HostCall& call, int comm) {
  HostPhases phases(call, comm, CollectiveKind::Barrier);
  HostMeeting meeting(call, phases.communicator(), phases.membersOf(phases.myHost()),
                      CollectiveKind::Barrier, [](Contribution&) {});
  if (!phases.leads()) {
    meeting.awaitRelease();
    return abi::kSuccess;
  }
  meeting.awaitMembers();
  exchangeWithLeaders(phases, {}, [](int) { return int64_t(0); });
  meeting.release();
  return abi::kSuccess;
}

int bcastAcrossHosts(HostCall& call, int comm, uint8_t* buffer, const TypeLayout& type,
                     int64_t count, int root) {
  HostPhases phases(call, comm, CollectiveKind::Bcast);
  int64_t bytes = type.size * count;
  int rootHost = phases.hostOf(root);
  bool isRoot = phases.me() == root;
  // A contiguous buffer is sent from and received into where it is: no
  // rank copies it or allocates for it. Any other goes through its packed
  // image.
  Bytes packed;
  uint8_t* data = buffer + type.lb;
  if (!type.isContiguous()) {
    packed = isRoot ? pack(buffer, type, count) : Bytes(size_t(bytes));
    data = packed.data();
  }
  if (isRoot && !phases.leads()) {
    phases.send(phases.myLeader(), data, bytes);
    return abi::kSuccess;
  }
  if (!phases.leads()) {
    phases.receive(phases.myLeader(), data, bytes);
  } else {
    // The leaders' tree: host `relative` places after the root's (cyclic)
    // receives from its parent's leader and sends to its children's.
    int hosts = phases.hosts();
    int relative = (phases.myHost() - rootHost + hosts) % hosts;
    auto hostAt = [&](int at) { return (rootHost + at) % hosts; };
    if (phases.myHost() != rootHost)
      phases.receive(phases.leaderOf(hostAt(parentInBcastTree(relative, bytes))), data, bytes);
    else if (!isRoot)
      phases.receive(root, data, bytes);
    HostPhases::Posted posted;
    for (int child : childrenInBcastTree(relative, hosts, bytes))
      phases.postSend(posted, phases.leaderOf(hostAt(child)), data, bytes);
    phases.waitAll(posted);
    shareOnHost(phases, data, bytes, root);
  }
  if (!packed.empty() && !isRoot) unpackTyped(packed.data(), buffer, type, count);
  return abi::kSuccess;
}

int reduceAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                      const TypeLayout& type, int64_t count, int op, int typeHandle, int root) {
  Reduction reduction{call, comm, op, typeHandle, type, count};
  HostPhases phases(call, comm, CollectiveKind::Reduce);
  HostMeeting meeting(call, phases.communicator(), phases.membersOf(phases.myHost()),
                      CollectiveKind::Reduce,
                      [&](Contribution& slot) { postReduction(slot, send, recv, type, count); });
  if (!phases.leads()) {
    meeting.awaitRelease();
    return abi::kSuccess;
  }
  meeting.awaitMembers();
  std::vector<Bytes> packedAside;
  std::unique_ptr<uint8_t[]> folded;
  const uint8_t* partial = hostPartial(call, phases, meeting, reduction, packedAside, folded);
  std::vector<int64_t> segments = reduceSegments(phases, reduction);
  size_t segmentCount = segments.size() - 1;
  int64_t instanceBytes = type.size;
  int rootHost = phases.hostOf(root);
  if (phases.myHost() != rootHost) {
    // The members' data is folded, or is the leader's own: they need not
    // wait for the send.
    meeting.release();
    HostPhases::Posted posted;
    int64_t runsBytes = reduction.bytes() * int64_t(phases.runsOf(phases.myHost()).size());
    // The first of several segments goes synchronously, so that this
    // leader leaves only once the root's host has folded it: a host that
    // calls MPI_Reduce in a loop then runs at most about one call ahead of
    // the root's. Eagerly, it ran up to its whole eager credit ahead (16 MiB:
    // 32 calls of 512 KiB), and the root's host took a page fault for every
    // 4 KiB of fresh memory that held them, and read them back from beyond
    // its caches.
    for (size_t s = 0; s < segmentCount; ++s) {
      const uint8_t* data = partial + segments[s] * instanceBytes;
      int64_t bytes =
          segmentCount == 1 ? runsBytes : (segments[s + 1] - segments[s]) * instanceBytes;
      if (segmentCount > 1 && s == 0)
        phases.postSynchronousSend(posted, phases.leaderOf(rootHost), data, bytes);
      else
        phases.postSend(posted, phases.leaderOf(rootHost), data, bytes);
    }
    phases.waitAll(posted);
    return abi::kSuccess;
  }
  // Straight into the root's buffer when it is contiguous: the operands
  // are partial results or contributions outside it (an MPI_IN_PLACE
  // contribution read in place is copied first).
  const Contribution& atRoot = meeting.slotOf(size_t(phases.indexOnHost(root)));
  Bytes result;
  uint8_t* out;
  if (atRoot.recvType->isContiguous()) {
    out = atRoot.recv + atRoot.recvType->lb;
  } else {
    result.resize(size_t(reduction.bytes()));
    out = result.data();
  }
  if (!folded && overlaps(partial, out, reduction.bytes())) {
    folded.reset(new uint8_t[size_t(reduction.bytes())]);
    std::memcpy(folded.get(), partial, size_t(reduction.bytes()));
    partial = folded.get();
  }
  // The other hosts' partial results, received by segment, each segment
  // folded as soon as every host's has come, from the frame it arrived in
  // when it came eagerly (a borrowing receive), so that the root's host
  // reads the data once, as the fold's operand, and never copies it.
  // Otherwise it lands in `into`: the host with the last ranks, whose
  // result the fold starts from, sends straight into `out` when it has one
  // run and is not the root's host, which saves copying it there.
  int lastHost = phases.hostOf(phases.size() - 1);
  bool lastIntoOut = lastHost != rootHost && phases.runsOf(lastHost).size() == 1 &&
                     !overlaps(partial, out, reduction.bytes());
  std::vector<std::unique_ptr<uint8_t[]>> received(size_t(phases.hosts()));
  std::vector<uint8_t*> into(size_t(phases.hosts()));
  std::vector<const uint8_t*> partials(size_t(phases.hosts()));
  std::vector<HostPhases::Posted> posted(segmentCount);
  std::vector<int> postedFrom;  // the host of each segment's k-th receive
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == rootHost) {
      partials[size_t(host)] = partial;
      continue;
    }
    postedFrom.push_back(host);
    size_t runs = phases.runsOf(host).size();
    if (host == lastHost && lastIntoOut) {
      into[size_t(host)] = out;
    } else {
      received[size_t(host)].reset(new uint8_t[size_t(reduction.bytes()) * runs]);
      into[size_t(host)] = received[size_t(host)].get();
    }
    partials[size_t(host)] = into[size_t(host)];
    for (size_t s = 0; s < segmentCount; ++s)
      phases.postBorrowingReceive(posted[s], phases.leaderOf(host),
                                  into[size_t(host)] + segments[s] * instanceBytes,
                                  segmentCount == 1
                                      ? reduction.bytes() * int64_t(runs)
                                      : (segments[s + 1] - segments[s]) * instanceBytes);
  }
  for (size_t s = 0; s < segmentCount; ++s) {
    phases.waitAll(posted[s]);
    int64_t offset = segments[s] * instanceBytes;
    std::vector<const uint8_t*> at;
    for (const uint8_t* of : partials) at.push_back(of + offset);
    // A lent message holds its host's runs as `into` would: one after the
    // other, reduction.bytes() apart.
    for (size_t k = 0; k < postedFrom.size(); ++k)
      if (posted[s][k]->lender) at[size_t(postedFrom[k])] = lentData(*posted[s][k]);
    foldRunsInto(phases, at, reduction.bytes(), reduction.over(segments[s + 1] - segments[s]),
                 out + offset);
    for (const std::shared_ptr<Request>& receive : posted[s])
      if (receive->lender) phases.returnLent(*receive);
  }
  if (!result.empty()) unpackTyped(result.data(), atRoot.recv, *atRoot.recvType, atRoot.recvCount);
  meeting.release();
  return abi::kSuccess;
}

int allreduceAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                         const TypeLayout& type, int64_t count, int op, int typeHandle) {
  Reduction reduction{call, comm, op, typeHandle, type, count};
  HostPhases phases(call, comm, CollectiveKind::Allreduce);
  const std::vector<int>& members = phases.membersOf(phases.myHost());
  HostMeeting meeting(call, phases.communicator(), members, CollectiveKind::Allreduce,
                      [&](Contribution& slot) { postReduction(slot, send, recv, type, count); });
  if (!phases.leads()) {
    meeting.awaitRelease();
    return abi::kSuccess;
  }
  meeting.awaitMembers();
  std::vector<Bytes> packedAside;
  std::unique_ptr<uint8_t[]> folded;
  const uint8_t* partial = hostPartial(call, phases, meeting, reduction, packedAside, folded);
  if (splitsAllreduce(phases, reduction)) {
    allreduceBySegments(phases, meeting, reduction, partial);
    meeting.release();
    return abi::kSuccess;
  }
  if (foldsAtOneLeader(phases)) {
    allreduceAtOneLeader(phases, meeting, reduction, partial);
    meeting.release();
    return abi::kSuccess;
  }
  // The leaders exchange their hosts' partial results, sent from where they
  // are.
  HostPhases::Posted posted;
  ReceivedPartials partials = postPartialReceives(phases, reduction, partial, posted);
  int64_t myBytes = reduction.bytes() * int64_t(phases.runsOf(phases.myHost()).size());
  for (int host = 0; host < phases.hosts(); ++host)
    if (host != phases.myHost()) phases.postSend(posted, phases.leaderOf(host), partial, myBytes);
  phases.waitAll(posted);
  Bytes result(size_t(reduction.bytes()));
  foldRunsInto(phases, partials.ofHost, reduction.bytes(), reduction, result.data());
  for (size_t i = 0; i < members.size(); ++i) {
    const Contribution& slot = meeting.slotOf(i);
    unpackTyped(result.data(), slot.recv, *slot.recvType, slot.recvCount);
  }
  meeting.release();
  return abi::kSuccess;
}

int gatherAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                      int64_t sendCount, uint8_t* recv, const TypeLayout* recvType,
                      int64_t recvCount, int root) {
  HostPhases phases(call, comm, CollectiveKind::Gather);
  int rootHost = phases.hostOf(root);
  Bytes mine = send ? pack(send, *sendType, sendCount)
                    : pack(recv + int64_t(root) * recvCount * recvType->extent(), *recvType,
                           recvCount);
  int64_t block = int64_t(mine.size());
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    if (phases.me() == root)
      unpackTyped(phases.receive(phases.myLeader(), block * phases.size()).data(), recv,
                  *recvType, recvCount * phases.size());
    return abi::kSuccess;
  }
  Bytes bundle = gatherOnHost(phases, std::move(mine));
  if (phases.myHost() != rootHost) {
    phases.send(phases.leaderOf(rootHost), bundle);
    return abi::kSuccess;
  }
  std::vector<Bytes> bundles(size_t(phases.hosts()));
  for (int host = 0; host < phases.hosts(); ++host)
    bundles[size_t(host)] =
        host == rootHost ? std::move(bundle)
                         : phases.receive(phases.leaderOf(host),
                                          block * int64_t(phases.membersOf(host).size()));
  Bytes all = inRankOrder(phases, bundles, [&](int) { return block; });
  if (phases.me() == root)
    unpackTyped(all.data(), recv, *recvType, recvCount * phases.size());
  else
    phases.send(root, all);
  return abi::kSuccess;
}

int gathervAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                       int64_t sendCount, const MemberBlocks& recv, int root) {
  HostPhases phases(call, comm, CollectiveKind::Gatherv);
  int me = phases.me(), rootHost = phases.hostOf(root);
  if (me == root && anyNegative(recv.counts, phases.size()))
    return call.fail(comm, abi::kErrCount, "negative receive count");
  // In place, the root's block is already where it belongs.
  Bytes mine = send ? pack(send, *sendType, sendCount) : Bytes();
  std::vector<Bytes> blocks;
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    if (me != root) return abi::kSuccess;
    blocks = decodeBlocks(call, phases.receiveAny(phases.myLeader()), size_t(phases.size()));
  } else {
    const std::vector<int>& members = phases.membersOf(phases.myHost());
    std::vector<Bytes> here{std::move(mine)};
    for (size_t i = 1; i < members.size(); ++i) here.push_back(phases.receiveAny(members[i]));
    if (phases.myHost() != rootHost) {
      phases.send(phases.leaderOf(rootHost), encodeBlocks(here));
      return abi::kSuccess;
    }
    blocks.resize(size_t(phases.size()));
    for (int host = 0; host < phases.hosts(); ++host) {
      const std::vector<int>& theirs = phases.membersOf(host);
      std::vector<Bytes> part = host == rootHost
                                    ? std::move(here)
                                    : decodeBlocks(call, phases.receiveAny(phases.leaderOf(host)),
                                                   theirs.size());
      for (size_t i = 0; i < theirs.size(); ++i) blocks[size_t(theirs[i])] = std::move(part[i]);
    }
    if (me != root) {
      phases.send(root, encodeBlocks(blocks));
      return abi::kSuccess;
    }
  }
  int result = abi::kSuccess;
  for (int i = 0; i < phases.size() && result == abi::kSuccess; ++i)
    if (i != root || send)
      result = unpackBlock(call, comm, blocks[size_t(i)], recv.block(i), *recv.type,
                           recv.counts[i]);
  return result;
}

int allgatherAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                         const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                         const TypeLayout& recvType, int64_t recvCount) {
  HostPhases phases(call, comm, CollectiveKind::Allgather);
  Bytes mine = send ? pack(send, *sendType, sendCount)
                    : pack(recv + int64_t(phases.me()) * recvCount * recvType.extent(), recvType,
                           recvCount);
  int64_t block = int64_t(mine.size());
  int64_t total = block * phases.size();
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    unpackTyped(phases.receive(phases.myLeader(), total).data(), recv, recvType,
                recvCount * phases.size());
    return abi::kSuccess;
  }
  Bytes all = inRankOrder(
      phases,
      exchangeWithLeaders(phases, gatherOnHost(phases, std::move(mine)),
                          [&](int host) { return block * int64_t(phases.membersOf(host).size()); }),
      [&](int) { return block; });
  shareOnHost(phases, all);
  unpackTyped(all.data(), recv, recvType, recvCount * phases.size());
  return abi::kSuccess;
}

int allgathervAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                          const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                          const TypeLayout& recvType, const int32_t* recvCounts,
                          const int32_t* displs) {
  HostPhases phases(call, comm, CollectiveKind::Allgatherv);
  int me = phases.me();
  // Every member knows every member's count, so every block's packed size.
  std::vector<int64_t> start(size_t(phases.size()) + 1, 0);
  for (int i = 0; i < phases.size(); ++i) {
    if (recvCounts[i] < 0) return call.fail(comm, abi::kErrCount, "negative receive count");
    start[size_t(i) + 1] = start[size_t(i)] + recvCounts[i] * recvType.size;
  }
  auto blockOf = [&](int member) {
    return recv + int64_t(displs[member]) * recvType.extent();
  };
  Bytes mine = send ? pack(send, *sendType, sendCount) : pack(blockOf(me), recvType, recvCounts[me]);
  if (int64_t(mine.size()) != start[size_t(me) + 1] - start[size_t(me)])
    return call.fail(comm, abi::kErrTruncate,
                     "the data sent is not the size this rank's receive count gives it");
  Bytes all;
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    all = phases.receive(phases.myLeader(), start.back());
  } else {
    const std::vector<int>& members = phases.membersOf(phases.myHost());
    Bytes bundle = std::move(mine);
    for (size_t i = 1; i < members.size(); ++i) {
      Bytes block = phases.receive(members[i], start[size_t(members[i]) + 1] -
                                                   start[size_t(members[i])]);
      bundle.insert(bundle.end(), block.begin(), block.end());
    }
    auto bytesOf = [&](int member) {
      return start[size_t(member) + 1] - start[size_t(member)];
    };
    all = inRankOrder(phases,
                      exchangeWithLeaders(phases, std::move(bundle),
                                          [&](int host) {
                                            int64_t bytes = 0;
                                            for (int member : phases.membersOf(host))
                                              bytes += bytesOf(member);
                                            return bytes;
                                          }),
                      bytesOf);
    shareOnHost(phases, all);
  }
  for (int i = 0; i < phases.size(); ++i)
    if (i != me || send) unpackTyped(all.data() + start[size_t(i)], blockOf(i), recvType, recvCounts[i]);
  return abi::kSuccess;
}

int scatterAcrossHosts(HostCall& call, int comm, const uint8_t* send, const TypeLayout* sendType,
                       int64_t sendCount, uint8_t* recv, const TypeLayout* recvType,
                       int64_t recvCount, int root) {
  HostPhases phases(call, comm, CollectiveKind::Scatter);
  int rootHost = phases.hostOf(root);
  int64_t block = phases.me() == root ? sendType->size * sendCount : recvType->size * recvCount;
  auto keepMine = [&](const uint8_t* packedBlock) {
    if (recv) unpackTyped(packedBlock, recv, *recvType, recvCount);
  };
  Bytes all;
  if (phases.me() == root) {
    all = pack(send, *sendType, sendCount * phases.size());
    keepMine(all.data() + root * block);
    if (!phases.leads()) {
      phases.send(phases.myLeader(), all);
      return abi::kSuccess;
    }
  }
  if (!phases.leads()) {
    keepMine(phases.receive(phases.myLeader(), block).data());
    return abi::kSuccess;
  }
  const std::vector<int>& mine = phases.membersOf(phases.myHost());
  Bytes bundle;  // this host's members' blocks, in rank order
  if (phases.myHost() == rootHost) {
    if (phases.me() != root) all = phases.receive(root, block * phases.size());
    std::vector<Bytes> bundles(size_t(phases.hosts()));
    HostPhases::Posted posted;
    for (int host = 0; host < phases.hosts(); ++host) {
      if (host == rootHost) continue;
      bundles[size_t(host)] = blocksOf(all, phases.membersOf(host), block);
      phases.postSend(posted, phases.leaderOf(host), bundles[size_t(host)]);
    }
    phases.waitAll(posted);
    bundle = blocksOf(all, mine, block);
  } else {
    bundle = phases.receive(phases.leaderOf(rootHost), block * int64_t(mine.size()));
  }
  for (size_t i = 1; i < mine.size(); ++i)
    if (mine[i] != root) phases.send(mine[i], bundle.data() + i * block, block);
  if (phases.me() != root) keepMine(bundle.data());
  return abi::kSuccess;
}

int scattervAcrossHosts(HostCall& call, int comm, const MemberBlocks& send, uint8_t* recv,
                        const TypeLayout* recvType, int64_t recvCount, int root) {
  HostPhases phases(call, comm, CollectiveKind::Scatterv);
  int me = phases.me(), rootHost = phases.hostOf(root);
  if (me == root && anyNegative(send.counts, phases.size()))
    return call.fail(comm, abi::kErrCount, "negative send count");
  // A null `recv` is the root's MPI_IN_PLACE: its block stays where it is.
  auto keep = [&](const Bytes& block) {
    return recv ? unpackBlock(call, comm, block, recv, *recvType, recvCount) : abi::kSuccess;
  };
  std::vector<Bytes> blocks;  // by member: the root's, or those of this host's
  if (me == root) {
    blocks = packBlocks(send, phases.size());
    if (!phases.leads()) {
      phases.send(phases.myLeader(), encodeBlocks(blocks));
      return keep(blocks[size_t(root)]);
    }
  }
  if (!phases.leads()) return keep(phases.receiveAny(phases.myLeader()));
  const std::vector<int>& mine = phases.membersOf(phases.myHost());
  std::vector<Bytes> here;
  if (phases.myHost() == rootHost) {
    if (me != root)
      blocks = decodeBlocks(call, phases.receiveAny(root), size_t(phases.size()));
    for (int host = 0; host < phases.hosts(); ++host) {
      if (host == rootHost) continue;
      std::vector<Bytes> theirs;
      for (int member : phases.membersOf(host)) theirs.push_back(std::move(blocks[size_t(member)]));
      phases.send(phases.leaderOf(host), encodeBlocks(theirs));
    }
    for (int member : mine) here.push_back(std::move(blocks[size_t(member)]));
  } else {
    here = decodeBlocks(call, phases.receiveAny(phases.leaderOf(rootHost)), mine.size());
  }
  for (size_t i = 1; i < mine.size(); ++i)
    if (mine[i] != root) phases.send(mine[i], here[i]);
  return keep(here[0]);
}

int alltoallAcrossHosts(HostCall& call, int comm, const uint8_t* send,
                        const TypeLayout* sendType, int64_t sendCount, uint8_t* recv,
                        const TypeLayout& recvType, int64_t recvCount) {
  HostPhases phases(call, comm, CollectiveKind::Alltoall);
  int size = phases.size();
  const std::vector<int>& mine = phases.membersOf(phases.myHost());
  HostMeeting meeting(call, phases.communicator(), mine, CollectiveKind::Alltoall,
                      [&](Contribution& slot) {
                        slot.send = send;
                        slot.sendType = sendType;
                        slot.sendCount = sendCount;
                        slot.recv = recv;
                        slot.recvType = &recvType;
                        slot.recvCount = recvCount;
                      });
  if (!phases.leads()) {
    meeting.awaitRelease();
    return abi::kSuccess;
  }
  meeting.awaitMembers();
  int64_t block = recvType.size * recvCount;
  // Where each member of this host sends from: its block for member m is
  // `count` instances of `type` at base + m * count extents. A member that
  // sends in place has its blocks packed aside first, since its receive
  // buffer is written before the others have all been read.
  struct Source {
    const uint8_t* base;
    const TypeLayout* type;
    int64_t count;
    const uint8_t* blockFor(int member) const { return base + member * count * type->extent(); }
  };
  std::vector<Source> sources;
  std::vector<Bytes> packedAside(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    const Contribution& slot = meeting.slotOf(i);
    requireBlockBytes(call, slot.recvType->size * slot.recvCount, block);
    if (slot.send) {
      requireBlockBytes(call, slot.sendType->size * slot.sendCount, block);
      sources.push_back(Source{slot.send, slot.sendType, slot.sendCount});
    } else {
      packedAside[i] = pack(slot.recv, *slot.recvType, slot.recvCount * size);
      sources.push_back(Source{packedAside[i].data(), &*byteLayout(), block});
    }
  }
  // From each other host one bundle, received as it comes while this
  // host's go out: for each member there, its blocks for the members here.
  // To each other host the same, packed straight from the members'
  // buffers. Where a bundle is already laid out in a member's buffer (this
  // host has one member, the other host's members are consecutive ranks,
  // and the datatype is contiguous), it goes from there or lands there, with
  // no copy of its own; otherwise its buffer is not zero-filled first.
  bool alone = mine.size() == 1;
  const Contribution& only = meeting.slotOf(0);
  auto inPlace = [&](int host, const TypeLayout& type, int64_t count) {
    return alone && phases.runsOf(host).size() == 1 && type.isContiguous() &&
           type.size * count == block;
  };
  // Where every member's receive type is contiguous, a bundle from another
  // host is received straight into the members' buffers through a layout of
  // its blocks' places, relative to the first one: all of them lie in this
  // process, whose leader writes its members' buffers in any case.
  bool contiguousHere = true;
  for (size_t j = 0; j < mine.size(); ++j)
    contiguousHere = contiguousHere && meeting.slotOf(j).recvType->isContiguous();
  auto placeOf = [&](int source, size_t j) {
    const Contribution& to = meeting.slotOf(j);
    return to.recv + to.recvType->lb + int64_t(source) * to.recvCount * to.recvType->extent();
  };
  HostPhases::Posted exchange;
  std::vector<std::unique_ptr<uint8_t[]>> incoming(size_t(phases.hosts())),
      outgoing(size_t(phases.hosts()));
  std::vector<const uint8_t*> bundles(size_t(phases.hosts()));
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    int64_t bytes = block * int64_t(phases.membersOf(host).size()) * int64_t(mine.size());
    uint8_t* into;
    if (inPlace(host, *only.recvType, only.recvCount)) {
      into = only.recv + only.recvType->lb +
             int64_t(phases.membersOf(host)[0]) * only.recvCount * only.recvType->extent();
    } else if (contiguousHere && block > 0) {
      std::vector<const uint8_t*> places;
      for (int source : phases.membersOf(host))
        for (size_t j = 0; j < mine.size(); ++j) places.push_back(placeOf(source, j));
      phases.postReceive(exchange, phases.leaderOf(host), placeOf(phases.membersOf(host)[0], 0),
                         blockPlaces(places, block));
      continue;
    } else {
      incoming[size_t(host)].reset(new uint8_t[size_t(bytes)]);
      into = incoming[size_t(host)].get();
    }
    bundles[size_t(host)] = into;
    phases.postReceive(exchange, phases.leaderOf(host), into, bytes);
  }
  // Where every member's send type is contiguous, a bundle goes gathered
  // from the blocks in the members' buffers, which the link reads in
  // place, rather than packed: the members stay in the meeting until it is
  // written.
  bool contiguousSources = true;
  for (const Source& source : sources) contiguousSources = contiguousSources && source.type->isContiguous();
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    const std::vector<int>& theirs = phases.membersOf(host);
    int64_t bytes = block * int64_t(theirs.size()) * int64_t(mine.size());
    if (inPlace(host, *sources[0].type, sources[0].count)) {
      phases.postSend(exchange, phases.leaderOf(host),
                      sources[0].blockFor(theirs[0]) + sources[0].type->lb, bytes);
      continue;
    }
    if (contiguousSources && block > 0) {
      std::vector<const uint8_t*> places;
      for (const Source& source : sources)
        for (int member : theirs) places.push_back(source.blockFor(member) + source.type->lb);
      phases.postSend(exchange, phases.leaderOf(host), places.front(), blockPlaces(places, block));
      continue;
    }
    outgoing[size_t(host)].reset(new uint8_t[size_t(bytes)]);
    uint8_t* out = outgoing[size_t(host)].get();
    for (const Source& source : sources)
      for (int member : theirs) {
        packTyped(source.blockFor(member), *source.type, source.count, out);
        out += block;
      }
    phases.postSend(exchange, phases.leaderOf(host), outgoing[size_t(host)].get(), bytes);
  }
  // The blocks between members of this host go while the bundles travel.
  for (size_t j = 0; j < mine.size(); ++j) {
    const Contribution& to = meeting.slotOf(j);
    int64_t stride = to.recvCount * to.recvType->extent();
    for (size_t i = 0; i < mine.size(); ++i)
      copyTyped(sources[i].blockFor(mine[j]), *sources[i].type, sources[i].count,
                to.recv + mine[i] * stride, *to.recvType, to.recvCount, block);
  }
  phases.waitAll(exchange);
  for (size_t j = 0; j < mine.size(); ++j) {
    const Contribution& to = meeting.slotOf(j);
    int64_t stride = to.recvCount * to.recvType->extent();
    for (int source = 0; source < size; ++source) {
      int host = phases.hostOf(source);
      if (host == phases.myHost() || !incoming[size_t(host)]) continue;
      int64_t sender = phases.indexOnHost(source);
      unpackTyped(bundles[size_t(host)] + (sender * int64_t(mine.size()) + int64_t(j)) * block,
                  to.recv + source * stride, *to.recvType, to.recvCount);
    }
  }
  meeting.release();
  return abi::kSuccess;
}

int alltoallvAcrossHosts(HostCall& call, int comm, const MemberBlocks& send,
                         const MemberBlocks& recv) {
  HostPhases phases(call, comm, CollectiveKind::Alltoallv);
  int size = phases.size();
  if (anyNegative(send.counts, size) || anyNegative(recv.counts, size))
    return call.fail(comm, abi::kErrCount, "negative count");
  // Packed before anything arrives: in place, `send` describes `recv`.
  std::vector<Bytes> outgoing = packBlocks(send, size);
  std::vector<Bytes> incoming;  // by source member
  if (!phases.leads()) {
    phases.send(phases.myLeader(), encodeBlocks(outgoing));
    incoming = decodeBlocks(call, phases.receiveAny(phases.myLeader()), size_t(size));
  } else {
    const std::vector<int>& mine = phases.membersOf(phases.myHost());
    // What each member of this host sends, by destination.
    std::vector<std::vector<Bytes>> sent(mine.size());
    sent[0] = std::move(outgoing);
    for (size_t i = 1; i < mine.size(); ++i)
      sent[i] = decodeBlocks(call, phases.receiveAny(mine[i]), size_t(size));
    // To each other host one list: for each member here, its blocks for
    // each member there.
    for (int host = 0; host < phases.hosts(); ++host) {
      if (host == phases.myHost()) continue;
      std::vector<Bytes> bundle;
      for (size_t i = 0; i < mine.size(); ++i)
        for (int member : phases.membersOf(host))
          bundle.push_back(std::move(sent[i][size_t(member)]));
      phases.send(phases.leaderOf(host), encodeBlocks(bundle));
    }
    std::vector<std::vector<Bytes>> bundles(size_t(phases.hosts()));
    for (int host = 0; host < phases.hosts(); ++host)
      if (host != phases.myHost())
        bundles[size_t(host)] =
            decodeBlocks(call, phases.receiveAny(phases.leaderOf(host)),
                         phases.membersOf(host).size() * mine.size());
    // Member j of this host receives, from each member in rank order, the
    // block that member sent it.
    for (size_t j = 0; j < mine.size(); ++j) {
      std::vector<Bytes> theirs(static_cast<size_t>(size));
      for (int source = 0; source < size; ++source) {
        int host = phases.hostOf(source);
        size_t sender = size_t(phases.indexOnHost(source));
        theirs[size_t(source)] =
            host == phases.myHost()
                ? std::move(sent[sender][size_t(mine[j])])
                : std::move(bundles[size_t(host)][sender * mine.size() + j]);
      }
      if (j == 0)
        incoming = std::move(theirs);
      else
        phases.send(mine[j], encodeBlocks(theirs));
    }
  }
  int result = abi::kSuccess;
  for (int i = 0; i < size && result == abi::kSuccess; ++i)
    result = unpackBlock(call, comm, incoming[size_t(i)], recv.block(i), *recv.type,
                         recv.counts[i]);
  return result;
}

int reduceScatterAcrossHosts(HostCall& call, int comm, CollectiveKind kind, const uint8_t* send,
                             uint8_t* recv, const TypeLayout& type,
                             const std::vector<int64_t>& counts, int op, int typeHandle) {
  HostPhases phases(call, comm, kind);
  std::vector<int64_t> start(counts.size() + 1, 0);  // in instances of `type`
  for (size_t i = 0; i < counts.size(); ++i) start[i + 1] = start[i] + counts[i];
  int me = phases.me();
  Bytes mine = pack(send, type, start.back());
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    unpackTyped(phases.receive(phases.myLeader(), counts[size_t(me)] * type.size).data(), recv,
                type, counts[size_t(me)]);
    return abi::kSuccess;
  }
  // Each other host gets only its members' blocks of this host's run
  // results: for each of its members, the block of each run.
  Reduction whole{call, comm, op, typeHandle, type, start.back()};
  int64_t wholeBytes = start.back() * type.size;
  Bytes partial = reduceOnHost(phases, std::move(mine), whole);
  auto pieceOf = [&](size_t run, int member) {
    return partial.data() + int64_t(run) * wholeBytes + start[size_t(member)] * type.size;
  };
  const std::vector<int>& members = phases.membersOf(phases.myHost());
  size_t myRuns = phases.runsOf(phases.myHost()).size();
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    Bytes bundle;
    for (int member : phases.membersOf(host))
      for (size_t run = 0; run < myRuns; ++run)
        bundle.insert(bundle.end(), pieceOf(run, member),
                      pieceOf(run, member) + counts[size_t(member)] * type.size);
    phases.send(phases.leaderOf(host), bundle);
  }
  int64_t myBytes = 0;  // of all this host's members' blocks
  for (int member : members) myBytes += counts[size_t(member)] * type.size;
  std::vector<Bytes> bundles(size_t(phases.hosts()));
  for (int host = 0; host < phases.hosts(); ++host)
    if (host != phases.myHost())
      bundles[size_t(host)] = phases.receive(
          phases.leaderOf(host), myBytes * int64_t(phases.runsOf(host).size()));
  int64_t before = 0;  // bytes of the blocks of this host's members before this one
  for (int member : members) {
    int64_t bytes = counts[size_t(member)] * type.size;
    std::vector<std::pair<int, Bytes>> pieces;  // (first rank of the run, its block)
    for (int host = 0; host < phases.hosts(); ++host) {
      const std::vector<HostPhases::Run>& runs = phases.runsOf(host);
      for (size_t run = 0; run < runs.size(); ++run) {
        const uint8_t* at = host == phases.myHost()
                                ? pieceOf(run, member)
                                : bundles[size_t(host)].data() +
                                      before * int64_t(runs.size()) + int64_t(run) * bytes;
        pieces.emplace_back(phases.firstOf(host, runs[run]), Bytes(at, at + bytes));
      }
    }
    before += bytes;
    std::sort(pieces.begin(), pieces.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Bytes> operands;
    for (auto& piece : pieces) operands.push_back(std::move(piece.second));
    Bytes result = whole.over(counts[size_t(member)]).fold(operands);
    if (member == me)
      unpackTyped(result.data(), recv, type, counts[size_t(me)]);
    else
      phases.send(member, result);
  }
  return abi::kSuccess;
}

int scanAcrossHosts(HostCall& call, int comm, const uint8_t* send, uint8_t* recv,
                    const TypeLayout& type, int64_t count, int op, int typeHandle,
                    bool exclusive) {
  Reduction reduction{call, comm, op, typeHandle, type, count};
  HostPhases phases(call, comm, exclusive ? CollectiveKind::Exscan : CollectiveKind::Scan);
  int64_t bytes = type.size * count;
  Bytes mine = pack(send, type, count);
  if (!phases.leads()) {
    phases.send(phases.myLeader(), mine);
    unpackTyped(phases.receive(phases.myLeader(), bytes).data(), recv, type, count);
    return abi::kSuccess;
  }
  const std::vector<int>& members = phases.membersOf(phases.myHost());
  std::vector<Bytes> operands;
  operands.push_back(std::move(mine));
  for (size_t i = 1; i < members.size(); ++i) operands.push_back(phases.receive(members[i], bytes));
  // Each run's total goes to the hosts with a member after its start
  // only: they are the ones whose prefixes include it.
  const std::vector<HostPhases::Run>& myRuns = phases.runsOf(phases.myHost());
  std::vector<Bytes> totals;
  for (const HostPhases::Run& run : myRuns) {
    std::vector<Bytes> inRun(operands.begin() + ptrdiff_t(run.begin),
                             operands.begin() + ptrdiff_t(run.end));
    totals.push_back(reduction.fold(inRun));
  }
  // How many runs of `from` start before the last member of `to`.
  auto runsBefore = [&](int from, int to) {
    size_t number = 0;
    for (const HostPhases::Run& run : phases.runsOf(from))
      number += phases.firstOf(from, run) < phases.membersOf(to).back();
    return number;
  };
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    size_t number = runsBefore(phases.myHost(), host);
    if (number == 0) continue;
    Bytes message;
    for (size_t run = 0; run < number; ++run)
      message.insert(message.end(), totals[run].begin(), totals[run].end());
    phases.send(phases.leaderOf(host), message);
  }
  // What makes this host's prefixes, by first rank: the other hosts' runs
  // before its last member (index -1), and its own members one by one.
  struct Item {
    int first;
    int member;  // index in members, or -1
    Bytes data;
  };
  std::vector<Item> items;
  for (int host = 0; host < phases.hosts(); ++host) {
    if (host == phases.myHost()) continue;
    size_t number = runsBefore(host, phases.myHost());
    if (number == 0) continue;
    Bytes message = phases.receive(phases.leaderOf(host), bytes * int64_t(number));
    for (size_t run = 0; run < number; ++run)
      items.push_back(Item{phases.firstOf(host, phases.runsOf(host)[run]), -1,
                           Bytes(message.begin() + int64_t(run) * bytes,
                                 message.begin() + int64_t(run + 1) * bytes)});
  }
  for (size_t i = 0; i < members.size(); ++i) items.push_back(Item{members[i], int(i), {}});
  std::sort(items.begin(), items.end(),
            [](const Item& a, const Item& b) { return a.first < b.first; });
  // The running prefix, accumulated left to right as OpenMPI's linear scan
  // does: prefix = prefix op next.
  std::optional<Bytes> prefix;
  auto append = [&](Bytes next) {
    if (prefix) reduction.combine(prefix->data(), next.data());
    prefix = std::move(next);
  };
  for (Item& item : items) {
    if (item.member < 0) {
      append(std::move(item.data));
      continue;
    }
    size_t i = size_t(item.member);
    if (!exclusive) append(operands[i]);
    // Exclusive, rank 0 alone has no prefix; its receive buffer is left
    // as it is, as on one host.
    if (prefix) {
      if (i == 0)
        unpackTyped(prefix->data(), recv, type, count);
      else
        phases.send(members[i], *prefix);
    }
    if (exclusive) append(operands[i]);
  }
  return abi::kSuccess;
}

int splitAcrossHosts(HostCall& call, int comm, int color, int key,
                     std::vector<SplitChoice>& choices, std::vector<uint32_t>& contexts) {
  HostPhases phases(call, comm, CollectiveKind::CommSplit);
  int64_t block = int64_t(sizeof(SplitChoice));
  SplitChoice choice{color, key};
  Bytes mine(reinterpret_cast<const uint8_t*>(&choice),
             reinterpret_cast<const uint8_t*>(&choice) + block);
  Bytes all;
  if (phases.leads()) {
    all = inRankOrder(phases,
                      exchangeWithLeaders(phases, gatherOnHost(phases, std::move(mine)),
                                          [&](int host) {
                                            return block * int64_t(phases.membersOf(host).size());
                                          }),
                      [&](int) { return block; });
    shareOnHost(phases, all);
  } else {
    phases.send(phases.myLeader(), mine);
    all = phases.receive(phases.myLeader(), block * phases.size());
  }
  choices.resize(size_t(phases.size()));
  std::memcpy(choices.data(), all.data(), all.size());
  std::vector<int> colors;
  for (const SplitChoice& each : choices)
    if (each.color != abi::kUndefined) colors.push_back(each.color);
  std::sort(colors.begin(), colors.end());
  colors.erase(std::unique(colors.begin(), colors.end()), colors.end());
  contexts.assign(colors.size(), 0);
  if (colors.empty()) return abi::kSuccess;
  // The host of rank 0 reserves the contexts and hands them out; all ones
  // say that it had none left.
  int64_t bytes = int64_t(colors.size() * sizeof(uint32_t));
  Bytes reserved(size_t(bytes), 0xff);
  int firstHost = phases.hostOf(0);
  if (!phases.leads()) {
    reserved = phases.receive(phases.myLeader(), bytes);
  } else {
    if (phases.myHost() == firstHost) {
      if (std::optional<uint32_t> first = call.world().reserveContexts(uint32_t(colors.size())))
        for (size_t i = 0; i < colors.size(); ++i) {
          uint32_t context = *first + uint32_t(i);
          std::memcpy(reserved.data() + i * sizeof(uint32_t), &context, sizeof(context));
        }
      for (int host = 0; host < phases.hosts(); ++host)
        if (host != firstHost) phases.send(phases.leaderOf(host), reserved);
    } else {
      reserved = phases.receive(phases.leaderOf(firstHost), bytes);
    }
    shareOnHost(phases, reserved);
  }
  std::memcpy(contexts.data(), reserved.data(), reserved.size());
  if (contexts[0] == UINT32_MAX)
    return call.fail(comm, abi::kErrComm,
                     "the host of rank 0 has no communicator contexts left for " +
                         std::string(call.name));
  return abi::kSuccess;
}

void sendGroupContext(HostCall& call, int comm, const std::vector<int>& groupWorldRanks, int tag,
                      uint32_t context) {
  Communicator& parent = *call.rank.comm(comm)->comm;
  for (int worldRank : groupWorldRanks)
    if (call.world().isRemote(worldRank))
      runMessage(call, parent, Request::Kind::Send, parent.rankOfWorld[worldRank],
                 reinterpret_cast<uint8_t*>(&context), sizeof(context),
                 parent.context | kGroupCreationContextBits, tag);
}

uint32_t receiveGroupContext(HostCall& call, int comm, int firstWorldRank, int tag) {
  Communicator& parent = *call.rank.comm(comm)->comm;
  uint32_t context = 0;
  runMessage(call, parent, Request::Kind::Recv, parent.rankOfWorld[firstWorldRank],
             reinterpret_cast<uint8_t*>(&context), sizeof(context),
             parent.context | kGroupCreationContextBits, tag);
  return context;
}

std::string crossHostMessageReport() {
  std::string report;
  for (int kind = 0; kind < int(crossHostMessages.size()); ++kind) {
    uint64_t count = crossHostMessages[size_t(kind)].load();
    if (count == 0) continue;
    if (!report.empty()) report += ", ";
    report += std::string(kindName(CollectiveKind(kind))) + " " + std::to_string(count);
  }
  return report;
}

}  // namespace synergy::mpi
