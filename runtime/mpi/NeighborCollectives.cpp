//===- NeighborCollectives.cpp - MPI_Neighbor_* and MPI_Ineighbor_* -------===//
//
// The neighbourhood collectives of MPI-3 on Cartesian, graph and
// distributed-graph communicators: each member sends to its out-neighbours
// and receives from its in-neighbours only (GraphTopologies.h says who they
// are and in which order). They are built like the nonblocking collectives
// (NonblockingCollectives.h): every message is posted before the call
// returns, and the blocking forms are the nonblocking ones completed on the
// spot. Nothing is folded, so there is no local step.
//
// A neighbour that is MPI_PROC_NULL (the edge of a non-periodic Cartesian
// dimension) moves nothing: its receive block is left as it was. Every
// block is resolved before the first message goes, so a bad argument
// raises its error with nothing sent.
//
//===----------------------------------------------------------------------===//
#include "mpi/GraphTopologies.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"
#include "util/FunctionRef.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Resolves one block of a buffer: its index to a TypedBuffer; returns 0
// or the raised error.
using BlockResolver = synergy::util::FunctionRef<int(int block, TypedBuffer& out)>;

// The body of every neighbour collective. `requestOut` 0 is a blocking
// call.
u32 exchangeWithNeighbors(HostCall& call, int comm, CollectiveKind kind, u32 requestOut,
                          BlockResolver sendBlock, BlockResolver receiveBlock) {
  CommHandle* handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (requestOut && !call.bytes(requestOut, 4))
    return call.fail(comm, abi::kErrArg, "request pointer outside linear memory");
  NeighborExchange neighbors;
  if (int error = neighborsOf(call, comm, neighbors)) return u32(error);
  std::vector<TypedBuffer> sends(neighbors.sends.size()), receives(neighbors.receives.size());
  for (size_t i = 0; i < sends.size(); ++i)
    if (neighbors.sends[i].peer != abi::kProcNull)
      if (int error = sendBlock(neighbors.sends[i].block, sends[i])) return u32(error);
  for (size_t i = 0; i < receives.size(); ++i)
    if (neighbors.receives[i].peer != abi::kProcNull)
      if (int error = receiveBlock(neighbors.receives[i].block, receives[i])) return u32(error);
  ScheduleBuilder schedule(call, comm, *handle, kind);
  for (size_t i = 0; i < sends.size(); ++i)
    if (neighbors.sends[i].peer != abi::kProcNull)
      schedule.send(neighbors.sends[i].peer, sends[i].host, sends[i].type, sends[i].count);
  for (size_t i = 0; i < receives.size(); ++i)
    if (neighbors.receives[i].peer != abi::kProcNull)
      schedule.receive(neighbors.receives[i].peer, receives[i].host, receives[i].type,
                       receives[i].count);
  return schedule.start(requestOut);
}

// The degrees of the caller in `comm`: how many blocks the v and w forms'
// arrays have. Returns 0 or the raised error.
int degreesOf(HostCall& call, int comm, int& indegree, int& outdegree) {
  NeighborExchange neighbors;
  if (int error = neighborsOf(call, comm, neighbors)) return error;
  indegree = int(neighbors.receives.size());
  outdegree = int(neighbors.sends.size());
  return abi::kSuccess;
}

// Block `block` of a buffer of equal blocks of `count` instances of `type`.
int uniformBlock(HostCall& call, int comm, u32 addr, int count, int type, int block,
                 const char* role, TypedBuffer& out) {
  const Layout& layout = call.rank.type(type);
  if (!layout) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(type));
  return resolve(call, comm, int64_t(addr) + int64_t(block) * count * layout->extent(), count, type,
                 role, out);
}

u32 allgather(HostCall& call, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
              u32 recvcount, u32 recvtype, u32 comm, u32 requestOut) {
  int c = int(comm);
  return exchangeWithNeighbors(
      call, c, CollectiveKind::NeighborAllgather, requestOut,
      [&](int, TypedBuffer& out) {
        return resolve(call, c, sendbuf, int(sendcount), int(sendtype), "send", out);
      },
      [&](int block, TypedBuffer& out) {
        return uniformBlock(call, c, recvbuf, int(recvcount), int(recvtype), block, "receive", out);
      });
}

u32 allgatherv(HostCall& call, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
               u32 recvcounts, u32 displs, u32 recvtype, u32 comm, u32 requestOut) {
  int c = int(comm), indegree = 0, outdegree = 0;
  if (int error = degreesOf(call, c, indegree, outdegree)) return u32(error);
  const int32_t* counts = intArray(call, c, recvcounts, indegree, "receive counts");
  const int32_t* offsets = counts ? intArray(call, c, displs, indegree, "displacements") : nullptr;
  if (!offsets) return abi::kErrArg;
  return exchangeWithNeighbors(
      call, c, CollectiveKind::NeighborAllgather, requestOut,
      [&](int, TypedBuffer& out) {
        return resolve(call, c, sendbuf, int(sendcount), int(sendtype), "send", out);
      },
      [&](int block, TypedBuffer& out) {
        return resolveBlock(call, c, recvbuf, counts, offsets, block, int(recvtype), "receive", out);
      });
}

u32 alltoall(HostCall& call, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
             u32 recvcount, u32 recvtype, u32 comm, u32 requestOut) {
  int c = int(comm);
  return exchangeWithNeighbors(
      call, c, CollectiveKind::NeighborAlltoall, requestOut,
      [&](int block, TypedBuffer& out) {
        return uniformBlock(call, c, sendbuf, int(sendcount), int(sendtype), block, "send", out);
      },
      [&](int block, TypedBuffer& out) {
        return uniformBlock(call, c, recvbuf, int(recvcount), int(recvtype), block, "receive", out);
      });
}

u32 alltoallv(HostCall& call, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtype,
              u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtype, u32 comm, u32 requestOut) {
  int c = int(comm), indegree = 0, outdegree = 0;
  if (int error = degreesOf(call, c, indegree, outdegree)) return u32(error);
  const int32_t* scounts = intArray(call, c, sendcounts, outdegree, "send counts");
  const int32_t* soffsets = scounts ? intArray(call, c, sdispls, outdegree, "send displacements")
                                    : nullptr;
  const int32_t* rcounts = soffsets ? intArray(call, c, recvcounts, indegree, "receive counts")
                                    : nullptr;
  const int32_t* roffsets =
      rcounts ? intArray(call, c, rdispls, indegree, "receive displacements") : nullptr;
  if (!roffsets) return abi::kErrArg;
  return exchangeWithNeighbors(
      call, c, CollectiveKind::NeighborAlltoall, requestOut,
      [&](int block, TypedBuffer& out) {
        return resolveBlock(call, c, sendbuf, scounts, soffsets, block, int(sendtype), "send", out);
      },
      [&](int block, TypedBuffer& out) {
        return resolveBlock(call, c, recvbuf, rcounts, roffsets, block, int(recvtype), "receive",
                            out);
      });
}

// MPI_Aint is 32 bits on wasm32, so the byte displacements are int arrays.
u32 alltoallw(HostCall& call, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtypes,
              u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtypes, u32 comm, u32 requestOut) {
  int c = int(comm), indegree = 0, outdegree = 0;
  if (int error = degreesOf(call, c, indegree, outdegree)) return u32(error);
  const int32_t* arrays[6] = {};
  const std::tuple<u32, int, const char*> wanted[6] = {
      {sendcounts, outdegree, "send counts"},   {sdispls, outdegree, "send displacements"},
      {sendtypes, outdegree, "send datatypes"}, {recvcounts, indegree, "receive counts"},
      {rdispls, indegree, "receive displacements"}, {recvtypes, indegree, "receive datatypes"}};
  for (int i = 0; i < 6; ++i) {
    auto [addr, n, what] = wanted[i];
    if (!(arrays[i] = intArray(call, c, addr, n, what))) return abi::kErrArg;
  }
  auto block = [&](u32 base, const int32_t* counts, const int32_t* displs, const int32_t* types,
                   const char* role) {
    return [=, &call](int index, TypedBuffer& out) {
      return resolve(call, c, int64_t(base) + displs[index], counts[index], types[index], role, out);
    };
  };
  auto sendBlock = block(sendbuf, arrays[0], arrays[1], arrays[2], "send");
  auto receiveBlock = block(recvbuf, arrays[3], arrays[4], arrays[5], "receive");
  return exchangeWithNeighbors(call, c, CollectiveKind::NeighborAlltoall, requestOut, sendBlock,
                               receiveBlock);
}

// The request pointer of a nonblocking form, which must be one.
bool requestPointerOk(HostCall& call, u32 requestOut) {
  return requestOut && call.bytes(requestOut, 4);
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Neighbor_allgather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                  u32 recvbuf, u32 recvcount, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Neighbor_allgather");
  return allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0);
}

u32 Z_envZ_MPI_Ineighbor_allgather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                   u32 recvbuf, u32 recvcount, u32 recvtype, u32 comm,
                                   u32 requestOut) {
  HostCall call(instance, "MPI_Ineighbor_allgather");
  if (!requestPointerOk(call, requestOut))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  return allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                   requestOut);
}

u32 Z_envZ_MPI_Neighbor_allgatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                   u32 recvbuf, u32 recvcounts, u32 displs, u32 recvtype,
                                   u32 comm) {
  HostCall call(instance, "MPI_Neighbor_allgatherv");
  return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm, 0);
}

u32 Z_envZ_MPI_Ineighbor_allgatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                    u32 recvbuf, u32 recvcounts, u32 displs, u32 recvtype,
                                    u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ineighbor_allgatherv");
  if (!requestPointerOk(call, requestOut))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                    comm, requestOut);
}

u32 Z_envZ_MPI_Neighbor_alltoall(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                 u32 recvbuf, u32 recvcount, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Neighbor_alltoall");
  return alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, 0);
}

u32 Z_envZ_MPI_Ineighbor_alltoall(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype,
                                  u32 recvbuf, u32 recvcount, u32 recvtype, u32 comm,
                                  u32 requestOut) {
  HostCall call(instance, "MPI_Ineighbor_alltoall");
  if (!requestPointerOk(call, requestOut))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  return alltoall(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  requestOut);
}

u32 Z_envZ_MPI_Neighbor_alltoallv(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls,
                                  u32 sendtype, u32 recvbuf, u32 recvcounts, u32 rdispls,
                                  u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Neighbor_alltoallv");
  return alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, 0);
}

u32 Z_envZ_MPI_Ineighbor_alltoallv(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls,
                                   u32 sendtype, u32 recvbuf, u32 recvcounts, u32 rdispls,
                                   u32 recvtype, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ineighbor_alltoallv");
  if (!requestPointerOk(call, requestOut))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  return alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm, requestOut);
}

u32 Z_envZ_MPI_Neighbor_alltoallw(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls,
                                  u32 sendtypes, u32 recvbuf, u32 recvcounts, u32 rdispls,
                                  u32 recvtypes, u32 comm) {
  HostCall call(instance, "MPI_Neighbor_alltoallw");
  return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, 0);
}

u32 Z_envZ_MPI_Ineighbor_alltoallw(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls,
                                   u32 sendtypes, u32 recvbuf, u32 recvcounts, u32 rdispls,
                                   u32 recvtypes, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ineighbor_alltoallw");
  if (!requestPointerOk(call, requestOut))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, requestOut);
}

}  // extern "C"
