//===- MatchedProbe.cpp - MPI_Mprobe, Improbe, Mrecv and Imrecv -----------===//
//
// This file implements MPI-3's matched probe. A plain probe only looks at a
// message, so under MPI_THREAD_MULTIPLE another thread's receive may take
// it between the probe and the receive meant for it. A matched probe takes
// the message out of matching instead (Mailbox::takeMatching): it is the
// earliest arrived message that fits, exactly the one a receive posted in
// its place would have taken, so MPI's non-overtaking order holds, and from
// then on only MPI_Mrecv or MPI_Imrecv with its message handle receives it.
//
// The message stays what the Mailbox made of it: copied data, a rendezvous
// send still in its sender's memory, which completes when the Mrecv copies
// it out (a sender's MPI_Cancel after the matched probe no longer takes it
// back), or the envelope of a large message whose data is still on another
// host. The receive is shared, as a posted one is: for such a message it
// sends its clear-to-send and the data's landing completes it
// (RemoteRendezvous.cpp), so MPI_Mrecv waits as MPI_Recv does and
// MPI_Imrecv returns at once; any other message completes it as it starts.
//
// Message handles are per rank: MPI_MESSAGE_NULL, MPI_MESSAGE_NO_PROC (a
// probe of MPI_PROC_NULL), then the probed messages.
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"
#include "mpi/RequestPool.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Checks a matched probe's communicator and source; returns 0 or the raised
// error.
int checkProbe(HostCall& call, int comm, int source, u32 messageOut, CommHandle*& handle) {
  handle = call.rank.comm(comm);
  if (!handle) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (source != abi::kProcNull && source != abi::kAnySource &&
      (source < 0 || source >= handle->comm->size()))
    return call.fail(comm, abi::kErrRank,
                     "invalid source rank " + std::to_string(source) + " (communicator size " +
                         std::to_string(handle->comm->size()) + ")");
  if (!call.bytes(messageOut, 4))
    return call.fail(comm, abi::kErrArg, "message pointer outside linear memory");
  return abi::kSuccess;
}

// Hands a probed message a handle and reports it in `status`.
void keepMessage(HostCall& call, Arrival arrival, CommHandle& handle, int comm, u32 messageOut,
                 u32 status) {
  int message = call.rank.nextMessage++;
  call.storeStatus(status, arrival.envelope.source, arrival.envelope.tag, abi::kSuccess,
                   arrival.envelope.bytes);
  call.rank.matchedMessages.emplace(
      message, RankState::MatchedMessage{std::move(arrival), handle.comm, comm});
  call.store<int32_t>(messageOut, message);
}

// Starts receiving the message behind the handle at `messageAddr` into
// `request`, which fills its status fields when it completes, and sets the
// handle to MPI_MESSAGE_NULL. Returns 0 or the raised error; `commHandle`
// is the communicator to raise a truncation on.
int receiveMessage(HostCall& call, u32 buf, int count, int type, u32 messageAddr,
                   const std::shared_ptr<Request>& request, int& commHandle) {
  Request& recv = *request;
  int32_t message;
  if (!call.load(messageAddr, message))
    return call.fail(abi::kCommWorld, abi::kErrArg, "message pointer outside linear memory");
  commHandle = abi::kCommWorld;
  recv.kind = Request::Kind::Recv;
  recv.owner = call.rank.worldRank;
  if (message == abi::kMessageNoProc) {
    recv.statusSource = abi::kProcNull;
    recv.statusTag = abi::kAnyTag;
    recv.kind = Request::Kind::Null;
    markComplete(recv);
    call.store<int32_t>(messageAddr, abi::kMessageNull);
    return abi::kSuccess;
  }
  auto found = call.rank.matchedMessages.find(message);
  if (found == call.rank.matchedMessages.end())
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "invalid message handle " + std::to_string(message));
  commHandle = found->second.commHandle;
  if (count < 0)
    return call.fail(commHandle, abi::kErrCount, "negative count " + std::to_string(count));
  const Layout& layout = call.rank.type(type);
  if (!layout) return call.fail(commHandle, abi::kErrType, "invalid datatype " + std::to_string(type));
  if (!layout->committed) return call.fail(commHandle, abi::kErrType, "datatype is not committed");
  bool ok;
  uint8_t* host = call.typedBuffer(buf, *layout, count, ok);
  if (!ok) return call.fail(commHandle, abi::kErrBuffer, "receive buffer outside linear memory");
  recv.buffer = host;
  setType(recv, layout);
  recv.count = count;
  recv.bytes = layout->size * count;
  recv.commHandle = commHandle;
  recv.context = found->second.comm->context;
  RankState::MatchedMessage taken = std::move(found->second);
  call.rank.matchedMessages.erase(found);
  // Named for a wait on it (the deadlock report); held, as the guest may
  // free the communicator before the data has landed.
  recv.peer = taken.arrival.envelope.source;
  recv.tag = taken.arrival.envelope.tag;
  recv.comm = taken.comm.get();
  recv.freeableComm = taken.comm;
  call.world().receiveMatched(taken.arrival, request);
  call.store<int32_t>(messageAddr, abi::kMessageNull);
  return abi::kSuccess;
}

int truncationError(HostCall& call, int commHandle, const Request& recv) {
  return call.fail(commHandle, abi::kErrTruncate,
                   "message from rank " + std::to_string(recv.statusSource) +
                       " is longer than the receive buffer (" + std::to_string(recv.bytes) +
                       " bytes)");
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Mprobe(void* instance, u32 source, u32 tag, u32 comm, u32 messageOut,
                      u32 status) {
  HostCall call(instance, "MPI_Mprobe");
  CommHandle* handle;
  int src = int(source);
  if (int error = checkProbe(call, int(comm), src, messageOut, handle)) return error;
  if (src == abi::kProcNull) {
    call.store<int32_t>(messageOut, abi::kMessageNoProc);
    call.storeStatus(status, abi::kProcNull, abi::kAnyTag, abi::kSuccess, 0);
    return abi::kSuccess;
  }
  bool aborted = false;
  auto arrival = call.world().waitTakeMatching(
      call.rank.worldRank, handle->comm->context, src, int(tag),
      WaitInfo{call.name, src, int(tag), handle->comm.get()}, aborted);
  if (aborted || !arrival) call.leaveAbortedJob();
  keepMessage(call, std::move(*arrival), *handle, int(comm), messageOut, status);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Improbe(void* instance, u32 source, u32 tag, u32 comm, u32 flag, u32 messageOut,
                       u32 status) {
  HostCall call(instance, "MPI_Improbe");
  CommHandle* handle;
  int src = int(source);
  if (int error = checkProbe(call, int(comm), src, messageOut, handle)) return error;
  if (!call.bytes(flag, 4))
    return call.fail(int(comm), abi::kErrArg, "flag pointer outside linear memory");
  if (src == abi::kProcNull) {
    call.store<int32_t>(flag, 1);
    call.store<int32_t>(messageOut, abi::kMessageNoProc);
    call.storeStatus(status, abi::kProcNull, abi::kAnyTag, abi::kSuccess, 0);
    return abi::kSuccess;
  }
  if (call.world().aborted()) call.leaveAbortedJob();
  auto arrival =
      call.world().takeMatching(call.rank.worldRank, handle->comm->context, src, int(tag));
  call.store<int32_t>(flag, arrival ? 1 : 0);
  if (!arrival) {
    call.world().yieldIfSharingCpus();
    return abi::kSuccess;
  }
  keepMessage(call, std::move(*arrival), *handle, int(comm), messageOut, status);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Mrecv(void* instance, u32 buf, u32 count, u32 type, u32 message, u32 status) {
  HostCall call(instance, "MPI_Mrecv");
  auto request = newRequest();
  int commHandle;
  if (int error = receiveMessage(call, buf, int(count), int(type), message, request, commHandle))
    return error;
  if (!call.world().waitFor(call.rank.worldRank, *request,
                            WaitInfo{call.name, request->peer, request->tag, request->comm}))
    call.leaveAbortedJob();
  const Request& recv = *request;
  call.storeStatus(status, recv.statusSource, recv.statusTag, recv.statusError, recv.statusBytes);
  if (recv.statusError == abi::kErrTruncate) return truncationError(call, commHandle, recv);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Imrecv(void* instance, u32 buf, u32 count, u32 type, u32 message,
                      u32 requestOut) {
  HostCall call(instance, "MPI_Imrecv");
  if (!call.bytes(requestOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  auto recv = newRequest();
  int commHandle;
  if (int error = receiveMessage(call, buf, int(count), int(type), message, recv, commHandle))
    return error;
  // Wait or Test reports a truncation, as for MPI_Irecv.
  call.store<int32_t>(requestOut, call.rank.addRequest(std::move(recv)));
  return abi::kSuccess;
}

// A message handle is a small integer in C and in Fortran alike.
u32 Z_envZ_MPI_Message_c2f(void*, u32 message) { return message; }
u32 Z_envZ_MPI_Message_f2c(void*, u32 message) { return message; }

}  // extern "C"
