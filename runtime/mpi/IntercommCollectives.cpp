//===- IntercommCollectives.cpp - collectives on intercommunicators -------===//
//
// The collectives of MPI-3.1 §5.2.2 on an intercommunicator: the data of
// one group goes to the other. The blocking collectives of an
// intracommunicator meet in the slots of one Communicator object, which the
// two sides of an intercommunicator do not share, so these run over the
// runtime's own point-to-point messages on the intercommunicator's
// collective context instead, in one round (MessageStep): every member
// sends its data straight to the remote members that need it, packed, and
// receives what it needs from them. A member's messages to one peer arrive
// in order and every member calls the collectives of a communicator in the
// same order, so one tag serves them all.
//
// A reduction's receiver gets every remote member's contribution and folds
// them in rank order with reduceInto, as the intracommunicator forms do;
// MPI_Reduce_scatter(_block) sends each member the whole vector and the
// receiver reduces its own block. The flat exchange costs local size times
// remote size messages, which the jobs of one host keep small.
//
// MPI_IN_PLACE has no meaning on an intercommunicator and is refused.
//
//===----------------------------------------------------------------------===//
#include <numeric>

#include "mpi/CollectiveEngine.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

constexpr int kCollectiveTag = 0;

// What a collective's rank knows of the intercommunicator.
struct Sides {
  std::shared_ptr<Communicator> comm;
  uint32_t context = 0;
  int me = 0;           // local rank
  int localSize = 0;
  int remoteSize = 0;
};

Sides sidesOf(HostCall& call, int commHandle) {
  Sides sides;
  sides.comm = call.rank.comm(commHandle)->comm;
  sides.context = sides.comm->inter->collectiveContext;
  sides.me = sides.comm->rankOfWorld[call.rank.worldRank];
  sides.localSize = int(sides.comm->inter->localWorldRanks.size());
  sides.remoteSize = sides.comm->size();
  return sides;
}

// A checked buffer: its host address and datatype.
struct Typed {
  uint8_t* host = nullptr;
  const TypeLayout* type = nullptr;
  int typeHandle = 0;
  u32 guest = 0;
};

// Checks `count` instances of datatype `typeHandle` at guest `addr`.
int resolve(HostCall& call, int comm, u32 addr, int64_t count, int typeHandle, const char* role,
            Typed& out) {
  if (int error = refuseInPlace(call, comm, addr, role)) return error;
  if (count < 0) return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  const Layout& layout = call.rank.type(typeHandle);
  if (!layout)
    return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  if (!layout->committed) return call.fail(comm, abi::kErrType, "datatype is not committed");
  bool ok;
  out.host = call.typedBuffer(addr, *layout, count, ok);
  if (!ok)
    return call.fail(comm, abi::kErrBuffer, std::string(role) + " buffer outside linear memory");
  out.type = layout.get();
  out.typeHandle = typeHandle;
  out.guest = addr;
  return abi::kSuccess;
}

// The block of `count` instances `displ` extents into `base`, checked.
int blockOf(HostCall& call, int comm, const Typed& base, int64_t displ, int64_t count,
            const char* role, uint8_t*& host) {
  if (count < 0) return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  int64_t addr = int64_t(base.guest) + displ * base.type->extent();
  bool ok = addr >= 0 && addr <= int64_t(UINT32_MAX);
  if (ok) host = call.typedBuffer(u32(addr), *base.type, count, ok);
  if (!ok)
    return call.fail(comm, abi::kErrBuffer, std::string(role) + " block at displacement " +
                                                std::to_string(displ) + " outside linear memory");
  return abi::kSuccess;
}

// `n` guest ints at `addr` (counts or displacements), or an error.
int intArray(HostCall& call, int comm, u32 addr, int n, const char* what, const int32_t*& out) {
  out = reinterpret_cast<const int32_t*>(call.bytes(addr, uint64_t(n) * 4));
  if (!out) return call.fail(comm, abi::kErrArg, std::string(what) + " outside linear memory");
  return abi::kSuccess;
}

std::vector<uint8_t> packed(const uint8_t* host, const TypeLayout& type, int64_t count) {
  std::vector<uint8_t> out(size_t(type.size * count));
  packTyped(host, type, count, out.data());
  return out;
}

// `count` instances of a datatype unpacked into memory of their own, laid
// out as in a buffer, for reduceInto.
class Unpacked {
 public:
  Unpacked(const uint8_t* data, const TypeLayout& type, int64_t count) {
    ByteSpan span = touchedSpan(type, count);
    storage_.resize(size_t(span.last - span.first));
    offset_ = span.first;
    unpackTyped(data, base(), type, count);
  }
  uint8_t* base() { return storage_.data() - offset_; }

 private:
  std::vector<uint8_t> storage_;
  int64_t offset_ = 0;
};

// Receives one contribution from every remote member into `incoming` and
// folds `count` instances starting `offset` instances in, in rank order,
// into `out`.
int reduceRemote(HostCall& call, MessageStep& step, const Sides& sides,
                 std::vector<std::vector<uint8_t>>& incoming, const TypeLayout& type,
                 int64_t total, int64_t offset, int64_t count, int op, const Typed& out) {
  if (int error = step.finish()) return error;
  std::vector<Unpacked> contributions;
  contributions.reserve(incoming.size());
  for (const std::vector<uint8_t>& data : incoming)
    contributions.emplace_back(data.data(), type, total);
  int64_t skip = offset * type.extent();
  return reduceInto(call, op, out.typeHandle, type, count, sides.remoteSize,
                    [&](int i) { return contributions[size_t(i)].base() + skip; }, out.host,
                    out.guest);
}

// Posts on `step` one receive of as many bytes as `data` holds from every
// remote member and one send of `data` to each; returns the receive
// buffers, by remote rank, which hold the data once step.finish() returns.
std::vector<std::vector<uint8_t>> exchangeWithRemoteGroup(MessageStep& step, const Sides& sides,
                                                          const std::vector<uint8_t>& data) {
  std::vector<std::vector<uint8_t>> incoming(size_t(sides.remoteSize),
                                             std::vector<uint8_t>(data.size()));
  for (int j = 0; j < sides.remoteSize; ++j) {
    step.receive(sides.context, j, kCollectiveTag, incoming[size_t(j)].data(),
                 int64_t(data.size()));
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(j)], kCollectiveTag,
              data.data(), int64_t(data.size()));
  }
  return incoming;
}

// The blocks a member receives in one step, one from each remote member,
// each held in memory of its own until the step has finished and then
// unpacked where the receive buffer wants it.
class IncomingBlocks {
 public:
  explicit IncomingBlocks(int remoteSize)
      : targets_(size_t(remoteSize)), counts_(size_t(remoteSize)), data_(size_t(remoteSize)) {}

  // Checks remote member j's block, `count` instances `displ` extents into
  // `recv`, and posts its receive on `step`; returns 0 or the raised error.
  int post(HostCall& call, int comm, MessageStep& step, const Sides& sides, const Typed& recv,
           int j, int64_t displ, int64_t count) {
    if (int error = blockOf(call, comm, recv, displ, count, "receive", targets_[size_t(j)]))
      return error;
    counts_[size_t(j)] = count;
    std::vector<uint8_t>& data = data_[size_t(j)];
    data.resize(size_t(recv.type->size * count));
    step.receive(sides.context, j, kCollectiveTag, data.data(), int64_t(data.size()));
    return abi::kSuccess;
  }

  // Waits for the step, then unpacks every block.
  int finish(MessageStep& step, const TypeLayout& type) {
    if (int error = step.finish()) return error;
    for (size_t j = 0; j < data_.size(); ++j)
      unpackTyped(data_[j].data(), targets_[j], type, counts_[j]);
    return abi::kSuccess;
  }

 private:
  std::vector<uint8_t*> targets_;
  std::vector<int64_t> counts_;
  std::vector<std::vector<uint8_t>> data_;
};

}  // namespace

namespace synergy::mpi {

int roleOf(HostCall& call, int comm, int root, int remoteSize, Role& role) {
  if (root == abi::kRoot)
    role = Role::Root;
  else if (root == abi::kProcNull)
    role = Role::Idle;
  else if (root >= 0 && root < remoteSize)
    role = Role::Member;
  else
    return call.fail(comm, abi::kErrRoot,
                     "invalid root " + std::to_string(root) + " (remote group size " +
                         std::to_string(remoteSize) +
                         "; MPI_ROOT or MPI_PROC_NULL in the root's group)");
  return abi::kSuccess;
}

int refuseInPlace(HostCall& call, int comm, u32 addr, const char* role) {
  if (addr != abi::kInPlace) return abi::kSuccess;
  return call.fail(comm, abi::kErrArg,
                   std::string("MPI_IN_PLACE as the ") + role +
                       " buffer is not valid on an intercommunicator");
}

int intercommBarrier(HostCall& call, int comm) {
  Sides sides = sidesOf(call, comm);
  static const uint8_t nothing = 0;
  uint8_t sink[1];
  MessageStep step(call, sides.comm, comm);
  for (int j = 0; j < sides.remoteSize; ++j) {
    step.receive(sides.context, j, kCollectiveTag, sink, 0);
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(j)], kCollectiveTag,
              &nothing, 0);
  }
  return step.finish();
}

int intercommBcast(HostCall& call, u32 buffer, int count, int type, int root, int comm) {
  Sides sides = sidesOf(call, comm);
  Role role;
  if (int error = roleOf(call, comm, root, sides.remoteSize, role)) return error;
  if (role == Role::Idle) return abi::kSuccess;
  Typed buf;
  if (int error = resolve(call, comm, buffer, count, type, "broadcast", buf)) return error;
  MessageStep step(call, sides.comm, comm);
  if (role == Role::Root) {
    std::vector<uint8_t> data = packed(buf.host, *buf.type, count);
    for (int worldRank : sides.comm->worldRanks)
      step.send(sides.context, sides.me, worldRank, kCollectiveTag, data.data(),
                int64_t(data.size()));
    return step.finish();
  }
  std::vector<uint8_t> data(size_t(buf.type->size * count));
  step.receive(sides.context, root, kCollectiveTag, data.data(), int64_t(data.size()));
  if (int error = step.finish()) return error;
  unpackTyped(data.data(), buf.host, *buf.type, count);
  return abi::kSuccess;
}

int intercommReduce(HostCall& call, u32 sendbuf, u32 recvbuf, int count, int type, int op,
                    int root, int comm) {
  Sides sides = sidesOf(call, comm);
  Role role;
  if (int error = roleOf(call, comm, root, sides.remoteSize, role)) return error;
  if (role == Role::Idle) return abi::kSuccess;
  Typed buf;
  bool isRoot = role == Role::Root;
  if (int error = resolve(call, comm, isRoot ? recvbuf : sendbuf, count, type,
                          isRoot ? "receive" : "send", buf))
    return error;
  if (int error = checkOp(call, comm, op, *buf.type)) return error;
  MessageStep step(call, sides.comm, comm);
  if (!isRoot) {
    std::vector<uint8_t> data = packed(buf.host, *buf.type, count);
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(root)], kCollectiveTag,
              data.data(), int64_t(data.size()));
    return step.finish();
  }
  std::vector<std::vector<uint8_t>> incoming(size_t(sides.remoteSize),
                                             std::vector<uint8_t>(size_t(buf.type->size * count)));
  for (int j = 0; j < sides.remoteSize; ++j)
    step.receive(sides.context, j, kCollectiveTag, incoming[size_t(j)].data(),
                 int64_t(incoming[size_t(j)].size()));
  return reduceRemote(call, step, sides, incoming, *buf.type, count, 0, count, op, buf);
}

int intercommAllreduce(HostCall& call, u32 sendbuf, u32 recvbuf, int count, int type, int op,
                       int comm) {
  Sides sides = sidesOf(call, comm);
  Typed send, recv;
  if (int error = resolve(call, comm, sendbuf, count, type, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, count, type, "receive", recv)) return error;
  if (int error = checkOp(call, comm, op, *send.type)) return error;
  std::vector<uint8_t> data = packed(send.host, *send.type, count);
  MessageStep step(call, sides.comm, comm);
  std::vector<std::vector<uint8_t>> incoming = exchangeWithRemoteGroup(step, sides, data);
  return reduceRemote(call, step, sides, incoming, *recv.type, count, 0, count, op, recv);
}

int intercommGather(HostCall& call, u32 sendbuf, int sendcount, int sendtype, u32 recvbuf,
                    u32 recvcounts, u32 displs, int recvcount, int recvtype, int root, int comm,
                    bool varying) {
  Sides sides = sidesOf(call, comm);
  Role role;
  if (int error = roleOf(call, comm, root, sides.remoteSize, role)) return error;
  if (role == Role::Idle) return abi::kSuccess;
  MessageStep step(call, sides.comm, comm);
  if (role == Role::Member) {
    Typed send;
    if (int error = resolve(call, comm, sendbuf, sendcount, sendtype, "send", send)) return error;
    std::vector<uint8_t> data = packed(send.host, *send.type, sendcount);
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(root)], kCollectiveTag,
              data.data(), int64_t(data.size()));
    return step.finish();
  }
  Typed recv;
  if (int error = resolve(call, comm, recvbuf, 0, recvtype, "receive", recv)) return error;
  const int32_t* counts = nullptr;
  const int32_t* offsets = nullptr;
  if (varying) {
    if (int error = intArray(call, comm, recvcounts, sides.remoteSize, "recvcounts", counts))
      return error;
    if (int error = intArray(call, comm, displs, sides.remoteSize, "displs", offsets)) return error;
  }
  IncomingBlocks incoming(sides.remoteSize);
  for (int j = 0; j < sides.remoteSize; ++j) {
    int64_t n = varying ? counts[j] : recvcount;
    int64_t displ = varying ? offsets[j] : int64_t(j) * recvcount;
    if (int error = incoming.post(call, comm, step, sides, recv, j, displ, n)) return error;
  }
  return incoming.finish(step, *recv.type);
}

int intercommScatter(HostCall& call, u32 sendbuf, u32 sendcounts, u32 displs, int sendcount,
                     int sendtype, u32 recvbuf, int recvcount, int recvtype, int root, int comm,
                     bool varying) {
  Sides sides = sidesOf(call, comm);
  Role role;
  if (int error = roleOf(call, comm, root, sides.remoteSize, role)) return error;
  if (role == Role::Idle) return abi::kSuccess;
  MessageStep step(call, sides.comm, comm);
  if (role == Role::Member) {
    Typed recv;
    if (int error = resolve(call, comm, recvbuf, recvcount, recvtype, "receive", recv))
      return error;
    std::vector<uint8_t> data(size_t(recv.type->size * recvcount));
    step.receive(sides.context, root, kCollectiveTag, data.data(), int64_t(data.size()));
    if (int error = step.finish()) return error;
    unpackTyped(data.data(), recv.host, *recv.type, recvcount);
    return abi::kSuccess;
  }
  Typed send;
  if (int error = resolve(call, comm, sendbuf, 0, sendtype, "send", send)) return error;
  const int32_t* counts = nullptr;
  const int32_t* offsets = nullptr;
  if (varying) {
    if (int error = intArray(call, comm, sendcounts, sides.remoteSize, "sendcounts", counts))
      return error;
    if (int error = intArray(call, comm, displs, sides.remoteSize, "displs", offsets)) return error;
  }
  std::vector<std::vector<uint8_t>> outgoing(size_t(sides.remoteSize));
  for (int j = 0; j < sides.remoteSize; ++j) {
    int64_t n = varying ? counts[j] : sendcount;
    int64_t displ = varying ? offsets[j] : int64_t(j) * sendcount;
    uint8_t* block;
    if (int error = blockOf(call, comm, send, displ, n, "send", block)) return error;
    outgoing[size_t(j)] = packed(block, *send.type, n);
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(j)], kCollectiveTag,
              outgoing[size_t(j)].data(), int64_t(outgoing[size_t(j)].size()));
  }
  return step.finish();
}

int intercommAllgather(HostCall& call, u32 sendbuf, int sendcount, int sendtype, u32 recvbuf,
                       u32 recvcounts, u32 displs, int recvcount, int recvtype, int comm,
                       bool varying) {
  Sides sides = sidesOf(call, comm);
  Typed send, recv;
  if (int error = resolve(call, comm, sendbuf, sendcount, sendtype, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, 0, recvtype, "receive", recv)) return error;
  const int32_t* counts = nullptr;
  const int32_t* offsets = nullptr;
  if (varying) {
    if (int error = intArray(call, comm, recvcounts, sides.remoteSize, "recvcounts", counts))
      return error;
    if (int error = intArray(call, comm, displs, sides.remoteSize, "displs", offsets)) return error;
  }
  std::vector<uint8_t> data = packed(send.host, *send.type, sendcount);
  IncomingBlocks incoming(sides.remoteSize);
  MessageStep step(call, sides.comm, comm);
  for (int j = 0; j < sides.remoteSize; ++j) {
    int64_t n = varying ? counts[j] : recvcount;
    int64_t displ = varying ? offsets[j] : int64_t(j) * recvcount;
    if (int error = incoming.post(call, comm, step, sides, recv, j, displ, n)) return error;
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(j)], kCollectiveTag,
              data.data(), int64_t(data.size()));
  }
  return incoming.finish(step, *recv.type);
}

int intercommAlltoall(HostCall& call, u32 sendbuf, u32 sendcounts, u32 sdispls, int sendcount,
                      int sendtype, u32 recvbuf, u32 recvcounts, u32 rdispls, int recvcount,
                      int recvtype, int comm, bool varying) {
  Sides sides = sidesOf(call, comm);
  Typed send, recv;
  if (int error = resolve(call, comm, sendbuf, 0, sendtype, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, 0, recvtype, "receive", recv)) return error;
  const int32_t *sCounts = nullptr, *sOffsets = nullptr, *rCounts = nullptr, *rOffsets = nullptr;
  if (varying) {
    int n = sides.remoteSize;
    if (int error = intArray(call, comm, sendcounts, n, "sendcounts", sCounts)) return error;
    if (int error = intArray(call, comm, sdispls, n, "sdispls", sOffsets)) return error;
    if (int error = intArray(call, comm, recvcounts, n, "recvcounts", rCounts)) return error;
    if (int error = intArray(call, comm, rdispls, n, "rdispls", rOffsets)) return error;
  }
  IncomingBlocks incoming(sides.remoteSize);
  std::vector<std::vector<uint8_t>> outgoing(size_t(sides.remoteSize));
  MessageStep step(call, sides.comm, comm);
  for (int j = 0; j < sides.remoteSize; ++j) {
    int64_t sn = varying ? sCounts[j] : sendcount;
    int64_t sd = varying ? sOffsets[j] : int64_t(j) * sendcount;
    int64_t rn = varying ? rCounts[j] : recvcount;
    int64_t rd = varying ? rOffsets[j] : int64_t(j) * recvcount;
    uint8_t* sendBlock;
    if (int error = blockOf(call, comm, send, sd, sn, "send", sendBlock)) return error;
    if (int error = incoming.post(call, comm, step, sides, recv, j, rd, rn)) return error;
    outgoing[size_t(j)] = packed(sendBlock, *send.type, sn);
    step.send(sides.context, sides.me, sides.comm->worldRanks[size_t(j)], kCollectiveTag,
              outgoing[size_t(j)].data(), int64_t(outgoing[size_t(j)].size()));
  }
  return incoming.finish(step, *recv.type);
}

int intercommReduceScatter(HostCall& call, u32 sendbuf, u32 recvbuf, u32 recvcounts,
                           int recvcount, int type, int op, int comm) {
  Sides sides = sidesOf(call, comm);
  // The vector of the remote group's members, which each local member
  // receives whole and reduces its block of: as long as the local group's
  // blocks together.
  int64_t total = int64_t(sides.localSize) * recvcount;
  int64_t offset = int64_t(sides.me) * recvcount;
  int64_t mine = recvcount;
  if (recvcounts) {
    const int32_t* counts;
    if (int error = intArray(call, comm, recvcounts, sides.localSize, "recvcounts", counts))
      return error;
    total = offset = 0;
    for (int i = 0; i < sides.localSize; ++i) {
      if (counts[i] < 0)
        return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(counts[i]));
      if (i < sides.me) offset += counts[i];
      total += counts[i];
    }
    mine = counts[sides.me];
  }
  Typed send, recv;
  if (int error = resolve(call, comm, sendbuf, total, type, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, mine, type, "receive", recv)) return error;
  if (int error = checkOp(call, comm, op, *send.type)) return error;
  std::vector<uint8_t> data = packed(send.host, *send.type, total);
  MessageStep step(call, sides.comm, comm);
  std::vector<std::vector<uint8_t>> incoming = exchangeWithRemoteGroup(step, sides, data);
  return reduceRemote(call, step, sides, incoming, *recv.type, total, offset, mine, op, recv);
}

}  // namespace synergy::mpi
