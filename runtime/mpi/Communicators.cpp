//===- Communicators.cpp - MPI communicators, groups and Cartesian topology -===//
//
// Host functions that make, inspect and free communicators and groups.
// Every communicator constructor (dup, split, split_type, create, cart_create,
// cart_sub) is one comm-split collective: each member posts (color, key),
// and every member of a color computes the same ordered rank list; the first
// of them to get there creates the shared Communicator, keyed by the parent's
// collective sequence number and the color, and the others pick it up.
// MPI_Comm_create_group involves only the group's members, so it is no
// collective on the parent: its members meet in a list on the parent, and
// across hosts the group's first member sends the others the context.
//
// On a parent whose members span hosts, the members' choices and the new
// communicators' contexts come from the hosts' leaders instead
// (splitAcrossHosts), and each host makes the communicators of its own
// members from them.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <numeric>
#include <optional>

#include "mpi/CollectiveEngine.h"
#include "mpi/CommunicatorAttributes.h"
#include "mpi/Communicators.h"
#include "mpi/HostCollectives.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"
#include "mpi/RequestPool.h"
#include "mpi/RankState.h"
#include "mpi/World.h"
#include "util/FunctionRef.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

int noContextsLeft(HostCall& call, int comm) {
  return call.fail(comm, abi::kErrComm, "this host has no communicator contexts left");
}

// The ranks of `parent` that chose `color`, ordered by key (ties in parent
// rank order), as world ranks.
std::vector<int> membersOfColor(const Communicator& parent, int color,
                                synergy::util::FunctionRef<SplitChoice(int)> choiceOf) {
  std::vector<int> members;
  for (int i = 0; i < parent.size(); ++i)
    if (choiceOf(i).color == color) members.push_back(i);
  std::stable_sort(members.begin(), members.end(),
                   [&](int a, int b) { return choiceOf(a).key < choiceOf(b).key; });
  std::vector<int> worldRanks;
  for (int member : members) worldRanks.push_back(parent.worldRanks[member]);
  return worldRanks;
}

std::vector<int> coordsOf(const CartTopology& cart, int rank) {
  std::vector<int> coords(cart.dims.size());
  for (int d = int(cart.dims.size()) - 1; d >= 0; --d) {
    coords[d] = rank % cart.dims[d];
    rank /= cart.dims[d];
  }
  return coords;
}

// Wraps `coord` into dimension `d` if that is periodic; false when it lies
// outside a non-periodic one.
bool wrapCoord(const CartTopology& cart, size_t d, int& coord) {
  int extent = cart.dims[d];
  if (cart.periods[d])
    coord = ((coord % extent) + extent) % extent;
  else if (coord < 0 || coord >= extent)
    return false;
  return true;
}

// splitCommunicator on a parent whose members span hosts.
int splitAcrossHostsInto(HostCall& call, int comm, int color, int key, u32 newcommOut,
                         const std::optional<CartTopology>& cart) {
  CommHandle* parent = call.rank.comm(comm);
  std::shared_ptr<Communicator> parentComm = parent->comm;
  int errhandler = parent->errhandler;
  std::vector<SplitChoice> choices;
  std::vector<uint32_t> contexts;
  if (int error = splitAcrossHosts(call, comm, color, key, choices, contexts)) return error;
  uint64_t sequence = parentComm->sequenceOfRank[parentComm->rankOfWorld[call.rank.worldRank]]++;
  if (color == abi::kUndefined) {
    call.store<int32_t>(newcommOut, abi::kCommNull);
    return abi::kSuccess;
  }
  // The contexts follow the distinct colors in ascending order.
  std::vector<int> colors;
  for (const SplitChoice& choice : choices)
    if (choice.color != abi::kUndefined && choice.color < color) colors.push_back(choice.color);
  std::sort(colors.begin(), colors.end());
  size_t colorIndex = size_t(std::unique(colors.begin(), colors.end()) - colors.begin());
  std::vector<int> worldRanks =
      membersOfColor(*parentComm, color, [&](int i) { return choices[size_t(i)]; });
  std::shared_ptr<Communicator> child;
  call.world().locked([&] {
    auto& entry = parentComm->children[{sequence, color}];
    if (!entry) {
      entry = call.world().makeCommunicator(worldRanks, contexts[colorIndex]);
      entry->cart = cart;
    }
    child = entry;
  });
  call.store<int32_t>(newcommOut, call.rank.addComm(child, errhandler));
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

int splitCommunicator(HostCall& call, int comm, int color, int key, u32 newcommOut,
                      const std::optional<CartTopology>& cart) {
  CommHandle* parent = call.rank.comm(comm);
  if (!parent) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!call.bytes(newcommOut, 4))
    return call.fail(comm, abi::kErrArg, "newcomm pointer outside linear memory");
  if (usesHostCollectives(call, comm))
    return splitAcrossHostsInto(call, comm, color, key, newcommOut, cart);
  std::shared_ptr<Communicator> parentComm = parent->comm;
  int errhandler = parent->errhandler;
  std::shared_ptr<Communicator> child;
  bool exhausted = false;
  int result = runCollective(
      call, comm, CollectiveKind::CommSplit,
      [&](Contribution& slot) {
        slot.color = color;
        slot.key = key;
      },
      [&](std::vector<Contribution>& slots, int me) {
        uint64_t sequence = parentComm->sequenceOfRank[me]++;
        if (color == abi::kUndefined) return int(abi::kSuccess);
        std::vector<int> worldRanks = membersOfColor(*parentComm, color, [&](int i) {
          return SplitChoice{slots[size_t(i)].color, slots[size_t(i)].key};
        });
        call.world().locked([&] {
          auto& entry = parentComm->children[{sequence, color}];
          if (!entry) {
            entry = call.world().makeCommunicator(worldRanks);
            if (!entry) {
              parentComm->children.erase({sequence, color});
              exhausted = true;
              return;
            }
            entry->cart = cart;
          }
          child = entry;
        });
        return int(abi::kSuccess);
      });
  if (result) return result;
  if (exhausted) return noContextsLeft(call, comm);
  call.store<int32_t>(newcommOut, child ? call.rank.addComm(child, errhandler) : abi::kCommNull);
  return abi::kSuccess;
}

int cartShift(const CartTopology& cart, int rank, int dim, int disp) {
  std::vector<int> coords = coordsOf(cart, rank);
  coords[size_t(dim)] += disp;
  if (!wrapCoord(cart, size_t(dim), coords[size_t(dim)])) return abi::kProcNull;
  int shifted = 0;
  for (size_t d = 0; d < coords.size(); ++d) shifted = shifted * cart.dims[d] + coords[d];
  return shifted;
}

}  // namespace synergy::mpi

namespace {

// Finds a communicator with a Cartesian topology; returns 0 or the error.
int cartOf(HostCall& call, int comm, Communicator*& out) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!handle->comm->cart)
    return call.fail(comm, abi::kErrTopology, "communicator has no Cartesian topology");
  out = handle->comm.get();
  return abi::kSuccess;
}


// The local group, for an intercommunicator too.
std::shared_ptr<const Group> groupOf(const Communicator& comm) {
  auto group = std::make_shared<Group>();
  group->worldRanks = comm.inter ? comm.inter->localWorldRanks : comm.worldRanks;
  return group;
}


// How two rank lists compare: `equal` when they are the same in order,
// MPI_SIMILAR when they are the same as sets, MPI_UNEQUAL otherwise.
int compareRanks(std::vector<int> a, std::vector<int> b, int equal) {
  if (a == b) return equal;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? abi::kSimilar : abi::kUnequal;
}

int indexIn(const std::vector<int>& ranks, int worldRank) {
  auto it = std::find(ranks.begin(), ranks.end(), worldRank);
  return it == ranks.end() ? abi::kUndefined : int(it - ranks.begin());
}

// Checks that every member of `group` belongs to `parent` and finds the
// lowest rank in `parent` among them; returns 0 or the raised error.
int parentRanksOf(HostCall& call, int comm, const Communicator& parent, const Group& group,
                  int& lowest) {
  lowest = parent.size();
  for (int worldRank : group.worldRanks) {
    int parentRank = parent.rankOfWorld[worldRank];
    if (parentRank < 0)
      return call.fail(comm, abi::kErrGroup,
                       "group member " + std::to_string(worldRank) + " is not in the communicator");
    lowest = std::min(lowest, parentRank);
  }
  return abi::kSuccess;
}

// Copies the attributes of `comm` to its new duplicate `duplicate`; when
// a copy callback fails, the duplicate is not made after all: it is freed
// and `newcomm` set to MPI_COMM_NULL, and the callback's error returned.
int copyAttributesOrUndo(HostCall& call, int comm, int duplicate, u32 newcomm) {
  int error = copyCommAttributes(call, comm, duplicate);
  if (error) {
    call.rank.freeComm(duplicate);
    call.store<int32_t>(newcomm, abi::kCommNull);
  }
  return error;
}

// MPI_Comm_dup and MPI_Comm_dup_with_info: a copy of `comm` with its
// attributes.
u32 duplicateCommunicator(HostCall& call, u32 comm, u32 newcomm) {
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (handle->comm->inter) return dupIntercomm(call, int(comm), newcomm);
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  if (int error = splitCommunicator(call, int(comm), 0, me, newcomm, handle->comm->cart))
    return error;
  int32_t duplicate;
  call.load(newcomm, duplicate);
  call.rank.comm(duplicate)->graph = call.rank.comm(int(comm))->graph;
  return copyAttributesOrUndo(call, int(comm), duplicate, newcomm);
}

// An info argument of the *_with_info calls: an info object, MPI_INFO_ENV
// or MPI_INFO_NULL.
bool isInfoArgument(HostCall& call, int info) {
  return info == abi::kInfoNull || info == abi::kInfoEnv || call.rank.infos.count(info);
}

// A nonblocking duplicate's tag in the parent's list of pending creations
// (Communicator::groupCreations): negative, which no MPI_Comm_create_group
// tag can be, and distinct for each nonblocking collective started on the
// parent.
int idupCreationTag(uint32_t sequence) { return -1 - int(sequence & 0x3fffffffu); }

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Comm_rank(void* instance, u32 comm, u32 rankOut) {
  HostCall call(instance, "MPI_Comm_rank");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!call.store<int32_t>(rankOut, handle->comm->rankOfWorld[call.rank.worldRank]))
    return call.fail(int(comm), abi::kErrArg, "rank pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_size(void* instance, u32 comm, u32 sizeOut) {
  HostCall call(instance, "MPI_Comm_size");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  const Communicator& c = *handle->comm;
  int size = c.inter ? int(c.inter->localWorldRanks.size()) : c.size();
  if (!call.store<int32_t>(sizeOut, size))
    return call.fail(int(comm), abi::kErrArg, "size pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_dup(void* instance, u32 comm, u32 newcomm) {
  HostCall call(instance, "MPI_Comm_dup");
  return duplicateCommunicator(call, comm, newcomm);
}

// The hints name nothing that changes how a communicator of this runtime
// works, so the duplicate is MPI_Comm_dup's; the info argument must be an
// info object or MPI_INFO_NULL, no hints (as MPICH and OpenMPI take it).
u32 Z_envZ_MPI_Comm_dup_with_info(void* instance, u32 comm, u32 info, u32 newcomm) {
  HostCall call(instance, "MPI_Comm_dup_with_info");
  if (!isInfoArgument(call, int(info)))
    return call.fail(int(comm), abi::kErrArg, "invalid info object " + std::to_string(int(info)));
  return duplicateCommunicator(call, comm, newcomm);
}

u32 Z_envZ_MPI_Comm_split(void* instance, u32 comm, u32 color, u32 key, u32 newcomm) {
  HostCall call(instance, "MPI_Comm_split");
  int c = int(color);
  if (c < 0 && c != abi::kUndefined)
    return call.fail(int(comm), abi::kErrArg, "invalid color " + std::to_string(c));
  if (intercommOf(call, int(comm))) {
    if (!call.bytes(newcomm, 4))
      return call.fail(int(comm), abi::kErrArg, "newcomm pointer outside linear memory");
    return splitIntercomm(call, int(comm), c, int(key), newcomm);
  }
  return splitCommunicator(call, int(comm), c, int(key), newcomm, std::nullopt);
}

u32 Z_envZ_MPI_Comm_split_type(void* instance, u32 comm, u32 splitType, u32 key, u32 info,
                               u32 newcomm) {
  HostCall call(instance, "MPI_Comm_split_type");
  (void)info;
  // A shared-memory split keeps the ranks of each host together.
  RemoteRanks* remote = call.world().remoteRanks();
  int color = int(splitType) == abi::kUndefined ? abi::kUndefined
              : remote                          ? remote->hostOf(call.rank.worldRank)
                                                : 0;
  return splitCommunicator(call, int(comm), color, int(key), newcomm, std::nullopt);
}

u32 Z_envZ_MPI_Comm_create(void* instance, u32 comm, u32 group, u32 newcomm) {
  HostCall call(instance, "MPI_Comm_create");
  CommHandle* parent = call.rank.comm(int(comm));
  if (!parent) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  auto members = call.rank.group(int(group));
  if (!members) return call.fail(int(comm), abi::kErrGroup, "invalid group");
  if (parent->comm->inter) {
    if (!call.bytes(newcomm, 4))
      return call.fail(int(comm), abi::kErrArg, "newcomm pointer outside linear memory");
    return createFromIntercomm(call, int(comm), *members, newcomm);
  }
  int index = indexIn(members->worldRanks, call.rank.worldRank);
  // Since MPI-2.2 the members may pass disjoint groups, each its own: the
  // group's lowest rank in the parent is its colour, so each group becomes
  // a communicator of its own.
  int color = abi::kUndefined;
  if (index != abi::kUndefined) {
    int lowest;
    if (int error = parentRanksOf(call, int(comm), *parent->comm, *members, lowest)) return error;
    color = lowest;
  }
  return splitCommunicator(call, int(comm), color, index, newcomm, std::nullopt);
}

// Collective over the group only: nothing waits. The k-th call of each
// member with the same group and tag names the same communicator, which
// the first caller makes and the last one takes out of the parent's list.
u32 Z_envZ_MPI_Comm_create_group(void* instance, u32 comm, u32 group, u32 tag, u32 newcomm) {
  HostCall call(instance, "MPI_Comm_create_group");
  CommHandle* parent = call.rank.comm(int(comm));
  if (!parent) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  auto members = call.rank.group(int(group));
  if (!members) return call.fail(int(comm), abi::kErrGroup, "invalid group");
  if (int(tag) < 0) return call.fail(int(comm), abi::kErrTag, "invalid tag " + std::to_string(int(tag)));
  if (!call.bytes(newcomm, 4))
    return call.fail(int(comm), abi::kErrArg, "newcomm pointer outside linear memory");
  int me = indexIn(members->worldRanks, call.rank.worldRank);
  if (me == abi::kUndefined)
    return call.fail(int(comm), abi::kErrGroup, "the calling process is not in the group");
  int lowest;
  if (int error = parentRanksOf(call, int(comm), *parent->comm, *members, lowest)) return error;
  const std::vector<int>& groupRanks = members->worldRanks;
  World& world = call.world();
  int localMembers = int(std::count_if(groupRanks.begin(), groupRanks.end(),
                                       [&](int worldRank) { return !world.isRemote(worldRank); }));
  // Across hosts, the host of the group's first member makes the context
  // and that member hands it to the others (HostCollectives.h).
  bool firstIsRemote = world.isRemote(groupRanks[0]);
  std::optional<uint32_t> givenContext;
  if (firstIsRemote) {
    givenContext = receiveGroupContext(call, int(comm), groupRanks[0], int(tag));
    if (*givenContext == UINT32_MAX) return noContextsLeft(call, int(comm));
  }
  std::shared_ptr<Communicator> parentComm = parent->comm;
  std::shared_ptr<Communicator> child;
  bool exhausted = false;
  world.locked([&] {
    auto key = std::make_pair(members->worldRanks, int(tag));
    Communicator::GroupCreations& creations = parentComm->groupCreations[key];
    creations.callsOfMember.resize(members->worldRanks.size());
    uint64_t callNumber = creations.callsOfMember[me]++;
    auto& [made, takers] = creations.pending[callNumber];
    if (!made)
      made = givenContext ? world.makeCommunicator(groupRanks, *givenContext)
                          : world.makeCommunicator(groupRanks);
    if (!made) {
      creations.pending.erase(callNumber);
      creations.callsOfMember[me]--;
      exhausted = true;
      return;
    }
    child = made;
    if (++takers < localMembers) return;
    creations.pending.erase(callNumber);
    // With nothing pending every member has made as many calls: the
    // counts can start again from zero.
    if (creations.pending.empty()) parentComm->groupCreations.erase(key);
  });
  if (me == 0 && localMembers < int(groupRanks.size()))
    sendGroupContext(call, int(comm), groupRanks, int(tag),
                     exhausted ? UINT32_MAX : child->context);
  if (exhausted) return noContextsLeft(call, int(comm));
  call.store<int32_t>(newcomm, call.rank.addComm(child, parent->errhandler));
  return abi::kSuccess;
}

}  // extern "C"

namespace {

// MPI_Comm_idup of a communicator whose members span hosts, waiting for no
// other member: a nonblocking collective whose one message is the new
// context, which the parent's rank 0 reserves on its host and sends to
// every other member (UINT32_MAX when it had none left). Each member makes
// the duplicate when that has come, sharing one Communicator with the
// members on its host, so the handle reaches `newcomm` when the request
// completes.
u32 startDuplicateAcrossHosts(HostCall& call, int comm, u32 newcomm, u32 requestOut) {
  CommHandle* parent = call.rank.comm(comm);
  std::shared_ptr<Communicator> parentComm = parent->comm;
  World& world = call.world();
  static const Layout bytes = predefinedLayout(abi::kTypeByte);
  ScheduleBuilder builder(call, comm, *parent, CollectiveKind::CommSplit);
  auto* context = reinterpret_cast<uint32_t*>(builder.stage(*bytes, sizeof(uint32_t)));
  if (builder.me() == 0) {
    *context = world.reserveContexts(1).value_or(UINT32_MAX);
    for (int member = 1; member < builder.size(); ++member)
      builder.send(member, reinterpret_cast<const uint8_t*>(context), bytes, sizeof(uint32_t));
  } else {
    builder.receive(0, reinterpret_cast<uint8_t*>(context), bytes, sizeof(uint32_t));
  }
  int errhandler = parent->errhandler;
  std::shared_ptr<const GraphNeighbors> graph = parent->graph;
  return builder.start(requestOut, [=, &world](HostCall& done) -> int {
    if (*context == UINT32_MAX) return noContextsLeft(done, comm);
    std::shared_ptr<Communicator> child =
        meetAt(world, *context, -1, membersHere(world, parentComm->worldRanks), [&] {
          std::shared_ptr<Communicator> made =
              world.makeCommunicator(parentComm->worldRanks, *context);
          made->cart = parentComm->cart;
          return made;
        });
    int duplicate = done.rank.addComm(child, errhandler);
    done.rank.comm(duplicate)->graph = graph;
    done.store<int32_t>(newcomm, duplicate);
    // The attributes are the parent's when the duplicate is made; a parent
    // freed meanwhile leaves it none.
    CommHandle* parentNow = done.rank.comm(comm);
    if (!parentNow || parentNow->comm != parentComm) return int(abi::kSuccess);
    return copyAttributesOrUndo(done, comm, duplicate, newcomm);
  });
}

// MPI_Comm_idup and MPI_Comm_idup_with_info, which wait for no other
// member, so members may start duplicating overlapping communicators in
// different orders, as MPI allows of nonblocking collectives. Every member
// starts the nonblocking collectives of a communicator in the same order,
// so the k-th of them names the same duplicate on every member: the first
// member to start it makes the communicator, the others pick it up from
// the parent's list of pending creations, and the request is complete at
// once. An intercommunicator's duplicate is made the same way
// (idupIntercomm). Members on other hosts cannot pick up a communicator
// made here, so a parent spanning hosts takes the context from a message
// (startDuplicateAcrossHosts, idupIntercommAcrossHosts).
u32 startDuplicate(HostCall& call, u32 comm, u32 newcomm, u32 requestOut) {
  CommHandle* parent = call.rank.comm(int(comm));
  if (!parent) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!call.bytes(newcomm, 4) || !call.bytes(requestOut, 4))
    return call.fail(int(comm), abi::kErrArg, "newcomm or request pointer outside linear memory");
  std::shared_ptr<Communicator> parentComm = parent->comm;
  if (parentComm->inter && intercommSpansHosts(call.world(), *parentComm))
    return u32(idupIntercommAcrossHosts(call, int(comm), newcomm, requestOut));
  if (!parentComm->inter && usesHostCollectives(call, int(comm)))
    return startDuplicateAcrossHosts(call, int(comm), newcomm, requestOut);
  if (parentComm->inter) {
    uint32_t sequence = call.rank.nonblockingCollectivesOn[parentComm->context]++;
    if (int error = idupIntercomm(call, int(comm), sequence, newcomm)) return error;
  } else {
    uint32_t& started = call.rank.nonblockingCollectivesOn[parentComm->context];
    int tag = idupCreationTag(started);
    World& world = call.world();
    int members = parentComm->size();
    std::shared_ptr<Communicator> child;
    world.locked([&] {
      auto key = std::make_pair(parentComm->worldRanks, tag);
      Communicator::GroupCreations& creations = parentComm->groupCreations[key];
      auto& [made, takers] = creations.pending[0];
      if (!made) {
        made = world.makeCommunicator(parentComm->worldRanks);
        if (made) made->cart = parentComm->cart;
      }
      child = made;
      if (!made || ++takers == members) parentComm->groupCreations.erase(key);
    });
    if (!child) return noContextsLeft(call, int(comm));
    ++started;
    int duplicate = call.rank.addComm(child, parent->errhandler);
    call.rank.comm(duplicate)->graph = call.rank.comm(int(comm))->graph;
    call.store<int32_t>(newcomm, duplicate);
    if (int error = copyAttributesOrUndo(call, int(comm), duplicate, newcomm)) return error;
  }
  auto request = newRequest();
  request->kind = Request::Kind::Collective;
  request->owner = call.rank.worldRank;
  request->statusSource = abi::kAnySource;
  request->statusTag = abi::kAnyTag;
  request->complete = true;
  call.store<int32_t>(requestOut, call.rank.addRequest(request));
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Comm_idup(void* instance, u32 comm, u32 newcomm, u32 requestOut) {
  HostCall call(instance, "MPI_Comm_idup");
  return startDuplicate(call, comm, newcomm, requestOut);
}

// As MPI_Comm_dup_with_info, the hints change nothing.
u32 Z_envZ_MPI_Comm_idup_with_info(void* instance, u32 comm, u32 info, u32 newcomm,
                                   u32 requestOut) {
  HostCall call(instance, "MPI_Comm_idup_with_info");
  if (!isInfoArgument(call, int(info)))
    return call.fail(int(comm), abi::kErrArg, "invalid info object " + std::to_string(int(info)));
  return startDuplicate(call, comm, newcomm, requestOut);
}

u32 Z_envZ_MPI_Comm_free(void* instance, u32 commAddr) {
  HostCall call(instance, "MPI_Comm_free");
  int32_t comm;
  if (!call.load(commAddr, comm) || !call.rank.comm(comm))
    return call.fail(abi::kCommWorld, abi::kErrComm, "invalid communicator");
  if (comm == abi::kCommWorld || comm == abi::kCommSelf)
    return call.fail(comm, abi::kErrComm, "cannot free a predefined communicator");
  if (int error = deleteCommAttributes(call, comm)) return error;
  call.rank.freeComm(comm);
  call.store<int32_t>(commAddr, abi::kCommNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_compare(void* instance, u32 comm1, u32 comm2, u32 resultOut) {
  HostCall call(instance, "MPI_Comm_compare");
  CommHandle* a = call.rank.comm(int(comm1));
  CommHandle* b = call.rank.comm(int(comm2));
  if (!a || !b) return call.fail(int(comm1), abi::kErrComm, "invalid communicator");
  int result = a->comm == b->comm
                   ? abi::kIdent
                   : compareRanks(a->comm->worldRanks, b->comm->worldRanks, abi::kCongruent);
  // Two intercommunicators compare by both groups; one never equals an
  // intracommunicator.
  if (result != abi::kIdent && bool(a->comm->inter) != bool(b->comm->inter)) result = abi::kUnequal;
  if (result != abi::kIdent && a->comm->inter && b->comm->inter) {
    int local = compareRanks(a->comm->inter->localWorldRanks, b->comm->inter->localWorldRanks,
                             abi::kCongruent);
    if (local != result) result = abi::kUnequal;
  }
  call.store<int32_t>(resultOut, result);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_test_inter(void* instance, u32 comm, u32 flag) {
  HostCall call(instance, "MPI_Comm_test_inter");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!call.store<int32_t>(flag, handle->comm->inter ? 1 : 0))
    return call.fail(int(comm), abi::kErrArg, "flag pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_set_name(void* instance, u32 comm, u32 name) {
  HostCall call(instance, "MPI_Comm_set_name");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  std::string text;
  for (u32 at = name; text.size() < size_t(abi::kMaxObjectName); ++at) {
    uint8_t* ch = call.bytes(at, 1);
    if (!ch) return call.fail(int(comm), abi::kErrArg, "name outside linear memory");
    if (!*ch) break;
    text += char(*ch);
  }
  call.world().locked([&] { handle->comm->name = text; });
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_get_name(void* instance, u32 comm, u32 nameOut, u32 lengthOut) {
  HostCall call(instance, "MPI_Comm_get_name");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  std::string text;
  call.world().locked([&] { text = handle->comm->name; });
  if (text.rfind("communicator #", 0) == 0) text.clear();
  uint8_t* out = call.bytes(nameOut, text.size() + 1);
  if (!out) return call.fail(int(comm), abi::kErrArg, "name buffer outside linear memory");
  std::memcpy(out, text.c_str(), text.size() + 1);
  call.store<int32_t>(lengthOut, int32_t(text.size()));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Comm_group(void* instance, u32 comm, u32 groupOut) {
  HostCall call(instance, "MPI_Comm_group");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  call.store<int32_t>(groupOut, call.rank.addGroup(groupOf(*handle->comm)));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Group_size(void* instance, u32 group, u32 sizeOut) {
  HostCall call(instance, "MPI_Group_size");
  auto g = call.rank.group(int(group));
  if (!g) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  call.store<int32_t>(sizeOut, int32_t(g->worldRanks.size()));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Group_rank(void* instance, u32 group, u32 rankOut) {
  HostCall call(instance, "MPI_Group_rank");
  auto g = call.rank.group(int(group));
  if (!g) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  call.store<int32_t>(rankOut, indexIn(g->worldRanks, call.rank.worldRank));
  return abi::kSuccess;
}

static u32 groupSubset(HostCall& call, u32 group, u32 n, u32 ranks, u32 newgroup, bool include) {
  auto g = call.rank.group(int(group));
  if (!g) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  int count = int(n);
  const int32_t* list =
      count > 0 ? reinterpret_cast<const int32_t*>(call.bytes(ranks, uint64_t(count) * 4)) : nullptr;
  if (count < 0 || (count > 0 && !list))
    return call.fail(abi::kCommWorld, abi::kErrArg, "invalid rank list");
  int size = int(g->worldRanks.size());
  std::vector<bool> chosen(size, false);
  for (int i = 0; i < count; ++i) {
    if (list[i] < 0 || list[i] >= size || chosen[list[i]])
      return call.fail(abi::kCommWorld, abi::kErrRank,
                       "invalid or repeated rank " + std::to_string(list[i]) + " in group");
    chosen[list[i]] = true;
  }
  auto result = std::make_shared<Group>();
  if (include) {
    for (int i = 0; i < count; ++i) result->worldRanks.push_back(g->worldRanks[list[i]]);
  } else {
    for (int i = 0; i < size; ++i)
      if (!chosen[i]) result->worldRanks.push_back(g->worldRanks[i]);
  }
  call.store<int32_t>(newgroup, result->worldRanks.empty() ? abi::kGroupEmpty
                                                           : call.rank.addGroup(result));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Group_incl(void* instance, u32 group, u32 n, u32 ranks, u32 newgroup) {
  HostCall call(instance, "MPI_Group_incl");
  return groupSubset(call, group, n, ranks, newgroup, true);
}

u32 Z_envZ_MPI_Group_excl(void* instance, u32 group, u32 n, u32 ranks, u32 newgroup) {
  HostCall call(instance, "MPI_Group_excl");
  return groupSubset(call, group, n, ranks, newgroup, false);
}

u32 Z_envZ_MPI_Group_translate_ranks(void* instance, u32 group1, u32 n, u32 ranks1, u32 group2,
                                     u32 ranks2) {
  HostCall call(instance, "MPI_Group_translate_ranks");
  auto a = call.rank.group(int(group1));
  auto b = call.rank.group(int(group2));
  if (!a || !b) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  int count = int(n);
  for (int i = 0; i < count; ++i) {
    int32_t r;
    if (!call.load(ranks1 + 4 * i, r)) return call.fail(abi::kCommWorld, abi::kErrArg, "rank list outside memory");
    int32_t translated = abi::kProcNull;
    if (r != abi::kProcNull) {
      if (r < 0 || r >= int(a->worldRanks.size()))
        return call.fail(abi::kCommWorld, abi::kErrRank, "invalid rank " + std::to_string(r));
      translated = indexIn(b->worldRanks, a->worldRanks[r]);
    }
    if (!call.store<int32_t>(ranks2 + 4 * i, translated))
      return call.fail(abi::kCommWorld, abi::kErrArg, "rank list outside memory");
  }
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Group_compare(void* instance, u32 group1, u32 group2, u32 resultOut) {
  HostCall call(instance, "MPI_Group_compare");
  auto a = call.rank.group(int(group1));
  auto b = call.rank.group(int(group2));
  if (!a || !b) return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  call.store<int32_t>(resultOut, compareRanks(a->worldRanks, b->worldRanks, abi::kIdent));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Group_free(void* instance, u32 groupAddr) {
  HostCall call(instance, "MPI_Group_free");
  int32_t group;
  if (!call.load(groupAddr, group) || !call.rank.group(group))
    return call.fail(abi::kCommWorld, abi::kErrGroup, "invalid group");
  call.rank.freeGroup(group);
  call.store<int32_t>(groupAddr, abi::kGroupNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Dims_create(void* instance, u32 nnodes, u32 ndims, u32 dimsAddr) {
  HostCall call(instance, "MPI_Dims_create");
  int nodes = int(nnodes), n = int(ndims);
  if (n < 0 || nodes <= 0) return call.fail(abi::kCommWorld, abi::kErrDims, "invalid arguments");
  auto* dims = reinterpret_cast<int32_t*>(call.bytes(dimsAddr, uint64_t(n) * 4));
  if (n > 0 && !dims) return call.fail(abi::kCommWorld, abi::kErrArg, "dims outside memory");
  int fixed = 1;
  std::vector<int> free;
  for (int d = 0; d < n; ++d) {
    if (dims[d] < 0) return call.fail(abi::kCommWorld, abi::kErrDims, "negative dimension");
    if (dims[d] > 0)
      fixed *= dims[d];
    else
      free.push_back(d);
  }
  if (nodes % fixed != 0)
    return call.fail(abi::kCommWorld, abi::kErrDims, "nnodes is not a multiple of the fixed dims");
  int remaining = nodes / fixed;
  if (free.empty()) {
    if (remaining != 1) return call.fail(abi::kCommWorld, abi::kErrDims, "dims do not multiply to nnodes");
    return abi::kSuccess;
  }
  std::vector<int> factors;
  for (int p = 2; p * p <= remaining; ++p)
    while (remaining % p == 0) {
      factors.push_back(p);
      remaining /= p;
    }
  if (remaining > 1) factors.push_back(remaining);
  // Largest factors first, each onto the currently smallest dimension:
  // this gives the balanced, non-increasing split MPI asks for.
  std::sort(factors.rbegin(), factors.rend());
  std::vector<int> sizes(free.size(), 1);
  for (int factor : factors) *std::min_element(sizes.begin(), sizes.end()) *= factor;
  std::sort(sizes.rbegin(), sizes.rend());
  for (size_t i = 0; i < free.size(); ++i) dims[free[i]] = sizes[i];
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_create(void* instance, u32 comm, u32 ndims, u32 dimsAddr, u32 periodsAddr,
                           u32 reorder, u32 newcomm) {
  HostCall call(instance, "MPI_Cart_create");
  (void)reorder;
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int n = int(ndims);
  auto* dims = reinterpret_cast<const int32_t*>(call.bytes(dimsAddr, uint64_t(std::max(n, 0)) * 4));
  auto* periods = reinterpret_cast<const int32_t*>(call.bytes(periodsAddr, uint64_t(std::max(n, 0)) * 4));
  if (n < 0 || !dims || !periods) return call.fail(int(comm), abi::kErrArg, "invalid dims or periods");
  CartTopology cart;
  int64_t product = 1;
  for (int d = 0; d < n; ++d) {
    if (dims[d] <= 0) return call.fail(int(comm), abi::kErrDims, "invalid dimension size");
    cart.dims.push_back(dims[d]);
    cart.periods.push_back(periods[d] != 0);
    product *= dims[d];
  }
  int size = handle->comm->size();
  if (product > size)
    return call.fail(int(comm), abi::kErrDims, "grid has more processes than the communicator");
  int me = handle->comm->rankOfWorld[call.rank.worldRank];
  return splitCommunicator(call, int(comm), me < product ? 0 : abi::kUndefined, me, newcomm, cart);
}

u32 Z_envZ_MPI_Cartdim_get(void* instance, u32 comm, u32 ndimsOut) {
  HostCall call(instance, "MPI_Cartdim_get");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  call.store<int32_t>(ndimsOut, int32_t(c->cart->dims.size()));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Topo_test(void* instance, u32 comm, u32 statusOut) {
  HostCall call(instance, "MPI_Topo_test");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int kind = handle->comm->cart ? abi::kTopoCart
             : handle->graph   ? handle->graph->kind
                               : abi::kUndefined;
  if (!call.store<int32_t>(statusOut, kind))
    return call.fail(int(comm), abi::kErrArg, "status pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_get(void* instance, u32 comm, u32 maxdims, u32 dimsOut, u32 periodsOut,
                        u32 coordsOut) {
  HostCall call(instance, "MPI_Cart_get");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  auto coords = coordsOf(*c->cart, c->rankOfWorld[call.rank.worldRank]);
  for (int d = 0; d < int(maxdims) && d < int(coords.size()); ++d) {
    if (!call.store<int32_t>(dimsOut + 4 * d, c->cart->dims[d]) ||
        !call.store<int32_t>(periodsOut + 4 * d, c->cart->periods[d]) ||
        !call.store<int32_t>(coordsOut + 4 * d, coords[d]))
      return call.fail(int(comm), abi::kErrArg, "output array outside linear memory");
  }
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_coords(void* instance, u32 comm, u32 rank, u32 maxdims, u32 coordsOut) {
  HostCall call(instance, "MPI_Cart_coords");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  if (int(rank) < 0 || int(rank) >= c->size())
    return call.fail(int(comm), abi::kErrRank, "invalid rank " + std::to_string(int(rank)));
  auto coords = coordsOf(*c->cart, int(rank));
  for (int d = 0; d < int(maxdims) && d < int(coords.size()); ++d)
    if (!call.store<int32_t>(coordsOut + 4 * d, coords[d]))
      return call.fail(int(comm), abi::kErrArg, "coords outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_rank(void* instance, u32 comm, u32 coordsAddr, u32 rankOut) {
  HostCall call(instance, "MPI_Cart_rank");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  int rank = 0;
  for (size_t d = 0; d < c->cart->dims.size(); ++d) {
    int32_t coord;
    if (!call.load(coordsAddr + 4 * uint32_t(d), coord))
      return call.fail(int(comm), abi::kErrArg, "coords outside linear memory");
    if (!wrapCoord(*c->cart, d, coord))
      return call.fail(int(comm), abi::kErrArg, "coordinate out of range");
    rank = rank * c->cart->dims[d] + coord;
  }
  call.store<int32_t>(rankOut, rank);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_shift(void* instance, u32 comm, u32 direction, u32 disp, u32 sourceOut,
                          u32 destOut) {
  HostCall call(instance, "MPI_Cart_shift");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  int dir = int(direction);
  if (dir < 0 || dir >= int(c->cart->dims.size()))
    return call.fail(int(comm), abi::kErrArg, "invalid direction " + std::to_string(dir));
  int me = c->rankOfWorld[call.rank.worldRank];
  if (!call.store<int32_t>(sourceOut, cartShift(*c->cart, me, dir, -int(disp))) ||
      !call.store<int32_t>(destOut, cartShift(*c->cart, me, dir, int(disp))))
    return call.fail(int(comm), abi::kErrArg, "rank pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Cart_sub(void* instance, u32 comm, u32 remainAddr, u32 newcomm) {
  HostCall call(instance, "MPI_Cart_sub");
  Communicator* c = nullptr;
  if (int error = cartOf(call, int(comm), c)) return error;
  auto coords = coordsOf(*c->cart, c->rankOfWorld[call.rank.worldRank]);
  int color = 0, key = 0;
  CartTopology sub;
  for (size_t d = 0; d < coords.size(); ++d) {
    int32_t remain;
    if (!call.load(remainAddr + 4 * uint32_t(d), remain))
      return call.fail(int(comm), abi::kErrArg, "remain_dims outside linear memory");
    if (remain) {
      key = key * c->cart->dims[d] + coords[d];
      sub.dims.push_back(c->cart->dims[d]);
      sub.periods.push_back(c->cart->periods[d]);
    } else {
      color = color * c->cart->dims[d] + coords[d];
    }
  }
  return splitCommunicator(call, int(comm), color, key, newcomm, sub);
}

}  // extern "C"
