//===- Intercommunicators.cpp - MPI_Intercomm_create, merge, dup, split ---===//
//
// Host functions that make and inspect intercommunicators (Intercommunicators.h
// says how one is laid out), and the MessageStep that they and the
// collectives on intercommunicators (IntercommCollectives.cpp) use.
//
// MPI_Intercomm_create is a collective of each local communicator: the two
// leaders trade their groups' world ranks on the peer communicator with the
// caller's tag, the one with the lower world rank reserving three contexts
// (the program's point-to-point messages, the collectives' and the local
// ones) and sending the first with its group; then each leader hands what
// it learned to its group in a collective of the local communicator, which
// also carries an error the leader met, so that every member returns it.
//
// Merge and dup involve both groups. Of the two local rank 0s, the one with
// the lower world rank is the agent: it reserves the new contexts and sends
// them, with its group's `high`, to every remote member and to its own
// group on the intercommunicator's hidden contexts; the other rank 0 sends
// its group's `high` to every member of the agent's group.
//
// MPI_Comm_create of an intercommunicator has each local rank 0 send its
// group's chosen members to every remote member; when both groups chose
// some, the agent reserves three contexts as for a dup, and the chosen
// members of each group make one side of the new intercommunicator.
// MPI_Comm_idup of one waits for no member: the first member of either
// group to start it makes both sides (idupIntercomm).
//
// MPI_Comm_split of an intercommunicator first has every member send its
// color and key to every member of both groups, so that all know which
// colors both groups chose; the agent then reserves three contexts for
// each, in ascending order of color.
//
// Every member of a side (or, for a merge, of both groups) on one host must
// end up with the same Communicator object, since the collectives of an
// intracommunicator meet in its slots: the first member to arrive makes it
// and leaves it in a table keyed by its context, where the others of that
// host pick it up.
//
// Across hosts everything above is point-to-point messages already, except
// two steps: the local leader of MPI_Intercomm_create hands its findings to
// a group spanning hosts in a broadcast (shareFindingsAcrossHosts), and
// MPI_Comm_idup of an intercommunicator spanning hosts, whose first member
// cannot make the other hosts' sides, is a nonblocking collective that
// carries the agent's contexts (idupIntercommAcrossHosts).
//
//===----------------------------------------------------------------------===//
#include "mpi/Intercommunicators.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "mpi/CollectiveEngine.h"
#include "mpi/CommunicatorAttributes.h"
#include "mpi/HostCollectives.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"
#include "mpi/RequestPool.h"
#include "util/FunctionRef.h"

using namespace synergy::mpi;
using u32 = uint32_t;

MessageStep::MessageStep(HostCall& call, std::shared_ptr<Communicator> comm, int commHandle)
    : call_(call), comm_(std::move(comm)), commHandle_(commHandle) {}

void MessageStep::send(uint32_t context, int senderRank, int to, int tag, const uint8_t* data,
                       int64_t bytes) {
  auto request = newRequest();
  request->kind = Request::Kind::Send;
  request->owner = call_.rank.worldRank;
  request->buffer = const_cast<uint8_t*>(data);
  setType(*request, predefinedLayout(abi::kTypeByte));
  request->count = bytes;
  request->bytes = bytes;
  request->context = context;
  request->comm = comm_.get();
  request->freeableComm = comm_;
  request->commHandle = commHandle_;
  request->peer = comm_->rankOfWorld[to];
  request->tag = tag;
  request->senderRank = senderRank;
  sends_.push_back({request, to});
}

void MessageStep::receive(uint32_t context, int from, int tag, uint8_t* buffer, int64_t capacity,
                          int64_t* received) {
  auto request = newRequest();
  request->kind = Request::Kind::Recv;
  request->owner = call_.rank.worldRank;
  request->buffer = buffer;
  setType(*request, predefinedLayout(abi::kTypeByte));
  request->count = capacity;
  request->bytes = capacity;
  request->context = context;
  request->comm = comm_.get();
  request->freeableComm = comm_;
  request->commHandle = commHandle_;
  request->peer = from;
  request->tag = tag;
  receives_.push_back({request, received});
}

int MessageStep::finish() {
  World& world = call_.world();
  for (const Expected& expected : receives_) world.startRecv(expected.request);
  for (const Outgoing& send : sends_) world.startSend(send.request, send.to);
  for (const Outgoing& send : sends_)
    if (!world.waitFor(call_.rank.worldRank, *send.request,
                       WaitInfo{call_.name, send.request->peer, send.request->tag, comm_.get()}))
      call_.leaveAbortedJob();
  int error = abi::kSuccess;
  std::string reason;
  for (const Expected& expected : receives_) {
    const Request& request = *expected.request;
    if (!world.waitFor(call_.rank.worldRank, request,
                       WaitInfo{call_.name, request.peer, request.tag, comm_.get()}))
      call_.leaveAbortedJob();
    if (expected.received && request.statusError == abi::kSuccess) {
      *expected.received = request.statusBytes;
    } else if (!error && (request.statusError || request.statusBytes != request.bytes)) {
      error = abi::kErrTruncate;
      reason = "rank " + std::to_string(request.peer) + " sent " +
               (request.statusError ? "more" : std::to_string(request.statusBytes)) +
               " bytes where " + std::to_string(request.bytes) +
               " were expected (mismatched counts or datatypes)";
    }
  }
  return error ? call_.fail(commHandle_, error, reason) : int(abi::kSuccess);
}

namespace synergy::mpi {

// Each host makes its own Communicator objects for its members of a new
// communicator, with the same contents.
int membersHere(const World& world, const std::vector<int>& worldRanks) {
  return int(std::count_if(worldRanks.begin(), worldRanks.end(),
                           [&](int worldRank) { return !world.isRemote(worldRank); }));
}

bool intercommSpansHosts(const World& world, const Communicator& comm) {
  return world.spansHosts(comm) ||
         membersHere(world, comm.inter->localWorldRanks) != int(comm.inter->localWorldRanks.size());
}

}  // namespace synergy::mpi

namespace {

constexpr int kInternalTag = 0;

// Where the members that must share one new Communicator pick it up: by
// world, context and side (a side's local leader, or -1 for a merged
// communicator), until all `members` have taken it.
struct Meeting {
  std::shared_ptr<Communicator> comm;
  int taken = 0;
};
std::mutex meetingsMutex;
std::map<std::tuple<const World*, uint32_t, int>, Meeting> meetings;

// The two sides of an intercommunicator's duplicate by MPI_Comm_idup,
// by world, the parent's context and the idup's sequence number among the
// parent's nonblocking collectives, until every member of both groups has
// taken its side.
struct PendingDuplicate {
  bool tried = false;  // null sides after a try: no contexts were left
  std::shared_ptr<Communicator> sides[2];
  int taken = 0;
};
std::map<std::tuple<const World*, uint32_t, uint32_t>, PendingDuplicate> pendingDuplicates;

// One side of a new intercommunicator over contexts context .. context + 2.
std::shared_ptr<Communicator> makeSide(World& world, const std::vector<int>& localRanks,
                                       const std::vector<int>& remoteRanks, uint32_t context) {
  std::shared_ptr<Communicator> comm = world.makeCommunicator(remoteRanks, context);
  for (size_t i = 0; i < localRanks.size(); ++i) comm->rankOfWorld[localRanks[i]] = int(i);
  auto side = std::make_shared<IntercommSide>();
  side->localWorldRanks = localRanks;
  side->collectiveContext = context + 1;
  side->localContext = context + 2;
  comm->inter = std::move(side);
  return comm;
}


// What a local leader learned for MPI_Intercomm_create, which the other
// members read through the leader's slot in the local collective.
struct LeaderFindings {
  int error = abi::kSuccess;
  std::string reason;
  uint32_t context = 0;
  std::vector<int> remoteRanks;
};

// The leader's part of MPI_Intercomm_create: trades groups and contexts
// with the remote leader. Errors are left in `findings`, not raised, so
// that the leader still tells its group.
void meetRemoteLeader(HostCall& call, const Communicator& local, int peerHandle,
                      int remoteLeader, int tag, LeaderFindings& findings) {
  auto refuse = [&](int error, std::string reason) {
    findings.error = error;
    findings.reason = std::move(reason);
  };
  CommHandle* peer = call.rank.comm(peerHandle);
  if (!peer) return refuse(abi::kErrComm, "invalid peer communicator");
  if (peer->comm->inter)
    return refuse(abi::kErrComm, "the peer communicator is an intercommunicator");
  if (remoteLeader < 0 || remoteLeader >= peer->comm->size())
    return refuse(abi::kErrRank, "invalid remote leader " + std::to_string(remoteLeader) +
                                     " (peer communicator size " +
                                     std::to_string(peer->comm->size()) + ")");
  int remoteWorld = peer->comm->worldRanks[size_t(remoteLeader)];
  if (local.rankOfWorld[remoteWorld] >= 0)
    return refuse(abi::kErrComm, "the remote leader (world rank " + std::to_string(remoteWorld) +
                                     ") is in the local group: the groups must be disjoint");
  if (tag < 0 || tag > abi::kTagUpperBound)
    return refuse(abi::kErrTag, "invalid tag " + std::to_string(tag));
  World& world = call.world();
  bool reserves = call.rank.worldRank < remoteWorld;
  std::optional<uint32_t> reserved;
  if (reserves && !(reserved = world.reserveContexts(3)))
    return refuse(abi::kErrComm, "this host has no communicator contexts left");
  // [context or 0, member count, world ranks...]
  std::vector<int32_t> outgoing{int32_t(reserved.value_or(0)), int32_t(local.size())};
  outgoing.insert(outgoing.end(), local.worldRanks.begin(), local.worldRanks.end());
  std::vector<int32_t> incoming(size_t(world.size()) + 2);
  int64_t received = 0;
  MessageStep step(call, peer->comm, peerHandle);
  step.receive(peer->comm->context, remoteLeader, tag,
               reinterpret_cast<uint8_t*>(incoming.data()), int64_t(incoming.size()) * 4,
               &received);
  step.send(peer->comm->context, peer->comm->rankOfWorld[call.rank.worldRank], remoteWorld, tag,
            reinterpret_cast<const uint8_t*>(outgoing.data()), int64_t(outgoing.size()) * 4);
  if (int error = step.finish()) return refuse(error, "the remote leader's message did not fit");
  // The message came in on a communicator the program uses, so it is
  // checked like any input.
  int64_t count = received / 4 - 2;
  if (received % 4 || count < 1 || incoming[1] != count)
    return refuse(abi::kErrComm, "the remote leader's message is not a group (" +
                                     std::to_string(received) + " bytes)");
  findings.context = reserves ? *reserved : uint32_t(incoming[0]);
  if (!reserves && (incoming[0] <= 0 || uint32_t(incoming[0]) > UINT32_MAX - 3))
    return refuse(abi::kErrComm, "the remote leader's message names no context");
  std::vector<bool> seen(size_t(world.size()), false);
  for (int64_t i = 0; i < count; ++i) {
    int worldRank = incoming[size_t(i) + 2];
    if (worldRank < 0 || worldRank >= world.size() || seen[size_t(worldRank)])
      return refuse(abi::kErrComm, "the remote leader's group names world rank " +
                                       std::to_string(worldRank) + " twice or out of range");
    seen[size_t(worldRank)] = true;
    if (local.rankOfWorld[worldRank] >= 0)
      return refuse(abi::kErrComm, "world rank " + std::to_string(worldRank) +
                                       " is in both groups: the groups must be disjoint");
    findings.remoteRanks.push_back(worldRank);
  }
}

// The leader's findings for a local communicator whose members span
// hosts, where members share no slots: a broadcast from the leader over
// the locality-aware collectives, of a fixed size so that every member
// knows it in advance: the error, the context, the remote group's size,
// world.size() world ranks, then the reason as text.
constexpr size_t kFindingsReasonBytes = 256;

int shareFindingsAcrossHosts(HostCall& call, int localComm, int leader,
                             const LeaderFindings& mine, LeaderFindings& findings) {
  World& world = call.world();
  size_t rankBytes = size_t(world.size()) * sizeof(int32_t);
  std::vector<uint8_t> message(3 * sizeof(int32_t) + rankBytes + kFindingsReasonBytes, 0);
  auto field = [&](size_t index) { return message.data() + index * sizeof(int32_t); };
  CommHandle* local = call.rank.comm(localComm);
  bool leads = local->comm->rankOfWorld[call.rank.worldRank] == leader;
  if (leads) {
    int32_t head[3] = {mine.error, int32_t(mine.context), int32_t(mine.remoteRanks.size())};
    std::memcpy(field(0), head, sizeof head);
    std::memcpy(field(3), mine.remoteRanks.data(), mine.remoteRanks.size() * sizeof(int32_t));
    std::memcpy(field(3) + rankBytes, mine.reason.data(),
                std::min(mine.reason.size(), kFindingsReasonBytes - 1));
  }
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  if (int error = bcastAcrossHosts(call, localComm, message.data(), *bytes,
                                   int64_t(message.size()), leader))
    return error;
  if (leads) {
    findings = mine;
    return abi::kSuccess;
  }
  int32_t head[3];
  std::memcpy(head, field(0), sizeof head);
  // The leader's host sent this: its fields are checked like any input.
  if (head[2] < 0 || head[2] > world.size())
    return call.fail(localComm, abi::kErrIntern,
                     "the local leader's findings name " + std::to_string(head[2]) +
                         " remote members (job size " + std::to_string(world.size()) + ")");
  findings.error = head[0];
  findings.context = uint32_t(head[1]);
  findings.remoteRanks.resize(size_t(head[2]));
  std::memcpy(findings.remoteRanks.data(), field(3), size_t(head[2]) * sizeof(int32_t));
  for (int worldRank : findings.remoteRanks)
    if (worldRank < 0 || worldRank >= world.size())
      return call.fail(localComm, abi::kErrIntern,
                       "the local leader's findings name world rank " +
                           std::to_string(worldRank));
  const char* reason = reinterpret_cast<const char*>(field(3) + rankBytes);
  findings.reason.assign(reason, strnlen(reason, kFindingsReasonBytes - 1));
  if (!findings.error && (findings.remoteRanks.empty() || findings.context == 0))
    return call.fail(localComm, abi::kErrIntern, "the local leader's findings name no group");
  return abi::kSuccess;
}

// Whether this group's local rank 0 is the agent of merge and dup.
bool agentIsLocal(const Communicator& comm) {
  return comm.inter->localWorldRanks[0] < comm.worldRanks[0];
}

// The round in which the agent hands out `count` new contexts (or 0 when
// it has none left) and each rank 0 its group's `high`; sets `context`
// and `remoteHigh`. Returns success or the raised error.
int agreeOnContexts(HostCall& call, int commHandle, uint32_t count, bool high, uint32_t& context,
                    bool& remoteHigh) {
  std::shared_ptr<Communicator> comm = call.rank.comm(commHandle)->comm;
  const IntercommSide& side = *comm->inter;
  int me = comm->rankOfWorld[call.rank.worldRank];
  bool agentHere = agentIsLocal(*comm);
  int32_t outgoing[2] = {high ? 1 : 0, 0};
  if (agentHere && me == 0) outgoing[1] = int32_t(call.world().reserveContexts(count).value_or(0));
  int32_t fromRemote[2] = {0, 0};
  int32_t fromAgent = 0;
  MessageStep step(call, comm, commHandle);
  step.receive(side.collectiveContext, 0, kInternalTag, reinterpret_cast<uint8_t*>(fromRemote),
               sizeof fromRemote);
  if (agentHere && me != 0)
    step.receive(side.localContext, 0, kInternalTag, reinterpret_cast<uint8_t*>(&fromAgent),
                 sizeof fromAgent);
  if (me == 0) {
    for (int worldRank : comm->worldRanks)
      step.send(side.collectiveContext, 0, worldRank, kInternalTag,
                reinterpret_cast<const uint8_t*>(outgoing), sizeof outgoing);
    if (agentHere)
      for (size_t i = 1; i < side.localWorldRanks.size(); ++i)
        step.send(side.localContext, 0, side.localWorldRanks[i], kInternalTag,
                  reinterpret_cast<const uint8_t*>(&outgoing[1]), sizeof outgoing[1]);
  }
  if (int error = step.finish()) return error;
  remoteHigh = fromRemote[0] != 0;
  context = uint32_t(agentHere ? (me == 0 ? outgoing[1] : fromAgent) : fromRemote[1]);
  if (context == 0)
    return call.fail(commHandle, abi::kErrComm, "this host has no communicator contexts left");
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

std::shared_ptr<Communicator> meetAt(World& world, uint32_t context, int side, int members,
                                     util::FunctionRef<std::shared_ptr<Communicator>()> make) {
  std::lock_guard<std::mutex> guard(meetingsMutex);
  auto key = std::make_tuple(&world, context, side);
  Meeting& meeting = meetings[key];
  if (!meeting.comm) meeting.comm = make();
  std::shared_ptr<Communicator> comm = meeting.comm;
  if (++meeting.taken == members) meetings.erase(key);
  return comm;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Intercomm_create(void* instance, u32 localComm, u32 localLeader, u32 peerComm,
                                u32 remoteLeader, u32 tag, u32 newintercomm) {
  HostCall call(instance, "MPI_Intercomm_create");
  int lc = int(localComm);
  CommHandle* local = call.rank.comm(lc);
  if (!local) return call.fail(lc, abi::kErrComm, "invalid local communicator");
  if (local->comm->inter)
    return call.fail(lc, abi::kErrComm, "the local communicator is an intercommunicator");
  int leader = int(localLeader);
  if (leader < 0 || leader >= local->comm->size())
    return call.fail(lc, abi::kErrRank, "invalid local leader " + std::to_string(leader) +
                                            " (local communicator size " +
                                            std::to_string(local->comm->size()) + ")");
  if (!call.bytes(newintercomm, 4))
    return call.fail(lc, abi::kErrArg, "newintercomm pointer outside linear memory");
  std::shared_ptr<Communicator> localShared = local->comm;
  int errhandler = local->errhandler;
  int me = localShared->rankOfWorld[call.rank.worldRank];
  LeaderFindings mine;
  if (me == leader)
    meetRemoteLeader(call, *localShared, int(peerComm), int(remoteLeader), int(tag), mine);
  LeaderFindings findings;
  int status = usesHostCollectives(call, lc)
                   ? shareFindingsAcrossHosts(call, lc, leader, mine, findings)
                   : runCollective(
      call, lc, CollectiveKind::CommSplit,
      [&](Contribution& slot) {
        // The findings stay alive until every member has read them: the
        // collective waits for all before the leader returns.
        if (me == leader) slot.send = reinterpret_cast<const uint8_t*>(&mine);
      },
      [&](std::vector<Contribution>& slots, int) {
        const uint8_t* posted = slots[size_t(leader)].send;
        if (!posted) {
          findings.error = abi::kErrRank;
          findings.reason = "the members named different local leaders";
        } else {
          findings = *reinterpret_cast<const LeaderFindings*>(posted);
        }
        return int(abi::kSuccess);
      });
  if (status) return status;
  if (findings.error) {
    if (me != leader && findings.error != abi::kErrRank)
      findings.reason = "the local leader failed: " + findings.reason;
    return call.fail(lc, findings.error, findings.reason);
  }
  const std::vector<int>& localRanks = localShared->worldRanks;
  int leaderWorldRank = localRanks[size_t(leader)];
  std::shared_ptr<Communicator> side =
      meetAt(call.world(), findings.context, leaderWorldRank,
             membersHere(call.world(), localRanks), [&] {
        return makeSide(call.world(), localRanks, findings.remoteRanks, findings.context);
      });
  call.store<int32_t>(newintercomm, call.rank.addComm(side, errhandler));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Intercomm_merge(void* instance, u32 intercomm, u32 high, u32 newintracomm) {
  HostCall call(instance, "MPI_Intercomm_merge");
  int c = int(intercomm);
  CommHandle* handle = call.rank.comm(c);
  if (!handle) return call.fail(c, abi::kErrComm, "invalid communicator");
  if (!handle->comm->inter) return call.fail(c, abi::kErrComm, "not an intercommunicator");
  if (!call.bytes(newintracomm, 4))
    return call.fail(c, abi::kErrArg, "newintracomm pointer outside linear memory");
  std::shared_ptr<Communicator> comm = handle->comm;
  int errhandler = handle->errhandler;
  uint32_t context;
  bool remoteHigh;
  if (int error = agreeOnContexts(call, c, 1, high != 0, context, remoteHigh)) return error;
  // The group with high false comes first; with equal flags, the agent's.
  const std::vector<int>& local = comm->inter->localWorldRanks;
  bool localFirst = (high != 0) == remoteHigh ? agentIsLocal(*comm) : high == 0;
  std::vector<int> ranks = localFirst ? local : comm->worldRanks;
  const std::vector<int>& second = localFirst ? comm->worldRanks : local;
  ranks.insert(ranks.end(), second.begin(), second.end());
  int members = membersHere(call.world(), ranks);
  std::shared_ptr<Communicator> merged = meetAt(
      call.world(), context, -1, members,
      [&] { return call.world().makeCommunicator(std::move(ranks), context); });
  call.store<int32_t>(newintracomm, call.rank.addComm(merged, errhandler));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_remote_size(void* instance, u32 comm, u32 sizeOut) {
  HostCall call(instance, "MPI_Comm_remote_size");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!handle->comm->inter) return call.fail(int(comm), abi::kErrComm, "not an intercommunicator");
  if (!call.store<int32_t>(sizeOut, handle->comm->size()))
    return call.fail(int(comm), abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_remote_group(void* instance, u32 comm, u32 groupOut) {
  HostCall call(instance, "MPI_Comm_remote_group");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!handle->comm->inter) return call.fail(int(comm), abi::kErrComm, "not an intercommunicator");
  if (!call.bytes(groupOut, 4))
    return call.fail(int(comm), abi::kErrArg, "group pointer outside linear memory");
  auto group = std::make_shared<Group>();
  group->worldRanks = handle->comm->worldRanks;
  call.store<int32_t>(groupOut, call.rank.addGroup(std::move(group)));
  return abi::kSuccess;
}

}  // extern "C"

namespace synergy::mpi {

int dupIntercomm(HostCall& call, int commHandle, uint32_t newcommOut) {
  CommHandle* handle = call.rank.comm(commHandle);
  std::shared_ptr<Communicator> comm = handle->comm;
  int errhandler = handle->errhandler;
  uint32_t context;
  bool remoteHigh;
  if (int error = agreeOnContexts(call, commHandle, 3, false, context, remoteHigh)) return error;
  const std::vector<int>& local = comm->inter->localWorldRanks;
  std::shared_ptr<Communicator> side =
      meetAt(call.world(), context, local[0], membersHere(call.world(), local),
             [&] { return makeSide(call.world(), local, comm->worldRanks, context); });
  int duplicate = call.rank.addComm(side, errhandler);
  call.store<int32_t>(newcommOut, duplicate);
  return copyCommAttributes(call, commHandle, duplicate);
}

int idupIntercomm(HostCall& call, int commHandle, uint32_t sequence, uint32_t newcommOut) {
  CommHandle* handle = call.rank.comm(commHandle);
  std::shared_ptr<Communicator> comm = handle->comm;
  const std::vector<int>& local = comm->inter->localWorldRanks;
  const std::vector<int>& remote = comm->worldRanks;
  // Side 0 is the group with the lower first world rank, on both sides.
  bool localFirst = local[0] < remote[0];
  World& world = call.world();
  std::shared_ptr<Communicator> side;
  {
    std::lock_guard<std::mutex> guard(meetingsMutex);
    auto key = std::make_tuple(&world, comm->context, sequence);
    PendingDuplicate& pending = pendingDuplicates[key];
    if (!pending.tried) {
      pending.tried = true;
      if (std::optional<uint32_t> context = world.reserveContexts(3)) {
        const std::vector<int>& first = localFirst ? local : remote;
        const std::vector<int>& second = localFirst ? remote : local;
        pending.sides[0] = makeSide(world, first, second, *context);
        pending.sides[1] = makeSide(world, second, first, *context);
      }
    }
    side = pending.sides[localFirst ? 0 : 1];
    if (++pending.taken == int(local.size() + remote.size())) pendingDuplicates.erase(key);
  }
  if (!side)
    return call.fail(commHandle, abi::kErrComm, "this host has no communicator contexts left");
  int duplicate = call.rank.addComm(side, handle->errhandler);
  call.store<int32_t>(newcommOut, duplicate);
  return copyCommAttributes(call, commHandle, duplicate);
}

int idupIntercommAcrossHosts(HostCall& call, int commHandle, uint32_t newcommOut,
                             uint32_t requestOut) {
  CommHandle* handle = call.rank.comm(commHandle);
  std::shared_ptr<Communicator> comm = handle->comm;
  std::vector<int> local = comm->inter->localWorldRanks;
  World& world = call.world();
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  ScheduleBuilder builder(call, commHandle, *handle, CollectiveKind::CommSplit);
  auto* context = reinterpret_cast<uint32_t*>(builder.stage(*bytes, sizeof(uint32_t)));
  const auto* message = reinterpret_cast<const uint8_t*>(context);
  bool agentHere = agentIsLocal(*comm);
  if (agentHere && builder.me() == 0) {
    // 0 says that the agent's host had no contexts left.
    *context = world.reserveContexts(3).value_or(0);
    for (int member = 0; member < builder.size(); ++member)
      builder.send(member, message, bytes, sizeof(uint32_t));
    for (int member = 1; member < int(local.size()); ++member)
      builder.sendWithinGroup(member, message, bytes, sizeof(uint32_t));
  } else if (agentHere) {
    builder.receiveWithinGroup(0, reinterpret_cast<uint8_t*>(context), bytes, sizeof(uint32_t));
  } else {
    builder.receive(0, reinterpret_cast<uint8_t*>(context), bytes, sizeof(uint32_t));
  }
  int errhandler = handle->errhandler;
  return int(builder.start(requestOut, [=, &world](HostCall& done) -> int {
    // Another host's runtime chose it; a side takes three contexts.
    if (*context == 0 || *context > UINT32_MAX - 3)
      return done.fail(commHandle, abi::kErrComm,
                       "the host of the agent has no communicator contexts left");
    std::shared_ptr<Communicator> side =
        meetAt(world, *context, local[0], membersHere(world, local),
               [&] { return makeSide(world, local, comm->worldRanks, *context); });
    int duplicate = done.rank.addComm(side, errhandler);
    done.store<int32_t>(newcommOut, duplicate);
    // The attributes are the parent's when the duplicate is made; a parent
    // freed meanwhile leaves it none.
    CommHandle* parent = done.rank.comm(commHandle);
    if (!parent || parent->comm != comm) return int(abi::kSuccess);
    return copyCommAttributes(done, commHandle, duplicate);
  }));
}

int createFromIntercomm(HostCall& call, int commHandle, const Group& group,
                        uint32_t newcommOut) {
  CommHandle* handle = call.rank.comm(commHandle);
  std::shared_ptr<Communicator> comm = handle->comm;
  int errhandler = handle->errhandler;
  const IntercommSide& side = *comm->inter;
  int me = comm->rankOfWorld[call.rank.worldRank];
  const std::vector<int>& localMembers = group.worldRanks;
  for (int worldRank : localMembers)
    if (std::find(side.localWorldRanks.begin(), side.localWorldRanks.end(), worldRank) ==
        side.localWorldRanks.end())
      return call.fail(commHandle, abi::kErrGroup,
                       "group member (world rank " + std::to_string(worldRank) +
                           ") is not in the local group of the intercommunicator");
  // Each local rank 0 sends its group's members to every remote member.
  std::vector<int32_t> outgoing(localMembers.begin(), localMembers.end());
  std::vector<int32_t> incoming(comm->worldRanks.size());
  int64_t received = 0;
  MessageStep step(call, comm, commHandle);
  step.receive(side.collectiveContext, 0, kInternalTag, reinterpret_cast<uint8_t*>(incoming.data()),
               int64_t(incoming.size() * sizeof(int32_t)), &received);
  if (me == 0)
    for (int worldRank : comm->worldRanks)
      step.send(side.collectiveContext, 0, worldRank, kInternalTag,
                reinterpret_cast<const uint8_t*>(outgoing.data()),
                int64_t(outgoing.size() * sizeof(int32_t)));
  if (int error = step.finish()) return error;
  std::vector<int> remoteMembers;
  std::vector<bool> seen(comm->worldRanks.size());
  for (int64_t i = 0; i < received / int64_t(sizeof(int32_t)); ++i) {
    auto at = std::find(comm->worldRanks.begin(), comm->worldRanks.end(), incoming[size_t(i)]);
    if (at == comm->worldRanks.end() || seen[size_t(at - comm->worldRanks.begin())])
      return call.fail(commHandle, abi::kErrIntern,
                       "the remote group's members name world rank " +
                           std::to_string(incoming[size_t(i)]) + " twice or outside it");
    seen[size_t(at - comm->worldRanks.begin())] = true;
    remoteMembers.push_back(incoming[size_t(i)]);
  }
  // With either group empty nobody gets a communicator, and no contexts
  // are taken.
  if (localMembers.empty() || remoteMembers.empty()) {
    call.store<int32_t>(newcommOut, abi::kCommNull);
    return abi::kSuccess;
  }
  uint32_t context;
  bool remoteHigh;
  if (int error = agreeOnContexts(call, commHandle, 3, false, context, remoteHigh)) return error;
  if (std::find(localMembers.begin(), localMembers.end(), call.rank.worldRank) ==
      localMembers.end()) {
    call.store<int32_t>(newcommOut, abi::kCommNull);
    return abi::kSuccess;
  }
  std::shared_ptr<Communicator> result =
      meetAt(call.world(), context, localMembers[0], membersHere(call.world(), localMembers),
             [&] { return makeSide(call.world(), localMembers, remoteMembers, context); });
  call.store<int32_t>(newcommOut, call.rank.addComm(result, errhandler));
  return abi::kSuccess;
}

int splitIntercomm(HostCall& call, int commHandle, int color, int key, uint32_t newcommOut) {
  CommHandle* handle = call.rank.comm(commHandle);
  std::shared_ptr<Communicator> comm = handle->comm;
  int errhandler = handle->errhandler;
  const IntercommSide& side = *comm->inter;
  const std::vector<int>& local = side.localWorldRanks;
  int me = comm->rankOfWorld[call.rank.worldRank];
  int localSize = int(local.size()), remoteSize = comm->size();
  // Every member tells every other member of both groups its choice.
  int32_t mine[2] = {color, key};
  std::vector<int32_t> localChoices(size_t(localSize) * 2), remoteChoices(size_t(remoteSize) * 2);
  localChoices[size_t(me) * 2] = color;
  localChoices[size_t(me) * 2 + 1] = key;
  MessageStep step(call, comm, commHandle);
  for (int i = 0; i < localSize; ++i) {
    if (i == me) continue;
    step.receive(side.localContext, i, kInternalTag,
                 reinterpret_cast<uint8_t*>(&localChoices[size_t(i) * 2]), sizeof mine);
    step.send(side.localContext, me, local[size_t(i)], kInternalTag,
              reinterpret_cast<const uint8_t*>(mine), sizeof mine);
  }
  for (int j = 0; j < remoteSize; ++j) {
    step.receive(side.collectiveContext, j, kInternalTag,
                 reinterpret_cast<uint8_t*>(&remoteChoices[size_t(j) * 2]), sizeof mine);
    step.send(side.collectiveContext, me, comm->worldRanks[size_t(j)], kInternalTag,
              reinterpret_cast<const uint8_t*>(mine), sizeof mine);
  }
  if (int error = step.finish()) return error;
  // A color makes an intercommunicator when both groups chose it; each
  // such color, in ascending order, takes three contexts.
  auto chosen = [](const std::vector<int32_t>& choices) {
    std::vector<int> colors;
    for (size_t i = 0; i < choices.size(); i += 2)
      if (choices[i] != abi::kUndefined) colors.push_back(choices[i]);
    std::sort(colors.begin(), colors.end());
    colors.erase(std::unique(colors.begin(), colors.end()), colors.end());
    return colors;
  };
  std::vector<int> localColors = chosen(localChoices), remoteColors = chosen(remoteChoices);
  std::vector<int> shared;
  std::set_intersection(localColors.begin(), localColors.end(), remoteColors.begin(),
                        remoteColors.end(), std::back_inserter(shared));
  uint32_t context = 0;
  bool remoteHigh;
  if (!shared.empty()) {
    if (int error = agreeOnContexts(call, commHandle, uint32_t(3 * shared.size()), false, context,
                                    remoteHigh))
      return error;
  }
  auto index = std::lower_bound(shared.begin(), shared.end(), color);
  if (color == abi::kUndefined || index == shared.end() || *index != color) {
    call.store<int32_t>(newcommOut, abi::kCommNull);
    return abi::kSuccess;
  }
  // The members of `color`, by key, ties in rank order, as world ranks.
  auto membersOf = [&](const std::vector<int32_t>& choices, const std::vector<int>& ranks) {
    std::vector<int> members;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (choices[i * 2] == color) members.push_back(int(i));
    std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
      return choices[size_t(a) * 2 + 1] < choices[size_t(b) * 2 + 1];
    });
    for (int& member : members) member = ranks[size_t(member)];
    return members;
  };
  std::vector<int> localMembers = membersOf(localChoices, local);
  std::vector<int> remoteMembers = membersOf(remoteChoices, comm->worldRanks);
  uint32_t colorContext = context + 3 * uint32_t(index - shared.begin());
  std::shared_ptr<Communicator> result =
      meetAt(call.world(), colorContext, localMembers[0],
             membersHere(call.world(), localMembers),
             [&] { return makeSide(call.world(), localMembers, remoteMembers, colorContext); });
  call.store<int32_t>(newcommOut, call.rank.addComm(result, errhandler));
  return abi::kSuccess;
}

}  // namespace synergy::mpi
