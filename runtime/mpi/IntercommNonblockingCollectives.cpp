//===- IntercommNonblockingCollectives.cpp - MPI_I* on intercommunicators -===//
//
// The nonblocking collectives whose intercommunicator form (MPI-3.1 §5.2.2,
// §5.12) moves data differently from the intracommunicator one: the rooted
// ones, where the root passes MPI_ROOT, the rest of its group
// MPI_PROC_NULL and the other group the root's rank in the remote group;
// and the reductions, where each group gets the result of the other
// group's contributions.
//
// They build the same one-round schedules as NonblockingCollectives.cpp
// and complete the same way. A ScheduleBuilder on an intercommunicator
// addresses the remote group: size() is the remote group's size and me()
// this rank's place in the local group, the source rank the other side's
// receives match. So only who sends what to whom differs here. The barrier
// and the allgather and alltoall forms, whose schedule is the same with
// the remote group as every member's peers, stay with the
// intracommunicator code.
//
// Every member of both groups starts the collective, the idle members of
// the root's group included, so the per-communicator sequence numbers
// that tag the messages stay in step on both sides.
//
//===----------------------------------------------------------------------===//
#include "mpi/CollectiveEngine.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// The root's blocks of a rooted gather or scatter, one per remote member,
// in the buffer at `addr`: as the guest arrays at `countsAddr` and
// `displsAddr` say when `varying`, otherwise `count` instances each, back
// to back. Returns 0 or the raised error.
int rootBlocks(HostCall& call, int comm, int remoteSize, u32 addr, bool varying, u32 countsAddr,
               u32 displsAddr, int count, int typeHandle, const char* role,
               std::vector<TypedBuffer>& blocks) {
  if (int error = refuseInPlace(call, comm, addr, role)) return error;
  const int32_t* counts = nullptr;
  const int32_t* displs = nullptr;
  if (varying) {
    std::string what = std::string(role) + " counts";
    if (!(counts = intArray(call, comm, countsAddr, remoteSize, what.c_str()))) return abi::kErrArg;
    if (!(displs = intArray(call, comm, displsAddr, remoteSize, "displacements")))
      return abi::kErrArg;
  } else if (count < 0) {
    return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  }
  const Layout& type = call.rank.type(typeHandle);
  if (!type) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  blocks.resize(size_t(remoteSize));
  for (int j = 0; j < remoteSize; ++j) {
    int error = varying ? resolveBlock(call, comm, addr, counts, displs, j, typeHandle, role,
                                       blocks[size_t(j)])
                        : resolve(call, comm, int64_t(addr) + int64_t(j) * count * type->extent(),
                                  count, typeHandle, role, blocks[size_t(j)]);
    if (error) return error;
  }
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

u32 intercommIbcast(HostCall& call, int comm, CommHandle& handle, u32 buffer, int count, int type,
                    int root, u32 requestOut) {
  Role role;
  if (int error = roleOf(call, comm, root, handle.comm->size(), role)) return error;
  ScheduleBuilder schedule(call, comm, handle, CollectiveKind::Bcast);
  if (role != Role::Idle) {
    TypedBuffer buf;
    if (int error = refuseInPlace(call, comm, buffer, "broadcast")) return error;
    if (int error = resolve(call, comm, buffer, count, type, "broadcast", buf)) return error;
    if (role == Role::Root)
      for (int to = 0; to < schedule.size(); ++to) schedule.send(to, buf.host, buf.type, count);
    else
      schedule.receive(root, buf.host, buf.type, count);
  }
  return schedule.start(requestOut);
}

u32 intercommIreduce(HostCall& call, int comm, CommHandle& handle, u32 sendbuf, u32 recvbuf,
                     int count, int type, int op, int root, u32 requestOut) {
  Role role;
  if (int error = roleOf(call, comm, root, handle.comm->size(), role)) return error;
  ScheduleBuilder schedule(call, comm, handle, CollectiveKind::Reduce);
  if (role == Role::Idle) return schedule.start(requestOut);
  bool isRoot = role == Role::Root;
  u32 addr = isRoot ? recvbuf : sendbuf;
  const char* what = isRoot ? "receive" : "send";
  TypedBuffer buf;
  if (int error = refuseInPlace(call, comm, addr, what)) return error;
  if (int error = resolve(call, comm, addr, count, type, what, buf)) return error;
  if (int error = checkOp(call, comm, op, *buf.type)) return error;
  if (!isRoot) {
    schedule.send(root, buf.host, buf.type, count);
    return schedule.start(requestOut);
  }
  std::vector<const uint8_t*> sources;
  for (int from = 0; from < schedule.size(); ++from) {
    uint8_t* staged = schedule.stage(*buf.type, count);
    schedule.receive(from, staged, buf.type, count);
    sources.push_back(staged);
  }
  return schedule.start(requestOut, foldInto(op, buf, std::move(sources)));
}

u32 intercommIallreduce(HostCall& call, int comm, CommHandle& handle, u32 sendbuf, u32 recvbuf,
                        int count, int type, int op, u32 requestOut) {
  TypedBuffer send, recv;
  if (int error = refuseInPlace(call, comm, sendbuf, "send")) return error;
  if (int error = resolve(call, comm, sendbuf, count, type, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, count, type, "receive", recv)) return error;
  if (int error = checkOp(call, comm, op, *recv.type)) return error;
  ScheduleBuilder schedule(call, comm, handle, CollectiveKind::Allreduce);
  std::vector<const uint8_t*> sources;
  for (int peer = 0; peer < schedule.size(); ++peer) {
    uint8_t* staged = schedule.stage(*recv.type, count);
    schedule.receive(peer, staged, recv.type, count);
    sources.push_back(staged);
    schedule.send(peer, send.host, send.type, count);
  }
  return schedule.start(requestOut, foldInto(op, recv, std::move(sources)));
}

u32 intercommIgather(HostCall& call, int comm, CommHandle& handle, u32 sendbuf, int sendcount,
                     int sendtype, u32 recvbuf, u32 recvcounts, u32 displs, int recvcount,
                     int recvtype, int root, bool varying, u32 requestOut) {
  Role role;
  if (int error = roleOf(call, comm, root, handle.comm->size(), role)) return error;
  ScheduleBuilder schedule(call, comm, handle,
                           varying ? CollectiveKind::Gatherv : CollectiveKind::Gather);
  if (role == Role::Member) {
    TypedBuffer send;
    if (int error = refuseInPlace(call, comm, sendbuf, "send")) return error;
    if (int error = resolve(call, comm, sendbuf, sendcount, sendtype, "send", send)) return error;
    schedule.send(root, send.host, send.type, sendcount);
  } else if (role == Role::Root) {
    std::vector<TypedBuffer> blocks;
    if (int error = rootBlocks(call, comm, schedule.size(), recvbuf, varying, recvcounts, displs,
                               recvcount, recvtype, "receive", blocks))
      return error;
    for (int from = 0; from < schedule.size(); ++from)
      schedule.receive(from, blocks[size_t(from)].host, blocks[size_t(from)].type,
                       blocks[size_t(from)].count);
  }
  return schedule.start(requestOut);
}

u32 intercommIscatter(HostCall& call, int comm, CommHandle& handle, u32 sendbuf, u32 sendcounts,
                      u32 displs, int sendcount, int sendtype, u32 recvbuf, int recvcount,
                      int recvtype, int root, bool varying, u32 requestOut) {
  Role role;
  if (int error = roleOf(call, comm, root, handle.comm->size(), role)) return error;
  ScheduleBuilder schedule(call, comm, handle,
                           varying ? CollectiveKind::Scatterv : CollectiveKind::Scatter);
  if (role == Role::Member) {
    TypedBuffer recv;
    if (int error = refuseInPlace(call, comm, recvbuf, "receive")) return error;
    if (int error = resolve(call, comm, recvbuf, recvcount, recvtype, "receive", recv))
      return error;
    schedule.receive(root, recv.host, recv.type, recvcount);
  } else if (role == Role::Root) {
    std::vector<TypedBuffer> blocks;
    if (int error = rootBlocks(call, comm, schedule.size(), sendbuf, varying, sendcounts, displs,
                               sendcount, sendtype, "send", blocks))
      return error;
    for (int to = 0; to < schedule.size(); ++to)
      schedule.send(to, blocks[size_t(to)].host, blocks[size_t(to)].type,
                    blocks[size_t(to)].count);
  }
  return schedule.start(requestOut);
}

u32 intercommIreduceScatter(HostCall& call, int comm, CommHandle& handle, u32 sendbuf, u32 recvbuf,
                            u32 recvcounts, int recvcount, int type, int op, u32 requestOut) {
  // Each remote member sends its whole vector, as long as the local
  // group's blocks together, and every local member folds its own block of
  // them (MPI-3.1 §5.10.1).
  int localSize = int(handle.comm->inter->localWorldRanks.size());
  int me = handle.comm->rankOfWorld[call.rank.worldRank];
  int64_t total = int64_t(localSize) * recvcount;
  int64_t offset = int64_t(me) * recvcount;
  int64_t mine = recvcount;
  if (recvcounts) {
    const int32_t* counts = intArray(call, comm, recvcounts, localSize, "receive counts");
    if (!counts) return abi::kErrArg;
    total = offset = 0;
    for (int i = 0; i < localSize; ++i) {
      if (counts[i] < 0)
        return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(counts[i]));
      if (i < me) offset += counts[i];
      total += counts[i];
    }
    mine = counts[me];
  } else if (recvcount < 0) {
    return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(recvcount));
  }
  if (total > INT32_MAX) return call.fail(comm, abi::kErrCount, "counts add up beyond 2^31");
  TypedBuffer send, recv;
  if (int error = refuseInPlace(call, comm, sendbuf, "send")) return error;
  if (int error = resolve(call, comm, sendbuf, int(total), type, "send", send)) return error;
  if (int error = resolve(call, comm, recvbuf, int(mine), type, "receive", recv)) return error;
  if (int error = checkOp(call, comm, op, *send.type)) return error;
  ScheduleBuilder schedule(call, comm, handle,
                           recvcounts ? CollectiveKind::ReduceScatter
                                      : CollectiveKind::ReduceScatterBlock);
  int64_t skip = offset * send.type->extent();
  std::vector<const uint8_t*> sources;
  for (int peer = 0; peer < schedule.size(); ++peer) {
    uint8_t* staged = schedule.stage(*send.type, total);
    schedule.receive(peer, staged, send.type, total);
    sources.push_back(staged + skip);
    schedule.send(peer, send.host, send.type, total);
  }
  return schedule.start(requestOut, foldInto(op, recv, std::move(sources)));
}

}  // namespace synergy::mpi
