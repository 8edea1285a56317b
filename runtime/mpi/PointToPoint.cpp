//===- PointToPoint.cpp - MPI send, receive, probe and completion calls ---===//
//
// Host functions for the point-to-point part of MPI. Each validates its
// arguments in the order OpenMPI does (communicator, count, datatype, tag,
// rank, buffer), builds a Request and hands it to the World; the blocking
// forms then wait for it. Requests live in the rank's handle table until a
// Wait or successful Test completes them. A nonblocking send copied at once
// and a nonblocking receive whose message had arrived complete as they
// start; they take a Request the rank owns (RankState) rather than a shared
// one, which a window of such calls would make and free once per message.
// The completion calls also complete nonblocking collectives, whose
// requests finish through NonblockingCollectives.h, and generalized
// requests, whose callbacks GeneralizedRequests.h runs.
//
//===----------------------------------------------------------------------===//
#include "mpi/ElementCount.h"
#include "mpi/GeneralizedRequests.h"
#include "mpi/MpiAbi.h"
#include "mpi/NonblockingCollectives.h"
#include "mpi/RankState.h"
#include "mpi/RequestPool.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

enum class SendMode { Standard, Synchronous, Buffered, Ready };

// Names communicator handle `handle` in a request; only one the guest can
// free costs a reference-count update.
void setComm(Request& request, const std::shared_ptr<Communicator>& comm, int handle) {
  request.comm = comm.get();
  if (handle != abi::kCommWorld && handle != abi::kCommSelf) request.freeableComm = comm;
}

// Raises the first of checkCommon()'s errors; apart, so that the checks
// themselves stay small enough to inline into every call.
[[gnu::noinline, gnu::cold]] int commonError(HostCall& call, int comm, int count, int type,
                                             const CommHandle* handle, const Layout& layout) {
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (count < 0)
    return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  if (!layout) return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(type));
  return call.fail(comm, abi::kErrType, "datatype is not committed");
}

// Checks comm, count and datatype; returns 0 or the raised error.
inline int checkCommon(HostCall& call, int comm, int count, int type, CommHandle*& handle,
                       const Layout*& layout) {
  handle = call.rank.comm(comm);
  layout = &call.rank.type(type);
  if (handle && count >= 0 && *layout && (*layout)->committed) return abi::kSuccess;
  return commonError(call, comm, count, type, handle, *layout);
}

u32 startSend(HostCall& call, u32 buf, int count, int type, int dest, int tag, int comm,
              SendMode mode, u32 requestOut, bool persistent = false) {
  CommHandle* handle;
  const Layout* checkedLayout;
  if (int error = checkCommon(call, comm, count, type, handle, checkedLayout)) return error;
  const Layout& layout = *checkedLayout;
  if (tag < 0 || tag > abi::kTagUpperBound)
    return call.fail(comm, abi::kErrTag, "invalid tag " + std::to_string(tag));
  int size = handle->comm->size();
  if (dest != abi::kProcNull && (dest < 0 || dest >= size))
    return call.fail(comm, abi::kErrRank,
                     "invalid destination rank " + std::to_string(dest) +
                         " (communicator size " + std::to_string(size) + ")");
  bool ok;
  uint8_t* host = call.typedBuffer(buf, *layout, count, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, "send buffer outside linear memory");
  if (requestOut && !call.bytes(requestOut, 4))
    return call.fail(comm, abi::kErrArg, "request pointer outside linear memory");

  // A send that is copied into the message at once needs no request of
  // its own: a blocking one returns, a nonblocking one gets the rank's
  // handle of a completed send, which every such request would look like.
  if (!persistent && dest != abi::kProcNull && mode != SendMode::Synchronous) {
    Envelope envelope{handle->comm->context, handle->comm->rankOfWorld[call.rank.worldRank], tag,
                      layout->size * count};
    if (call.world().sendEager(call.rank.worldRank, envelope, host, *layout, count,
                               handle->comm->worldRanks[dest], /*mayDefer=*/requestOut != 0)) {
      if (call.world().aborted()) call.leaveAbortedJob();
      if (requestOut) call.store<int32_t>(requestOut, call.rank.completedSend());
      return abi::kSuccess;
    }
  }

  auto request = newRequest();
  request->kind = Request::Kind::Send;
  request->owner = call.rank.worldRank;
  if (dest == abi::kProcNull) {
    request->kind = Request::Kind::Null;
    request->complete = true;
  } else {
    request->buffer = host;
    setType(*request, layout);
    request->count = count;
    request->bytes = layout->size * count;
    request->context = handle->comm->context;
    setComm(*request, handle->comm, comm);
    // A live move carries a persistent send by its communicator's handle.
    request->commHandle = comm;
    request->peer = dest;
    request->tag = tag;
    request->senderRank = handle->comm->rankOfWorld[call.rank.worldRank];
    request->synchronous = mode == SendMode::Synchronous;
    request->buffered = mode == SendMode::Buffered;
    if (!persistent)
      call.world().startSend(request, handle->comm->worldRanks[dest],
                             /*mayDefer=*/requestOut != 0);
  }
  if (persistent) {
    request->persistent = true;
    request->active = false;
    request->complete = true;
  }
  if (requestOut) {
    call.store<int32_t>(requestOut, call.rank.addRequest(std::move(request)));
    return abi::kSuccess;
  }
  if (!call.world().waitFor(call.rank.worldRank, *request,
                            WaitInfo{call.name, dest, tag, handle->comm.get()}))
    call.leaveAbortedJob();
  return abi::kSuccess;
}

// Checks a receive's arguments and then fills in `request`, a fresh one;
// returns 0 or the raised error, leaving `request` untouched.
int fillRecv(HostCall& call, u32 buf, int count, int type, int source, int tag, int comm,
             Request& request) {
  CommHandle* handle;
  const Layout* checkedLayout;
  if (int error = checkCommon(call, comm, count, type, handle, checkedLayout)) return error;
  const Layout& layout = *checkedLayout;
  if (tag != abi::kAnyTag && (tag < 0 || tag > abi::kTagUpperBound))
    return call.fail(comm, abi::kErrTag, "invalid tag " + std::to_string(tag));
  int size = handle->comm->size();
  if (source != abi::kProcNull && source != abi::kAnySource && (source < 0 || source >= size))
    return call.fail(comm, abi::kErrRank,
                     "invalid source rank " + std::to_string(source) + " (communicator size " +
                         std::to_string(size) + ")");
  bool ok;
  uint8_t* host = call.typedBuffer(buf, *layout, count, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, "receive buffer outside linear memory");
  request.kind = Request::Kind::Recv;
  request.owner = call.rank.worldRank;
  setComm(request, handle->comm, comm);
  request.commHandle = comm;
  if (source == abi::kProcNull) {
    request.kind = Request::Kind::Null;
    request.complete = true;
    request.statusSource = abi::kProcNull;
    request.statusTag = abi::kAnyTag;
    return abi::kSuccess;
  }
  request.buffer = host;
  setType(request, layout);
  request.count = count;
  request.bytes = layout->size * count;
  request.context = handle->comm->context;
  request.peer = source;
  request.tag = tag;
  return abi::kSuccess;
}

std::shared_ptr<Request> makeRecv(HostCall& call, u32 buf, int count, int type, int source,
                                  int tag, int comm, int& error) {
  auto request = newRequest();
  error = fillRecv(call, buf, count, type, source, tag, comm, *request);
  return error ? nullptr : request;
}

// Fills a status for a completed request and reports truncation. A
// nonblocking collective raised its errors when it completed. The request
// is freed next unless `keeping` (MPI_Request_get_status).
int finishRequest(HostCall& call, Request& request, u32 statusAddr, bool keeping = false) {
  if (request.kind == Request::Kind::Collective) {
    // A collective's is empty; MPI_Isendrecv's is its receive's.
    call.storeStatus(statusAddr, request.statusSource, request.statusTag, request.statusError,
                     request.statusBytes);
    return request.statusError;
  }
  if (request.kind == Request::Kind::Generalized)
    return finishGeneralized(call, request, statusAddr, /*freeing=*/!keeping);
  if (request.kind == Request::Kind::Send) {
    call.storeStatus(statusAddr, abi::kAnySource, abi::kAnyTag, abi::kSuccess, 0,
                     request.cancelled);
    return abi::kSuccess;
  }
  call.storeStatus(statusAddr, request.statusSource, request.statusTag, request.statusError,
                   request.statusBytes, request.cancelled);
  if (request.statusError == abi::kErrTruncate)
    return call.fail(request.commHandle, abi::kErrTruncate,
                     "message from rank " + std::to_string(request.statusSource) +
                         " is longer than the receive buffer (" +
                         std::to_string(request.bytes) + " bytes)");
  return abi::kSuccess;
}

// The empty status of a null or inactive request (MPI-3.1 §3.7.3), whose
// MPI_ERROR is MPI_SUCCESS whatever the call.
void storeEmptyStatus(HostCall& call, u32 statusAddr) {
  call.storeStatus(statusAddr, abi::kAnySource, abi::kAnyTag, abi::kSuccess, 0);
  if (statusAddr != abi::kStatusIgnore)
    call.store<int32_t>(statusAddr + abi::kStatusErrorOffset, abi::kSuccess);
}

// Retires a completed request's handle: a started persistent request turns
// back into its inactive template and keeps its handle; any other request
// is freed and its slot set to MPI_REQUEST_NULL.
void releaseHandle(HostCall& call, int handle, u32 slotAddr, const Request& request) {
  if (request.persistentOrigin) {
    call.rank.replaceRequest(handle, request.persistentOrigin);
    return;
  }
  call.rank.freeRequest(handle);
  call.store<int32_t>(slotAddr, abi::kRequestNull);
}

// MPI_Test's look at request `handle`, which MPI_Request_get_status shares:
// sets the flag, and stores the status of a complete request (freeing it
// unless `keeping`). `completed` is set to a request that completed here,
// for MPI_Test to retire its handle.
int testRequest(HostCall& call, int handle, u32 flag, u32 status, bool keeping,
                std::shared_ptr<Request>& completed) {
  if (handle == abi::kRequestNull) {
    call.store<int32_t>(flag, 1);
    storeEmptyStatus(call, status);
    return abi::kSuccess;
  }
  std::shared_ptr<Request> request = call.rank.request(handle);
  if (!request)
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "invalid request handle " + std::to_string(handle));
  if (call.world().aborted()) call.leaveAbortedJob();
  if (request->persistent) {
    call.store<int32_t>(flag, 1);
    storeEmptyStatus(call, status);
    return abi::kSuccess;
  }
  call.world().progress(call.rank.worldRank);
  advanceCollective(call, *request);
  if (!call.world().isComplete(*request)) {
    call.store<int32_t>(flag, 0);
    call.world().yieldIfSharingCpus();
    return abi::kSuccess;
  }
  call.store<int32_t>(flag, 1);
  completed = request;
  return finishRequest(call, *request, status, keeping);
}

// Waits for the request behind handle slot `slotAddr` and retires it.
int waitOne(HostCall& call, u32 slotAddr, u32 statusAddr) {
  int32_t handle;
  if (!call.load(slotAddr, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  if (handle == abi::kRequestNull) {
    storeEmptyStatus(call, statusAddr);
    return abi::kSuccess;
  }
  std::shared_ptr<Request> request = call.rank.request(handle);
  if (!request)
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "invalid request handle " + std::to_string(handle));
  if (request->persistent) {
    storeEmptyStatus(call, statusAddr);
    return abi::kSuccess;
  }
  awaitCollective(call, *request);
  if (!call.world().waitFor(call.rank.worldRank, *request,
                            WaitInfo{call.name, request->peer, request->tag,
                                     request->comm}))
    call.leaveAbortedJob();
  int result = finishRequest(call, *request, statusAddr);
  releaseHandle(call, handle, slotAddr, *request);
  return result;
}

std::vector<std::shared_ptr<Request>> loadRequests(HostCall& call, u32 array, int count,
                                                   bool& ok) {
  std::vector<std::shared_ptr<Request>> requests(count);
  ok = count >= 0 && call.bytes(array, uint64_t(count) * 4);
  if (!ok) return requests;
  for (int i = 0; i < count; ++i) {
    int32_t handle;
    call.load(array + 4 * i, handle);
    if (handle == abi::kRequestNull) continue;
    requests[i] = call.rank.request(handle);
    if (!requests[i]) ok = false;
    if (requests[i] && requests[i]->persistent) requests[i] = nullptr;  // inactive
  }
  return requests;
}

// The basic elements of datatype `type` a status's byte count holds, for
// MPI_Get_elements(_x): MPI_UNDEFINED when they are not a whole number
// (ElementCount.cpp).
// Returns 0 or the raised error.
int receivedElements(HostCall& call, u32 status, u32 type, int64_t& count) {
  int64_t bytes;
  // The whole status first: an address near the top would wrap around.
  if (!call.bytes(status, abi::kStatusSize) || !call.load(status + abi::kStatusCountOffset, bytes))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status outside linear memory");
  Layout layout = call.rank.type(int(type));
  if (!layout) return call.fail(abi::kCommWorld, abi::kErrType, "invalid datatype");
  int64_t elements = elementsInBytes(*layout, bytes);
  count = elements < 0 ? abi::kUndefined : elements;
  return abi::kSuccess;
}

// Matches what has arrived and completes the nonblocking collectives among
// `requests` whose messages all have, before a Test looks at them.
void progressAll(HostCall& call, const std::vector<std::shared_ptr<Request>>& requests) {
  call.world().progress(call.rank.worldRank);
  for (const auto& request : requests)
    if (request) advanceCollective(call, *request);
}

// Waits until one of `requests` (null entries skipped, at least one not)
// has completed. A nonblocking collective completes only once all its
// messages have arrived, so the wait watches one of those at a time.
void awaitAny(HostCall& call, const std::vector<std::shared_ptr<Request>>& requests) {
  std::vector<Request*> watched(requests.size());
  for (;;) {
    progressAll(call, requests);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!requests[i]) continue;
      if (call.world().isComplete(*requests[i])) return;
      watched[i] = pendingPartOf(*requests[i]);
    }
    if (!call.world().waitForAny(call.rank.worldRank, watched,
                                 WaitInfo{call.name, 0, 0, nullptr}))
      call.leaveAbortedJob();
  }
}

// Reports a completed request through its status and then retires its
// handle, which may free the request: it is not touched afterwards.
int retire(HostCall& call, u32 array, int index, Request& request, u32 statusAddr) {
  int32_t handle;
  call.load(array + 4 * index, handle);
  int result = finishRequest(call, request, statusAddr);
  releaseHandle(call, handle, array + 4 * index, request);
  return result;
}

// Packs the data MPI_Isendrecv(_replace) sends into `out`, copied aside
// when the call starts; returns 0 or the raised error.
int packSendData(HostCall& call, u32 buf, int count, int type, int comm,
                 std::vector<uint8_t>& out) {
  CommHandle* handle;
  const Layout* checkedLayout;
  if (int error = checkCommon(call, comm, count, type, handle, checkedLayout)) return error;
  const Layout& layout = *checkedLayout;
  bool ok;
  uint8_t* host = call.typedBuffer(buf, *layout, count, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, "send buffer outside linear memory");
  out.resize(size_t(layout->size * count));
  packTyped(host, *layout, count, out.data());
  return abi::kSuccess;
}

// MPI-4.0's MPI_Isendrecv and MPI_Isendrecv_replace: one request of kind
// Collective (NonblockingCollectives.h) whose parts are the receive and a
// send of `outgoing`, so that neither part waits for the peer when the
// call starts and the replace form may receive into the buffer it sends
// from. It completes once both parts have, with the receive's status.
u32 startSendrecvRequest(HostCall& call, std::vector<uint8_t> outgoing, int dest, int sendtag,
                         u32 recvbuf, int recvcount, int recvtype, int source, int recvtag,
                         int comm, u32 requestOut) {
  if (!call.bytes(requestOut, 4))
    return call.fail(comm, abi::kErrArg, "request pointer outside linear memory");
  std::shared_ptr<Communicator> communicator = call.rank.comm(comm)->comm;
  int size = communicator->size();
  if (sendtag < 0 || sendtag > abi::kTagUpperBound)
    return call.fail(comm, abi::kErrTag, "invalid tag " + std::to_string(sendtag));
  if (dest != abi::kProcNull && (dest < 0 || dest >= size))
    return call.fail(comm, abi::kErrRank,
                     "invalid destination rank " + std::to_string(dest) +
                         " (communicator size " + std::to_string(size) + ")");
  int error;
  auto recv = makeRecv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, error);
  if (!recv) return error;
  auto schedule = std::make_shared<CollectiveSchedule>();
  schedule->commHandle = comm;
  schedule->comm = communicator;
  std::shared_ptr<Request> send;
  if (dest != abi::kProcNull) {
    schedule->staging.push_back(std::move(outgoing));
    const std::vector<uint8_t>& data = schedule->staging.back();
    send = newRequest();
    send->kind = Request::Kind::Send;
    send->owner = call.rank.worldRank;
    send->buffer = const_cast<uint8_t*>(data.data());
    setType(*send, predefinedLayout(4));
    send->count = int64_t(data.size());
    send->bytes = int64_t(data.size());
    send->context = communicator->context;
    setComm(*send, communicator, comm);
    send->peer = dest;
    send->tag = sendtag;
    send->senderRank = communicator->rankOfWorld[call.rank.worldRank];
    schedule->receives.push_back(send);
  }
  schedule->receives.push_back(recv);
  auto request = newRequest();
  request->kind = Request::Kind::Collective;
  request->owner = call.rank.worldRank;
  request->comm = communicator.get();
  request->commHandle = comm;
  Request* whole = request.get();
  schedule->localStep = [whole, recv](HostCall&) {
    whole->statusSource = recv->statusSource;
    whole->statusTag = recv->statusTag;
    whole->statusBytes = recv->statusBytes;
    return int(abi::kSuccess);
  };
  request->schedule = std::move(schedule);
  if (recv->kind == Request::Kind::Recv) call.world().startRecv(recv);
  if (send) call.world().startSend(send, communicator->worldRanks[dest]);
  call.store<int32_t>(requestOut, call.rank.addRequest(request));
  advanceCollective(call, *request);
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Send(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm) {
  HostCall call(instance, "MPI_Send");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Standard, 0);
}

u32 Z_envZ_MPI_Ssend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm) {
  HostCall call(instance, "MPI_Ssend");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Synchronous, 0);
}

u32 Z_envZ_MPI_Bsend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm) {
  HostCall call(instance, "MPI_Bsend");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Buffered, 0);
}

u32 Z_envZ_MPI_Rsend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm) {
  HostCall call(instance, "MPI_Rsend");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Ready, 0);
}

u32 Z_envZ_MPI_Isend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm,
                     u32 request) {
  HostCall call(instance, "MPI_Isend", HostCall::EarlierSends::MayStayUnpublished);
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Standard, request);
}

u32 Z_envZ_MPI_Issend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm,
                      u32 request) {
  HostCall call(instance, "MPI_Issend");
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Synchronous, request);
}

u32 Z_envZ_MPI_Ibsend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm,
                      u32 request) {
  HostCall call(instance, "MPI_Ibsend", HostCall::EarlierSends::MayStayUnpublished);
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Buffered, request);
}

u32 Z_envZ_MPI_Irsend(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag, u32 comm,
                      u32 request) {
  HostCall call(instance, "MPI_Irsend", HostCall::EarlierSends::MayStayUnpublished);
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Ready, request);
}

u32 Z_envZ_MPI_Recv(void* instance, u32 buf, u32 count, u32 type, u32 source, u32 tag, u32 comm,
                    u32 status) {
  HostCall call(instance, "MPI_Recv");
  int error;
  auto request = makeRecv(call, buf, int(count), int(type), int(source), int(tag), int(comm),
                          error);
  if (!request) return error;
  if (request->kind == Request::Kind::Recv) {
    call.world().startRecv(request);
    if (!call.world().waitFor(call.rank.worldRank, *request,
                              WaitInfo{call.name, int(source), int(tag), request->comm}))
      call.leaveAbortedJob();
  }
  call.storeStatus(status, request->statusSource, request->statusTag, request->statusError,
                   request->statusBytes);
  if (request->statusError == abi::kErrTruncate)
    return call.fail(int(comm), abi::kErrTruncate,
                     "message from rank " + std::to_string(request->statusSource) +
                         " is longer than the receive buffer (" +
                         std::to_string(request->bytes) + " bytes)");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Irecv(void* instance, u32 buf, u32 count, u32 type, u32 source, u32 tag, u32 comm,
                     u32 requestOut) {
  HostCall call(instance, "MPI_Irecv");
  if (!call.bytes(requestOut, 4) || !requestOut)
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  // Mostly a window of receives finds its messages already arrived: such a
  // receive completes here, in one of the rank's own Request records.
  Request& record = call.rank.spareReceive();
  if (int error = fillRecv(call, buf, int(count), int(type), int(source), int(tag), int(comm),
                           record))
    return error;
  bool mustShare = false;
  if (record.kind == Request::Kind::Null || call.world().receiveNow(record, mustShare)) {
    call.store<int32_t>(requestOut, call.rank.addSpareReceive());
    return abi::kSuccess;
  }
  auto request = newRequest();
  *request = std::move(record);
  call.rank.clearSpareReceive();
  call.world().postUnmatched(request, mustShare);
  call.store<int32_t>(requestOut, call.rank.addRequest(std::move(request)));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Wait(void* instance, u32 request, u32 status) {
  HostCall call(instance, "MPI_Wait");
  return waitOne(call, request, status);
}

// Waitall runs once per window of nonblocking calls, so it borrows the
// requests from the handle table rather than copying them out: no
// allocation and no reference-count update per request. Each is retired
// last, after everything that reads it.
u32 Z_envZ_MPI_Waitall(void* instance, u32 count, u32 array, u32 statuses) {
  HostCall call(instance, "MPI_Waitall");
  call.reportsErrorsInStatuses = true;
  int n = int(count);
  if (n < 0 || !call.bytes(array, uint64_t(n) * 4))
    return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  for (int i = 0; i < n; ++i) {
    int32_t handle;
    call.load(array + 4 * i, handle);
    if (handle != abi::kRequestNull && !call.rank.borrowRequest(handle))
      return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  }
  if (statuses && !call.bytes(statuses, uint64_t(n) * abi::kStatusSize))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status array outside linear memory");
  // One look at what has arrived covers every request that is complete
  // by now; waitFor looks again only for those that are not.
  call.world().progress(call.rank.worldRank);
  if (call.world().aborted()) call.leaveAbortedJob();
  int result = abi::kSuccess;
  for (int i = 0; i < n; ++i) {
    u32 status = statuses ? statuses + i * abi::kStatusSize : 0;
    int32_t handle;
    call.load(array + 4 * i, handle);
    Request* request = handle == abi::kRequestNull ? nullptr : call.rank.borrowRequest(handle);
    if (!request || request->persistent) {
      storeEmptyStatus(call, status);
      continue;
    }
    awaitCollective(call, *request);
    if (!call.world().isComplete(*request) &&
        !call.world().waitFor(call.rank.worldRank, *request,
                              WaitInfo{call.name, request->peer, request->tag,
                                       request->comm}))
      call.leaveAbortedJob();
    if (retire(call, array, i, *request, status) != abi::kSuccess) result = abi::kErrInStatus;
  }
  return result;
}

u32 Z_envZ_MPI_Waitany(void* instance, u32 count, u32 array, u32 indexOut, u32 status) {
  HostCall call(instance, "MPI_Waitany");
  int n = int(count);
  bool ok;
  auto requests = loadRequests(call, array, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  bool any = false;
  for (auto& request : requests) any |= request != nullptr;
  if (!any) {
    call.store<int32_t>(indexOut, abi::kUndefined);
    storeEmptyStatus(call, status);
    return abi::kSuccess;
  }
  awaitAny(call, requests);
  for (int i = 0; i < n; ++i) {
    if (requests[i] && call.world().isComplete(*requests[i])) {
      call.store<int32_t>(indexOut, i);
      return retire(call, array, i, *requests[i], status);
    }
  }
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Waitsome(void* instance, u32 count, u32 array, u32 outcount, u32 indices,
                        u32 statuses) {
  HostCall call(instance, "MPI_Waitsome");
  call.reportsErrorsInStatuses = true;
  int n = int(count);
  bool ok;
  auto requests = loadRequests(call, array, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  bool any = false;
  for (auto& request : requests) any |= request != nullptr;
  if (!any) {
    call.store<int32_t>(outcount, abi::kUndefined);
    return abi::kSuccess;
  }
  awaitAny(call, requests);
  int done = 0;
  int result = abi::kSuccess;
  for (int i = 0; i < n; ++i) {
    if (!requests[i] || !call.world().isComplete(*requests[i])) continue;
    call.store<int32_t>(indices + 4 * done, i);
    u32 status = statuses ? statuses + done * abi::kStatusSize : 0;
    if (retire(call, array, i, *requests[i], status) != abi::kSuccess) result = abi::kErrInStatus;
    ++done;
  }
  call.store<int32_t>(outcount, done);
  return result;
}

u32 Z_envZ_MPI_Test(void* instance, u32 slot, u32 flag, u32 status) {
  HostCall call(instance, "MPI_Test");
  int32_t handle;
  if (!call.load(slot, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  std::shared_ptr<Request> completed;
  int result = testRequest(call, handle, flag, status, /*keeping=*/false, completed);
  if (completed) releaseHandle(call, handle, slot, *completed);
  return result;
}

u32 Z_envZ_MPI_Testall(void* instance, u32 count, u32 array, u32 flag, u32 statuses) {
  HostCall call(instance, "MPI_Testall");
  call.reportsErrorsInStatuses = true;
  int n = int(count);
  bool ok;
  auto requests = loadRequests(call, array, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  if (call.world().aborted()) call.leaveAbortedJob();
  progressAll(call, requests);
  for (auto& request : requests) {
    if (request && !call.world().isComplete(*request)) {
      call.store<int32_t>(flag, 0);
      call.world().yieldIfSharingCpus();
      return abi::kSuccess;
    }
  }
  call.store<int32_t>(flag, 1);
  int result = abi::kSuccess;
  for (int i = 0; i < n; ++i) {
    u32 status = statuses ? statuses + i * abi::kStatusSize : 0;
    if (!requests[i]) {
      storeEmptyStatus(call, status);
      continue;
    }
    if (retire(call, array, i, *requests[i], status) != abi::kSuccess) result = abi::kErrInStatus;
  }
  return result;
}

u32 Z_envZ_MPI_Testany(void* instance, u32 count, u32 array, u32 indexOut, u32 flag, u32 status) {
  HostCall call(instance, "MPI_Testany");
  int n = int(count);
  bool ok;
  auto requests = loadRequests(call, array, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  if (call.world().aborted()) call.leaveAbortedJob();
  progressAll(call, requests);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (!requests[i]) continue;
    any = true;
    if (call.world().isComplete(*requests[i])) {
      call.store<int32_t>(flag, 1);
      call.store<int32_t>(indexOut, i);
      return retire(call, array, i, *requests[i], status);
    }
  }
  call.store<int32_t>(flag, any ? 0 : 1);
  call.store<int32_t>(indexOut, abi::kUndefined);
  if (!any) storeEmptyStatus(call, status);
  if (any) call.world().yieldIfSharingCpus();
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Testsome(void* instance, u32 count, u32 array, u32 outcount, u32 indices,
                        u32 statuses) {
  HostCall call(instance, "MPI_Testsome");
  call.reportsErrorsInStatuses = true;
  int n = int(count);
  bool ok;
  auto requests = loadRequests(call, array, n, ok);
  if (!ok) return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request array");
  if (call.world().aborted()) call.leaveAbortedJob();
  progressAll(call, requests);
  bool any = false;
  int done = 0;
  int result = abi::kSuccess;
  for (int i = 0; i < n; ++i) {
    if (!requests[i]) continue;
    any = true;
    if (!call.world().isComplete(*requests[i])) continue;
    call.store<int32_t>(indices + 4 * done, i);
    u32 status = statuses ? statuses + done * abi::kStatusSize : 0;
    if (retire(call, array, i, *requests[i], status) != abi::kSuccess) result = abi::kErrInStatus;
    ++done;
  }
  call.store<int32_t>(outcount, any ? done : abi::kUndefined);
  if (any && done == 0) call.world().yieldIfSharingCpus();
  return result;
}

u32 Z_envZ_MPI_Request_free(void* instance, u32 slot) {
  HostCall call(instance, "MPI_Request_free");
  int32_t handle;
  if (!call.load(slot, handle) || !call.rank.request(handle))
    return call.fail(abi::kCommWorld, abi::kErrRequest, "invalid request");
  // MPI makes it erroneous: the collective's local step would never run.
  Request& request = *call.rank.borrowRequest(handle);
  if (request.kind == Request::Kind::Collective && !isCompleteNow(request))
    return call.fail(request.commHandle, abi::kErrRequest,
                     "cannot free the request of a nonblocking collective before it completes");
  call.store<int32_t>(slot, abi::kRequestNull);
  if (request.kind == Request::Kind::Generalized) return freeGeneralized(call, request, handle);
  call.rank.freeRequest(handle);
  return abi::kSuccess;
}

// Like MPI_Test, but leaves the request to a later completion call.
u32 Z_envZ_MPI_Request_get_status(void* instance, u32 handleValue, u32 flag, u32 status) {
  HostCall call(instance, "MPI_Request_get_status");
  if (!call.bytes(flag, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "flag pointer outside linear memory");
  std::shared_ptr<Request> completed;
  return testRequest(call, int(handleValue), flag, status, /*keeping=*/true, completed);
}

u32 Z_envZ_MPI_Probe(void* instance, u32 source, u32 tag, u32 comm, u32 status) {
  HostCall call(instance, "MPI_Probe");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int src = int(source);
  if (src == abi::kProcNull) {
    call.storeStatus(status, abi::kProcNull, abi::kAnyTag, abi::kSuccess, 0);
    return abi::kSuccess;
  }
  if (src != abi::kAnySource && (src < 0 || src >= handle->comm->size()))
    return call.fail(int(comm), abi::kErrRank, "invalid source rank " + std::to_string(src));
  bool aborted = false;
  auto found = call.world().waitProbe(call.rank.worldRank, handle->comm->context, src, int(tag),
                                      WaitInfo{call.name, src, int(tag), handle->comm.get()},
                                      aborted);
  if (aborted || !found) call.leaveAbortedJob();
  call.storeStatus(status, found->source, found->tag, abi::kSuccess, found->bytes);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Iprobe(void* instance, u32 source, u32 tag, u32 comm, u32 flag, u32 status) {
  HostCall call(instance, "MPI_Iprobe");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int src = int(source);
  if (src == abi::kProcNull) {
    call.store<int32_t>(flag, 1);
    call.storeStatus(status, abi::kProcNull, abi::kAnyTag, abi::kSuccess, 0);
    return abi::kSuccess;
  }
  if (src != abi::kAnySource && (src < 0 || src >= handle->comm->size()))
    return call.fail(int(comm), abi::kErrRank, "invalid source rank " + std::to_string(src));
  if (call.world().aborted()) call.leaveAbortedJob();
  auto found = call.world().probe(call.rank.worldRank, handle->comm->context, src, int(tag));
  call.store<int32_t>(flag, found ? 1 : 0);
  if (found)
    call.storeStatus(status, found->source, found->tag, abi::kSuccess, found->bytes);
  else
    call.world().yieldIfSharingCpus();
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get_count(void* instance, u32 status, u32 type, u32 countOut) {
  HostCall call(instance, "MPI_Get_count");
  int64_t bytes;
  // The whole status first: an address near the top would wrap around.
  if (!call.bytes(status, abi::kStatusSize) || !call.load(status + abi::kStatusCountOffset, bytes))
    return call.fail(abi::kCommWorld, abi::kErrArg, "status outside linear memory");
  Layout layout = call.rank.type(int(type));
  if (!layout) return call.fail(abi::kCommWorld, abi::kErrType, "invalid datatype");
  int32_t count;
  if (layout->size == 0)
    count = 0;
  else if (bytes % layout->size != 0)
    count = abi::kUndefined;
  else
    count = int32_t(bytes / layout->size);
  if (!call.store<int32_t>(countOut, count))
    return call.fail(abi::kCommWorld, abi::kErrArg, "count pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get_elements(void* instance, u32 status, u32 type, u32 countOut) {
  HostCall call(instance, "MPI_Get_elements");
  int64_t count;
  if (int error = receivedElements(call, status, type, count)) return error;
  if (count > INT32_MAX) count = abi::kUndefined;
  if (!call.store<int32_t>(countOut, int32_t(count)))
    return call.fail(abi::kCommWorld, abi::kErrArg, "count pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Get_elements_x(void* instance, u32 status, u32 type, u32 countOut) {
  HostCall call(instance, "MPI_Get_elements_x");
  int64_t count;
  if (int error = receivedElements(call, status, type, count)) return error;
  if (!call.store<int64_t>(countOut, count))
    return call.fail(abi::kCommWorld, abi::kErrArg, "count pointer outside linear memory");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Sendrecv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 dest,
                        u32 sendtag, u32 recvbuf, u32 recvcount, u32 recvtype, u32 source,
                        u32 recvtag, u32 comm, u32 status) {
  HostCall call(instance, "MPI_Sendrecv");
  int error;
  auto recv = makeRecv(call, recvbuf, int(recvcount), int(recvtype), int(source), int(recvtag),
                       int(comm), error);
  if (!recv) return error;
  if (recv->kind == Request::Kind::Recv) call.world().startRecv(recv);
  if (u32 sendError = startSend(call, sendbuf, int(sendcount), int(sendtype), int(dest),
                                int(sendtag), int(comm), SendMode::Standard, 0))
    return sendError;
  if (!call.world().waitFor(call.rank.worldRank, *recv,
                            WaitInfo{call.name, int(source), int(recvtag), recv->comm}))
    call.leaveAbortedJob();
  call.storeStatus(status, recv->statusSource, recv->statusTag, recv->statusError,
                   recv->statusBytes);
  if (recv->statusError == abi::kErrTruncate)
    return call.fail(int(comm), abi::kErrTruncate, "message longer than the receive buffer");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Sendrecv_replace(void* instance, u32 buf, u32 count, u32 type, u32 dest,
                                u32 sendtag, u32 source, u32 recvtag, u32 comm, u32 status) {
  HostCall call(instance, "MPI_Sendrecv_replace");
  CommHandle* handle;
  const Layout* checkedLayout;
  if (int error = checkCommon(call, int(comm), int(count), int(type), handle, checkedLayout))
    return error;
  const Layout& layout = *checkedLayout;
  bool ok;
  uint8_t* host = call.typedBuffer(buf, *layout, int(count), ok);
  if (!ok) return call.fail(int(comm), abi::kErrBuffer, "buffer outside linear memory");
  // The outgoing data is copied aside first: the receive overwrites it.
  std::vector<uint8_t> outgoing(size_t(layout->size * int(count)));
  packTyped(host, *layout, int(count), outgoing.data());
  int error;
  auto recv = makeRecv(call, buf, int(count), int(type), int(source), int(recvtag), int(comm),
                       error);
  if (!recv) return error;
  if (recv->kind == Request::Kind::Recv) call.world().startRecv(recv);
  int d = int(dest);
  if (d != abi::kProcNull) {
    if (d < 0 || d >= handle->comm->size())
      return call.fail(int(comm), abi::kErrRank, "invalid destination rank " + std::to_string(d));
    auto send = newRequest();
    send->kind = Request::Kind::Send;
    send->owner = call.rank.worldRank;
    send->buffer = outgoing.data();
    setType(*send, predefinedLayout(4));
    send->count = int64_t(outgoing.size());
    send->bytes = int64_t(outgoing.size());
    send->context = handle->comm->context;
    setComm(*send, handle->comm, int(comm));
    send->peer = d;
    send->tag = int(sendtag);
    send->senderRank = handle->comm->rankOfWorld[call.rank.worldRank];
    call.world().startSend(send, handle->comm->worldRanks[d]);
    if (!call.world().waitFor(call.rank.worldRank, *send,
                              WaitInfo{call.name, d, int(sendtag), handle->comm.get()}))
      call.leaveAbortedJob();
  }
  if (!call.world().waitFor(call.rank.worldRank, *recv,
                            WaitInfo{call.name, int(source), int(recvtag), recv->comm}))
    call.leaveAbortedJob();
  call.storeStatus(status, recv->statusSource, recv->statusTag, recv->statusError,
                   recv->statusBytes);
  if (recv->statusError == abi::kErrTruncate)
    return call.fail(int(comm), abi::kErrTruncate, "message longer than the receive buffer");
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Isendrecv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 dest,
                         u32 sendtag, u32 recvbuf, u32 recvcount, u32 recvtype, u32 source,
                         u32 recvtag, u32 comm, u32 request) {
  HostCall call(instance, "MPI_Isendrecv");
  std::vector<uint8_t> outgoing;
  if (int error = packSendData(call, sendbuf, int(sendcount), int(sendtype), int(comm), outgoing))
    return error;
  return startSendrecvRequest(call, std::move(outgoing), int(dest), int(sendtag), recvbuf,
                              int(recvcount), int(recvtype), int(source), int(recvtag), int(comm),
                              request);
}

u32 Z_envZ_MPI_Isendrecv_replace(void* instance, u32 buf, u32 count, u32 type, u32 dest,
                                 u32 sendtag, u32 source, u32 recvtag, u32 comm, u32 request) {
  HostCall call(instance, "MPI_Isendrecv_replace");
  std::vector<uint8_t> outgoing;
  if (int error = packSendData(call, buf, int(count), int(type), int(comm), outgoing))
    return error;
  return startSendrecvRequest(call, std::move(outgoing), int(dest), int(sendtag), buf, int(count),
                              int(type), int(source), int(recvtag), int(comm), request);
}

// The attached buffer is only kept to be handed back: a buffered send
// completes as an eager copy, so detaching never waits for one. A second
// attach and a detach with nothing attached are MPI_ERR_BUFFER (OpenMPI
// answers both with an internal code that is no MPI error class).
u32 Z_envZ_MPI_Buffer_attach(void* instance, u32 buffer, u32 size) {
  HostCall call(instance, "MPI_Buffer_attach");
  if (!buffer || int32_t(size) < 0)
    return call.fail(abi::kCommWorld, abi::kErrArg, "null buffer or negative size");
  if (call.rank.attachedBuffer)
    return call.fail(abi::kCommWorld, abi::kErrBuffer, "a buffer is already attached");
  call.rank.attachedBuffer = RankState::AttachedBuffer{buffer, int32_t(size)};
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Buffer_detach(void* instance, u32 bufferAddr, u32 sizeOut) {
  HostCall call(instance, "MPI_Buffer_detach");
  if (!call.bytes(bufferAddr, 4) || !call.bytes(sizeOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "output outside linear memory");
  if (!call.rank.attachedBuffer)
    return call.fail(abi::kCommWorld, abi::kErrBuffer, "no buffer is attached");
  call.store<u32>(bufferAddr, call.rank.attachedBuffer->address);
  call.store<int32_t>(sizeOut, call.rank.attachedBuffer->size);
  call.rank.attachedBuffer.reset();
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Send_init(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag,
                         u32 comm, u32 request) {
  HostCall call(instance, "MPI_Send_init");
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Standard, request, true);
}

u32 Z_envZ_MPI_Ssend_init(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag,
                          u32 comm, u32 request) {
  HostCall call(instance, "MPI_Ssend_init");
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Synchronous, request, true);
}

u32 Z_envZ_MPI_Bsend_init(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag,
                          u32 comm, u32 request) {
  HostCall call(instance, "MPI_Bsend_init");
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Buffered, request, true);
}

u32 Z_envZ_MPI_Rsend_init(void* instance, u32 buf, u32 count, u32 type, u32 dest, u32 tag,
                          u32 comm, u32 request) {
  HostCall call(instance, "MPI_Rsend_init");
  if (!request) return call.fail(int(comm), abi::kErrArg, "null request pointer");
  return startSend(call, buf, int(count), int(type), int(dest), int(tag), int(comm),
                   SendMode::Ready, request, true);
}

u32 Z_envZ_MPI_Recv_init(void* instance, u32 buf, u32 count, u32 type, u32 source, u32 tag,
                         u32 comm, u32 requestOut) {
  HostCall call(instance, "MPI_Recv_init");
  if (!requestOut || !call.bytes(requestOut, 4))
    return call.fail(int(comm), abi::kErrArg, "request pointer outside linear memory");
  int error;
  auto request = makeRecv(call, buf, int(count), int(type), int(source), int(tag), int(comm),
                          error);
  if (!request) return error;
  request->persistent = true;
  request->active = false;
  request->complete = true;
  call.store<int32_t>(requestOut, call.rank.addRequest(std::move(request)));
  return abi::kSuccess;
}

static u32 startPersistent(HostCall& call, u32 slot) {
  int32_t handle;
  if (!call.load(slot, handle))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  std::shared_ptr<Request> origin = call.rank.request(handle);
  if (!origin || !origin->persistent)
    return call.fail(abi::kCommWorld, abi::kErrRequest, "not an inactive persistent request");
  auto live = std::make_shared<Request>(*origin);
  live->persistent = false;
  live->active = true;
  live->persistentOrigin = origin;
  live->complete = live->kind == Request::Kind::Null;
  call.rank.replaceRequest(handle, live);
  if (live->kind == Request::Kind::Send)
    call.world().startSend(live, live->comm->worldRanks[live->peer]);
  else if (live->kind == Request::Kind::Recv)
    call.world().startRecv(live);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Start(void* instance, u32 request) {
  HostCall call(instance, "MPI_Start");
  return startPersistent(call, request);
}

u32 Z_envZ_MPI_Startall(void* instance, u32 count, u32 requests) {
  HostCall call(instance, "MPI_Startall");
  for (int i = 0; i < int(count); ++i)
    if (u32 error = startPersistent(call, requests + 4 * uint32_t(i))) return error;
  return abi::kSuccess;
}

}  // extern "C"
