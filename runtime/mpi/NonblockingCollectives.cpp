//===- NonblockingCollectives.cpp - MPI_Ibarrier, MPI_Iallreduce, ... -----===//
//
// Host functions for the nonblocking collectives of MPI-3, and the steps
// that complete them.
//
// The blocking collectives meet in per-communicator slots and wait for one
// another, which a nonblocking call must not do: a rank may start one,
// then send, receive or start other collectives, and only later wait. So
// each call here turns into point-to-point messages, all posted before it
// returns, in one round: every member sends its contribution straight to
// the members that need it (the buffered way, copied as the send starts)
// and posts a receive for every contribution it needs. Nothing waits on
// anything but the arrival of those messages, so any interleaving with
// other traffic that MPI allows completes.
//
// The messages travel on the communicator's context with a bit set that
// no communicator's own context has (nor the cross-host collectives' bit),
// so they never match the program's receives, and are tagged with the
// collective's kind and its sequence number on this communicator: MPI
// requires every member to start the nonblocking collectives of a
// communicator in the same order, so the k-th of each member meets the
// k-th of the others even with several in flight.
//
// Reductions stage every member's contribution (the caller's own copied at
// the call, so MPI_IN_PLACE and the receive buffer may coincide) and fold
// them in rank order when the last has arrived, as the blocking forms do,
// so every rank computes bit-identical results. The flat, one-round
// exchange costs size^2 small messages for the all-to-all patterns; the
// jobs on one host that this runtime runs keep that small.
//
// On an intercommunicator the same builder addresses the remote group, so
// the barrier and the allgather and alltoall forms run unchanged; the
// rooted forms and the reductions have schedules of their own there
// (IntercommNonblockingCollectives.cpp), and the scans are not defined.
//
// Across hosts the same messages cross through the peer link like any
// point-to-point message, so nothing changes in how they complete. That
// flat exchange is not locality-aware: a member's message to each member
// on another host crosses on its own, where the blocking forms send at
// most one message from a host to each other host per step.
//
//===----------------------------------------------------------------------===//
#include "mpi/NonblockingCollectives.h"

#include "mpi/CollectiveEngine.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/RequestPool.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Nonblocking collective messages carry this bit in their context (the
// cross-host collectives use bit 31).
constexpr uint32_t kNonblockingContextBit = 1u << 30;
// A tag is the collective's kind in its low bits and its sequence number
// above them.
constexpr int kKindBits = 5;
constexpr uint32_t kSequenceMask = (1u << (31 - kKindBits)) - 1;

}  // namespace

namespace synergy::mpi {

ScheduleBuilder::ScheduleBuilder(HostCall& call, int commHandle, CommHandle& handle,
                                 CollectiveKind kind)
    : call_(call), schedule_(std::make_shared<CollectiveSchedule>()) {
  schedule_->commHandle = commHandle;
  schedule_->comm = handle.comm;
  comm_ = handle.comm.get();
  me_ = comm_->rankOfWorld[call.rank.worldRank];
  // Counted when the collective starts: one refused with MPI_ERRORS_RETURN
  // before it sent anything does not shift the sequence.
  uint32_t sequence = call.rank.nonblockingCollectivesOn[comm_->context];
  tag_ = int(((sequence & kSequenceMask) << kKindBits) | uint32_t(kind));
}

void ScheduleBuilder::send(int to, const uint8_t* data, const Layout& type, int64_t count) {
  auto request = newRequest();
  fill(*request, Request::Kind::Send, to, const_cast<uint8_t*>(data), type, count);
  request->senderRank = me_;
  request->buffered = true;
  call_.world().startSend(request, comm_->worldRanks[to]);
}

void ScheduleBuilder::receive(int from, uint8_t* data, const Layout& type, int64_t count) {
  auto request = newRequest();
  fill(*request, Request::Kind::Recv, from, data, type, count);
  call_.world().startRecv(request);
  schedule_->receives.push_back(std::move(request));
}

void ScheduleBuilder::sendWithinGroup(int to, const uint8_t* data, const Layout& type,
                                      int64_t count) {
  auto request = newRequest();
  fill(*request, Request::Kind::Send, to, const_cast<uint8_t*>(data), type, count);
  request->context = comm_->inter->localContext | kNonblockingContextBit;
  request->senderRank = me_;
  request->buffered = true;
  call_.world().startSend(request, comm_->inter->localWorldRanks[size_t(to)]);
}

void ScheduleBuilder::receiveWithinGroup(int from, uint8_t* data, const Layout& type,
                                         int64_t count) {
  auto request = newRequest();
  fill(*request, Request::Kind::Recv, from, data, type, count);
  request->context = comm_->inter->localContext | kNonblockingContextBit;
  call_.world().startRecv(request);
  schedule_->receives.push_back(std::move(request));
}

uint8_t* ScheduleBuilder::stage(const TypeLayout& type, int64_t count) {
  ByteSpan span = touchedSpan(type, count);
  std::vector<uint8_t>& block =
      schedule_->staging.emplace_back(size_t(span.empty() ? 0 : span.last - span.first));
  return block.data() - span.first;
}

uint8_t* ScheduleBuilder::stageCopy(const uint8_t* data, const TypeLayout& type, int64_t count) {
  uint8_t* staged = stage(type, count);
  copyTyped(data, type, count, staged, type, count, type.size * count);
  return staged;
}

u32 ScheduleBuilder::start(u32 requestOut, std::function<int(HostCall&)> localStep) {
  schedule_->localStep = std::move(localStep);
  ++call_.rank.nonblockingCollectivesOn[comm_->context];
  auto request = newRequest();
  request->kind = Request::Kind::Collective;
  request->owner = call_.rank.worldRank;
  request->comm = comm_;
  request->commHandle = schedule_->commHandle;
  request->schedule = std::move(schedule_);
  if (!requestOut) {
    // A blocking collective run as its nonblocking form: it completes here.
    advanceCollective(call_, *request);
    awaitCollective(call_, *request);
    return u32(request->statusError);
  }
  call_.store<int32_t>(requestOut, call_.rank.addRequest(request));
  advanceCollective(call_, *request);
  return abi::kSuccess;
}

void ScheduleBuilder::fill(Request& request, Request::Kind kind, int peer, uint8_t* data,
                           const Layout& type, int64_t count) {
  request.kind = kind;
  request.owner = call_.rank.worldRank;
  request.buffer = data;
  setType(request, type);
  request.count = count;
  request.bytes = type->size * count;
  request.context = comm_->context | kNonblockingContextBit;
  request.comm = comm_;
  request.freeableComm = schedule_->comm;
  request.commHandle = schedule_->commHandle;
  request.peer = peer;
  request.tag = tag_;
}

int resolve(HostCall& call, int comm, int64_t addr, int count, int typeHandle, const char* role,
            TypedBuffer& out) {
  if (count < 0) return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  const Layout& type = call.rank.type(typeHandle);
  if (!type) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  if (!type->committed) return call.fail(comm, abi::kErrType, "datatype is not committed");
  bool ok = addr >= 0 && addr <= int64_t(UINT32_MAX);
  if (ok) out.host = call.typedBuffer(uint32_t(addr), *type, count, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, std::string(role) + " buffer outside linear memory");
  out.type = type;
  out.count = count;
  out.typeHandle = typeHandle;
  return abi::kSuccess;
}

int resolveBlock(HostCall& call, int comm, u32 addr, const int32_t* counts, const int32_t* displs,
                 int index, int typeHandle, const char* role, TypedBuffer& out) {
  const Layout& type = call.rank.type(typeHandle);
  if (!type) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  return resolve(call, comm, int64_t(addr) + int64_t(displs[index]) * type->extent(),
                 counts[index], typeHandle, role, out);
}

const int32_t* intArray(HostCall& call, int comm, u32 addr, int n, const char* what) {
  auto* array = reinterpret_cast<const int32_t*>(call.bytes(addr, uint64_t(n) * 4));
  if (!array) call.fail(comm, abi::kErrArg, std::string(what) + " outside linear memory");
  return array;
}

}  // namespace synergy::mpi

namespace {

// Checks the communicator and the request pointer every call takes;
// returns 0 or the raised error.
int checkCall(HostCall& call, int comm, u32 requestOut, CommHandle*& handle) {
  handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (!requestOut || !call.bytes(requestOut, 4))
    return call.fail(comm, abi::kErrArg, "request pointer outside linear memory");
  return abi::kSuccess;
}

// The scans have no intercommunicator form (MPI-3.1 §5.11).
int refuseIntercomm(HostCall& call, int comm, const CommHandle& handle) {
  if (!handle.comm->inter) return abi::kSuccess;
  return call.fail(comm, abi::kErrComm,
                   std::string(call.name) + " is not defined on an intercommunicator");
}

// On an intercommunicator, the blocks of the allgather and alltoall forms
// come from and go to the remote group, so MPI_IN_PLACE has no meaning.
int refuseInPlaceOnIntercomm(HostCall& call, int comm, const CommHandle& handle, u32 sendbuf) {
  return handle.comm->inter ? refuseInPlace(call, comm, sendbuf, "send") : abi::kSuccess;
}

int checkRoot(HostCall& call, int comm, int root, const CommHandle& handle) {
  if (root < 0 || root >= handle.comm->size())
    return call.fail(comm, abi::kErrRoot, "invalid root " + std::to_string(root));
  return abi::kSuccess;
}

// The counts and displacements of a plain form's blocks: `count` each,
// back to back.
struct UniformBlocks {
  std::vector<int32_t> counts, displs;
  UniformBlocks(int size, int count) : counts(size, count), displs(size) {
    for (int i = 0; i < size; ++i) displs[i] = int32_t(int64_t(i) * count);
  }
};

#define RETURN_IF_ERROR(expr)               \
  do {                                      \
    if (int error_ = (expr)) return error_; \
  } while (0)

// The shared body of the reductions: members in `senders` send their
// contribution (`send`, or the receive buffer when MPI_IN_PLACE) to every
// member `receives(member)` names, and each receiving member folds the
// contributions of `senders` in rank order into `recv`.
template <typename SendsTo>
u32 startReduction(HostCall& call, int comm, CommHandle& handle, CollectiveKind kind, u32 sendAddr,
                   u32 recvAddr, int count, int typeHandle, int op, u32 requestOut,
                   SendsTo sendsTo) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int me = schedule.me();
  TypedBuffer recv;
  RETURN_IF_ERROR(resolve(call, comm, recvAddr, count, typeHandle, "receive", recv));
  RETURN_IF_ERROR(checkOp(call, comm, op, *recv.type));
  TypedBuffer send = recv;
  if (sendAddr != abi::kInPlace)
    RETURN_IF_ERROR(resolve(call, comm, sendAddr, count, typeHandle, "send", send));
  std::vector<const uint8_t*> sources;
  for (int from = 0; from < schedule.size(); ++from) {
    if (!sendsTo(from, me)) continue;
    if (from == me) {
      sources.push_back(schedule.stageCopy(send.host, *send.type, count));
      continue;
    }
    uint8_t* staged = schedule.stage(*recv.type, count);
    schedule.receive(from, staged, recv.type, count);
    sources.push_back(staged);
  }
  for (int to = 0; to < schedule.size(); ++to)
    if (to != me && sendsTo(me, to)) schedule.send(to, send.host, send.type, count);
  if (sources.empty()) return schedule.start(requestOut);
  return schedule.start(requestOut, foldInto(op, recv, std::move(sources)));
}

}  // namespace

namespace synergy::mpi {

std::function<int(HostCall&)> foldInto(int op, TypedBuffer out,
                                       std::vector<const uint8_t*> sources) {
  return [=](HostCall& call) {
    return reduceInto(
        call, op, out.typeHandle, *out.type, out.count, int(sources.size()),
        [&](int i) { return sources[size_t(i)]; }, out.host,
        uint32_t(out.host - call.granule.memoryBase()));
  };
}

void advanceCollective(HostCall& call, Request& request) {
  if (request.kind != Request::Kind::Collective || isCompleteNow(request)) return;
  CollectiveSchedule& schedule = *request.schedule;
  for (const auto& receive : schedule.receives)
    if (!isCompleteNow(*receive)) return;
  int error = abi::kSuccess;
  for (const auto& receive : schedule.receives) {
    if (receive->statusError != abi::kErrTruncate) continue;
    error = call.fail(schedule.commHandle, abi::kErrTruncate,
                      "rank " + std::to_string(receive->peer) + " contributed more than " +
                          std::to_string(receive->bytes) + " bytes");
    break;
  }
  // An empty status, unless the local step reports one (MPI_Isendrecv).
  request.statusSource = abi::kAnySource;
  request.statusTag = abi::kAnyTag;
  if (!error && schedule.localStep) error = schedule.localStep(call);
  request.statusError = error;
  request.schedule.reset();
  markComplete(request);
}

void awaitCollective(HostCall& call, Request& request) {
  if (request.kind != Request::Kind::Collective) return;
  if (request.schedule) {
    for (const auto& receive : request.schedule->receives) {
      if (isCompleteNow(*receive)) continue;
      if (!call.world().waitFor(call.rank.worldRank, *receive,
                                WaitInfo{call.name, receive->peer, receive->tag, receive->comm}))
        call.leaveAbortedJob();
    }
  }
  advanceCollective(call, request);
}

Request* pendingPartOf(Request& request) {
  if (request.kind != Request::Kind::Collective || isCompleteNow(request) || !request.schedule)
    return &request;
  for (const auto& receive : request.schedule->receives)
    if (!isCompleteNow(*receive)) return receive.get();
  return &request;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Ibarrier(void* instance, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ibarrier");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  ScheduleBuilder schedule(call, c, *handle, CollectiveKind::Barrier);
  const Layout& bytes = call.rank.type(abi::kTypeByte);
  static uint8_t nothing;  // the empty messages' buffer
  // An intercommunicator's members exchange with the whole remote group.
  bool inter = bool(handle->comm->inter);
  for (int peer = 0; peer < schedule.size(); ++peer) {
    if (peer == schedule.me() && !inter) continue;
    schedule.send(peer, &nothing, bytes, 0);
    schedule.receive(peer, &nothing, bytes, 0);
  }
  return schedule.start(requestOut);
}

u32 Z_envZ_MPI_Ibcast(void* instance, u32 buffer, u32 count, u32 type, u32 root, u32 comm,
                      u32 requestOut) {
  HostCall call(instance, "MPI_Ibcast");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIbcast(call, c, *handle, buffer, int(count), int(type), int(root),
                           requestOut);
  TypedBuffer buf;
  RETURN_IF_ERROR(resolve(call, c, buffer, int(count), int(type), "broadcast", buf));
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  ScheduleBuilder schedule(call, c, *handle, CollectiveKind::Bcast);
  if (schedule.me() == int(root)) {
    for (int to = 0; to < schedule.size(); ++to)
      if (to != int(root)) schedule.send(to, buf.host, buf.type, buf.count);
  } else {
    schedule.receive(int(root), buf.host, buf.type, buf.count);
  }
  return schedule.start(requestOut);
}

u32 Z_envZ_MPI_Ireduce(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                       u32 root, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ireduce");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIreduce(call, c, *handle, sendbuf, recvbuf, int(count), int(type), int(op),
                            int(root), requestOut);
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  int r = int(root);
  // Only the root's receive buffer matters; the others reduce nothing.
  bool isRoot = handle->comm->rankOfWorld[call.rank.worldRank] == r;
  return startReduction(call, c, *handle, CollectiveKind::Reduce, sendbuf,
                        isRoot ? recvbuf : sendbuf, int(count), int(type), int(op), requestOut,
                        [r](int, int to) { return to == r; });
}

u32 Z_envZ_MPI_Iallreduce(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                          u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iallreduce");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIallreduce(call, c, *handle, sendbuf, recvbuf, int(count), int(type),
                               int(op), requestOut);
  return startReduction(call, c, *handle, CollectiveKind::Allreduce, sendbuf, recvbuf, int(count),
                        int(type), int(op), requestOut, [](int, int) { return true; });
}

u32 Z_envZ_MPI_Iscan(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                     u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iscan");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseIntercomm(call, c, *handle));
  return startReduction(call, c, *handle, CollectiveKind::Scan, sendbuf, recvbuf, int(count),
                        int(type), int(op), requestOut,
                        [](int from, int to) { return from <= to; });
}

u32 Z_envZ_MPI_Iexscan(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                       u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iexscan");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseIntercomm(call, c, *handle));
  return startReduction(call, c, *handle, CollectiveKind::Exscan, sendbuf, recvbuf, int(count),
                        int(type), int(op), requestOut,
                        [](int from, int to) { return from < to; });
}

}  // extern "C"

namespace {

// The body of MPI_Igather(v): every member sends its block to the root,
// which receives block i straight into its receive buffer.
u32 startGather(HostCall& call, int comm, CollectiveKind kind, u32 sendbuf, int sendcount,
                int sendtype, u32 recvbuf, const int32_t* recvcounts, const int32_t* displs,
                int recvtype, int root, u32 requestOut, CommHandle& handle) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int me = schedule.me();
  bool inPlace = sendbuf == abi::kInPlace && me == root;
  TypedBuffer send;
  if (!inPlace)
    RETURN_IF_ERROR(resolve(call, comm, sendbuf, sendcount, sendtype, "send", send));
  std::vector<TypedBuffer> blocks(me == root ? size_t(schedule.size()) : 0);
  for (size_t from = 0; from < blocks.size(); ++from)
    RETURN_IF_ERROR(resolveBlock(call, comm, recvbuf, recvcounts, displs, int(from), recvtype,
                                 "receive", blocks[from]));
  if (!inPlace) schedule.send(root, send.host, send.type, send.count);
  for (size_t from = 0; from < blocks.size(); ++from)
    if (int(from) != root || !inPlace)
      schedule.receive(int(from), blocks[from].host, blocks[from].type, blocks[from].count);
  return schedule.start(requestOut);
}

// The body of MPI_Iscatter(v): the root sends block i to member i, which
// receives it into its receive buffer.
u32 startScatter(HostCall& call, int comm, CollectiveKind kind, u32 sendbuf,
                 const int32_t* sendcounts, const int32_t* displs, int sendtype, u32 recvbuf,
                 int recvcount, int recvtype, int root, u32 requestOut, CommHandle& handle) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int me = schedule.me();
  bool inPlace = recvbuf == abi::kInPlace && me == root;
  std::vector<TypedBuffer> blocks(me == root ? size_t(schedule.size()) : 0);
  for (size_t to = 0; to < blocks.size(); ++to)
    RETURN_IF_ERROR(resolveBlock(call, comm, sendbuf, sendcounts, displs, int(to), sendtype,
                                 "send", blocks[to]));
  TypedBuffer recv;
  if (!inPlace)
    RETURN_IF_ERROR(resolve(call, comm, recvbuf, recvcount, recvtype, "receive", recv));
  for (size_t to = 0; to < blocks.size(); ++to)
    if (int(to) != root || !inPlace)
      schedule.send(int(to), blocks[to].host, blocks[to].type, blocks[to].count);
  if (!inPlace) schedule.receive(root, recv.host, recv.type, recv.count);
  return schedule.start(requestOut);
}

// The body of MPI_Iallgather(v): every member sends its block to every
// member, itself included unless MPI_IN_PLACE left it in place.
u32 startAllgather(HostCall& call, int comm, CollectiveKind kind, u32 sendbuf, int sendcount,
                   int sendtype, u32 recvbuf, const int32_t* recvcounts, const int32_t* displs,
                   int recvtype, u32 requestOut, CommHandle& handle) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int me = schedule.me();
  bool inPlace = sendbuf == abi::kInPlace;
  TypedBuffer send;
  if (inPlace)
    RETURN_IF_ERROR(resolveBlock(call, comm, recvbuf, recvcounts, displs, me, recvtype, "receive",
                                 send));
  else
    RETURN_IF_ERROR(resolve(call, comm, sendbuf, sendcount, sendtype, "send", send));
  std::vector<TypedBuffer> blocks(size_t(schedule.size()));
  for (int i = 0; i < schedule.size(); ++i)
    RETURN_IF_ERROR(resolveBlock(call, comm, recvbuf, recvcounts, displs, i, recvtype, "receive",
                                 blocks[size_t(i)]));
  for (int to = 0; to < schedule.size(); ++to)
    if (to != me || !inPlace) schedule.send(to, send.host, send.type, send.count);
  for (int from = 0; from < schedule.size(); ++from)
    if (from != me || !inPlace)
      schedule.receive(from, blocks[size_t(from)].host, blocks[size_t(from)].type,
                       blocks[size_t(from)].count);
  return schedule.start(requestOut);
}

// Sends block j of `sends` to member j and receives member j's into block j
// of `receives`, then starts the collective.
u32 exchangeBlocks(ScheduleBuilder& schedule, const std::vector<TypedBuffer>& sends,
                   const std::vector<TypedBuffer>& receives, u32 requestOut) {
  int size = schedule.size();
  for (int to = 0; to < size; ++to)
    schedule.send(to, sends[size_t(to)].host, sends[size_t(to)].type, sends[size_t(to)].count);
  for (int from = 0; from < size; ++from)
    schedule.receive(from, receives[size_t(from)].host, receives[size_t(from)].type,
                     receives[size_t(from)].count);
  return schedule.start(requestOut);
}

// The body of MPI_Ialltoall(v): block j of every member's send buffer goes
// to member j. With MPI_IN_PLACE the blocks come from the receive buffer,
// which is safe because every send is copied as it starts.
u32 startAlltoall(HostCall& call, int comm, CollectiveKind kind, u32 sendbuf,
                  const int32_t* sendcounts, const int32_t* sdispls, int sendtype, u32 recvbuf,
                  const int32_t* recvcounts, const int32_t* rdispls, int recvtype,
                  u32 requestOut, CommHandle& handle) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int size = schedule.size();
  std::vector<TypedBuffer> sends(static_cast<size_t>(size)), receives(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    RETURN_IF_ERROR(resolveBlock(call, comm, recvbuf, recvcounts, rdispls, i, recvtype,
                                 "receive", receives[size_t(i)]));
    if (sendbuf == abi::kInPlace)
      sends[size_t(i)] = receives[size_t(i)];
    else
      RETURN_IF_ERROR(resolveBlock(call, comm, sendbuf, sendcounts, sdispls, i, sendtype, "send",
                                   sends[size_t(i)]));
  }
  return exchangeBlocks(schedule, sends, receives, requestOut);
}

// The body of MPI_Ialltoallw: as MPI_Ialltoallv, but each block has its own
// datatype and its displacement is in bytes.
u32 startAlltoallw(HostCall& call, int comm, u32 sendbuf, const int32_t* sendcounts,
                   const int32_t* sdispls, const int32_t* sendtypes, u32 recvbuf,
                   const int32_t* recvcounts, const int32_t* rdispls, const int32_t* recvtypes,
                   u32 requestOut, CommHandle& handle) {
  // Tagged as the v form it generalises: the sequence number alone keeps
  // collectives apart, since every member starts them in the same order.
  ScheduleBuilder schedule(call, comm, handle, CollectiveKind::Alltoallv);
  int size = schedule.size();
  std::vector<TypedBuffer> sends(static_cast<size_t>(size)), receives(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    RETURN_IF_ERROR(resolve(call, comm, int64_t(recvbuf) + rdispls[i], recvcounts[i],
                            recvtypes[i], "receive", receives[size_t(i)]));
    if (sendbuf == abi::kInPlace)
      sends[size_t(i)] = receives[size_t(i)];
    else
      RETURN_IF_ERROR(resolve(call, comm, int64_t(sendbuf) + sdispls[i], sendcounts[i],
                              sendtypes[i], "send", sends[size_t(i)]));
  }
  return exchangeBlocks(schedule, sends, receives, requestOut);
}

// The body of MPI_Ireduce_scatter(_block): member j folds block j of every
// member's send buffer into its receive buffer.
u32 startReduceScatter(HostCall& call, int comm, CollectiveKind kind, u32 sendbuf, u32 recvbuf,
                       const int32_t* recvcounts, int typeHandle, int op, u32 requestOut,
                       CommHandle& handle) {
  ScheduleBuilder schedule(call, comm, handle, kind);
  int me = schedule.me();
  int size = schedule.size();
  std::vector<int32_t> displs(static_cast<size_t>(size));
  int64_t total = 0;
  for (int i = 0; i < size; ++i) {
    if (recvcounts[i] < 0)
      return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(recvcounts[i]));
    if (total > INT32_MAX) return call.fail(comm, abi::kErrCount, "counts add up beyond 2^31");
    displs[size_t(i)] = int32_t(total);
    total += recvcounts[i];
  }
  if (total > INT32_MAX) return call.fail(comm, abi::kErrCount, "counts add up beyond 2^31");
  TypedBuffer whole;
  RETURN_IF_ERROR(resolve(call, comm, sendbuf == abi::kInPlace ? recvbuf : sendbuf, int(total),
                          typeHandle, "send", whole));
  RETURN_IF_ERROR(checkOp(call, comm, op, *whole.type));
  TypedBuffer recv;
  RETURN_IF_ERROR(resolve(call, comm, recvbuf, recvcounts[me], typeHandle, "receive", recv));
  int64_t extent = whole.type->extent();
  std::vector<const uint8_t*> sources;
  for (int from = 0; from < size; ++from) {
    if (from == me) {
      sources.push_back(schedule.stageCopy(whole.host + displs[size_t(me)] * extent, *whole.type,
                                           recvcounts[me]));
      continue;
    }
    uint8_t* staged = schedule.stage(*whole.type, recvcounts[me]);
    schedule.receive(from, staged, whole.type, recvcounts[me]);
    sources.push_back(staged);
  }
  for (int to = 0; to < size; ++to)
    if (to != me)
      schedule.send(to, whole.host + displs[size_t(to)] * extent, whole.type, recvcounts[to]);
  return schedule.start(requestOut, foldInto(op, recv, std::move(sources)));
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Igather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                       u32 recvcount, u32 recvtype, u32 root, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Igather");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIgather(call, c, *handle, sendbuf, int(sendcount), int(sendtype), recvbuf, 0,
                            0, int(recvcount), int(recvtype), int(root), false, requestOut);
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  if (int(recvcount) < 0 && handle->comm->rankOfWorld[call.rank.worldRank] == int(root))
    return call.fail(c, abi::kErrCount, "negative count " + std::to_string(int(recvcount)));
  UniformBlocks blocks(handle->comm->size(), int(recvcount));
  return startGather(call, c, CollectiveKind::Gather, sendbuf, int(sendcount), int(sendtype),
                     recvbuf, blocks.counts.data(), blocks.displs.data(), int(recvtype),
                     int(root), requestOut, *handle);
}

u32 Z_envZ_MPI_Igatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                        u32 recvcounts, u32 displs, u32 recvtype, u32 root, u32 comm,
                        u32 requestOut) {
  HostCall call(instance, "MPI_Igatherv");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIgather(call, c, *handle, sendbuf, int(sendcount), int(sendtype), recvbuf,
                            recvcounts, displs, 0, int(recvtype), int(root), true, requestOut);
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  int size = handle->comm->size();
  const int32_t* counts = nullptr;
  const int32_t* offsets = nullptr;
  if (handle->comm->rankOfWorld[call.rank.worldRank] == int(root)) {
    if (!(counts = intArray(call, c, recvcounts, size, "receive counts"))) return abi::kErrArg;
    if (!(offsets = intArray(call, c, displs, size, "displacements"))) return abi::kErrArg;
  }
  return startGather(call, c, CollectiveKind::Gatherv, sendbuf, int(sendcount), int(sendtype),
                     recvbuf, counts, offsets, int(recvtype), int(root), requestOut, *handle);
}

u32 Z_envZ_MPI_Iscatter(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                        u32 recvcount, u32 recvtype, u32 root, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iscatter");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIscatter(call, c, *handle, sendbuf, 0, 0, int(sendcount), int(sendtype),
                             recvbuf, int(recvcount), int(recvtype), int(root), false,
                             requestOut);
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  if (int(sendcount) < 0 && handle->comm->rankOfWorld[call.rank.worldRank] == int(root))
    return call.fail(c, abi::kErrCount, "negative count " + std::to_string(int(sendcount)));
  UniformBlocks blocks(handle->comm->size(), int(sendcount));
  return startScatter(call, c, CollectiveKind::Scatter, sendbuf, blocks.counts.data(),
                      blocks.displs.data(), int(sendtype), recvbuf, int(recvcount),
                      int(recvtype), int(root), requestOut, *handle);
}

u32 Z_envZ_MPI_Iscatterv(void* instance, u32 sendbuf, u32 sendcounts, u32 displs, u32 sendtype,
                         u32 recvbuf, u32 recvcount, u32 recvtype, u32 root, u32 comm,
                         u32 requestOut) {
  HostCall call(instance, "MPI_Iscatterv");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIscatter(call, c, *handle, sendbuf, sendcounts, displs, 0, int(sendtype),
                             recvbuf, int(recvcount), int(recvtype), int(root), true,
                             requestOut);
  RETURN_IF_ERROR(checkRoot(call, c, int(root), *handle));
  int size = handle->comm->size();
  const int32_t* counts = nullptr;
  const int32_t* offsets = nullptr;
  if (handle->comm->rankOfWorld[call.rank.worldRank] == int(root)) {
    if (!(counts = intArray(call, c, sendcounts, size, "send counts"))) return abi::kErrArg;
    if (!(offsets = intArray(call, c, displs, size, "displacements"))) return abi::kErrArg;
  }
  return startScatter(call, c, CollectiveKind::Scatterv, sendbuf, counts, offsets, int(sendtype),
                      recvbuf, int(recvcount), int(recvtype), int(root), requestOut, *handle);
}

u32 Z_envZ_MPI_Iallgather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                          u32 recvcount, u32 recvtype, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iallgather");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseInPlaceOnIntercomm(call, c, *handle, sendbuf));
  if (int(recvcount) < 0)
    return call.fail(c, abi::kErrCount, "negative count " + std::to_string(int(recvcount)));
  UniformBlocks blocks(handle->comm->size(), int(recvcount));
  return startAllgather(call, c, CollectiveKind::Allgather, sendbuf, int(sendcount),
                        int(sendtype), recvbuf, blocks.counts.data(), blocks.displs.data(),
                        int(recvtype), requestOut, *handle);
}

u32 Z_envZ_MPI_Iallgatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                           u32 recvcounts, u32 displs, u32 recvtype, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Iallgatherv");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseInPlaceOnIntercomm(call, c, *handle, sendbuf));
  int size = handle->comm->size();
  const int32_t* counts = intArray(call, c, recvcounts, size, "receive counts");
  if (!counts) return abi::kErrArg;
  const int32_t* offsets = intArray(call, c, displs, size, "displacements");
  if (!offsets) return abi::kErrArg;
  return startAllgather(call, c, CollectiveKind::Allgatherv, sendbuf, int(sendcount),
                        int(sendtype), recvbuf, counts, offsets, int(recvtype), requestOut,
                        *handle);
}

u32 Z_envZ_MPI_Ialltoall(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                         u32 recvcount, u32 recvtype, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ialltoall");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseInPlaceOnIntercomm(call, c, *handle, sendbuf));
  int size = handle->comm->size();
  UniformBlocks sends(size, int(sendcount)), receives(size, int(recvcount));
  return startAlltoall(call, c, CollectiveKind::Alltoall, sendbuf, sends.counts.data(),
                       sends.displs.data(), int(sendtype), recvbuf, receives.counts.data(),
                       receives.displs.data(), int(recvtype), requestOut, *handle);
}

u32 Z_envZ_MPI_Ialltoallv(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtype,
                          u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtype, u32 comm,
                          u32 requestOut) {
  HostCall call(instance, "MPI_Ialltoallv");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  RETURN_IF_ERROR(refuseInPlaceOnIntercomm(call, c, *handle, sendbuf));
  int size = handle->comm->size();
  const int32_t* rcounts = intArray(call, c, recvcounts, size, "receive counts");
  if (!rcounts) return abi::kErrArg;
  const int32_t* roffsets = intArray(call, c, rdispls, size, "receive displacements");
  if (!roffsets) return abi::kErrArg;
  const int32_t* scounts = rcounts;
  const int32_t* soffsets = roffsets;
  if (sendbuf != abi::kInPlace) {
    if (!(scounts = intArray(call, c, sendcounts, size, "send counts"))) return abi::kErrArg;
    if (!(soffsets = intArray(call, c, sdispls, size, "send displacements"))) return abi::kErrArg;
  }
  return startAlltoall(call, c, CollectiveKind::Alltoallv, sendbuf, scounts, soffsets,
                       int(sendtype), recvbuf, rcounts, roffsets, int(recvtype), requestOut,
                       *handle);
}

}  // extern "C"

namespace {

// MPI_Ialltoallw, and MPI_Alltoallw when `requestOut` is 0: the blocking
// form is the same schedule, waited for before the call returns.
u32 alltoallw(HostCall& call, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtypes,
              u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtypes, u32 comm, u32 requestOut) {
  int c = int(comm);
  CommHandle* handle;
  if (requestOut) {
    RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  } else {
    handle = call.rank.comm(c);
    if (!handle) return call.fail(c, abi::kErrComm, "invalid communicator");
  }
  RETURN_IF_ERROR(refuseInPlaceOnIntercomm(call, c, *handle, sendbuf));
  int size = handle->comm->size();
  const int32_t* rcounts = intArray(call, c, recvcounts, size, "receive counts");
  if (!rcounts) return abi::kErrArg;
  const int32_t* roffsets = intArray(call, c, rdispls, size, "receive displacements");
  if (!roffsets) return abi::kErrArg;
  const int32_t* rtypes = intArray(call, c, recvtypes, size, "receive datatypes");
  if (!rtypes) return abi::kErrArg;
  const int32_t* scounts = rcounts;
  const int32_t* soffsets = roffsets;
  const int32_t* stypes = rtypes;
  if (sendbuf != abi::kInPlace) {
    if (!(scounts = intArray(call, c, sendcounts, size, "send counts"))) return abi::kErrArg;
    if (!(soffsets = intArray(call, c, sdispls, size, "send displacements"))) return abi::kErrArg;
    if (!(stypes = intArray(call, c, sendtypes, size, "send datatypes"))) return abi::kErrArg;
  }
  return startAlltoallw(call, c, sendbuf, scounts, soffsets, stypes, recvbuf, rcounts, roffsets,
                        rtypes, requestOut, *handle);
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Ialltoallw(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtypes,
                          u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtypes, u32 comm,
                          u32 requestOut) {
  HostCall call(instance, "MPI_Ialltoallw");
  return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, requestOut);
}

u32 Z_envZ_MPI_Alltoallw(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtypes,
                         u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtypes, u32 comm) {
  HostCall call(instance, "MPI_Alltoallw");
  return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                   recvtypes, comm, 0);
}

u32 Z_envZ_MPI_Ireduce_scatter(void* instance, u32 sendbuf, u32 recvbuf, u32 recvcounts, u32 type,
                               u32 op, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ireduce_scatter");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIreduceScatter(call, c, *handle, sendbuf, recvbuf, recvcounts, 0, int(type),
                                   int(op), requestOut);
  const int32_t* counts = intArray(call, c, recvcounts, handle->comm->size(), "receive counts");
  if (!counts) return abi::kErrArg;
  return startReduceScatter(call, c, CollectiveKind::ReduceScatter, sendbuf, recvbuf, counts,
                            int(type), int(op), requestOut, *handle);
}

u32 Z_envZ_MPI_Ireduce_scatter_block(void* instance, u32 sendbuf, u32 recvbuf, u32 recvcount,
                                     u32 type, u32 op, u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Ireduce_scatter_block");
  int c = int(comm);
  CommHandle* handle;
  RETURN_IF_ERROR(checkCall(call, c, requestOut, handle));
  if (handle->comm->inter)
    return intercommIreduceScatter(call, c, *handle, sendbuf, recvbuf, 0, int(recvcount),
                                   int(type), int(op), requestOut);
  std::vector<int32_t> counts(size_t(handle->comm->size()), int32_t(recvcount));
  return startReduceScatter(call, c, CollectiveKind::ReduceScatterBlock, sendbuf, recvbuf,
                            counts.data(), int(type), int(op), requestOut, *handle);
}

}  // extern "C"
