//===- Collectives.cpp - MPI collective operations -------------------------===//
//
// Host functions for barrier, broadcast, gathers, scatters, all-to-alls,
// reductions and scans. Each validates its own arguments, describes its
// buffers in its Contribution, and in its part of the collective moves the
// data it needs straight from the other ranks' memories (one copy), or
// folds their buffers into its own (reductions, in rank order, so every
// rank of an allreduce computes bit-identical results).
//
// On a communicator whose ranks span hosts, the plain collectives run
// locality-aware over messages instead (HostCollectives.h).
//
// MPI_IN_PLACE contributions are staged: copied aside before the first
// barrier, because their owner overwrites them while others may read them.
//
//===----------------------------------------------------------------------===//
#include "mpi/BarrierControlPoint.h"
#include "mpi/CollectiveEngine.h"
#include "mpi/FileHandles.h"
#include "mpi/HostCollectives.h"
#include "mpi/Intercommunicators.h"
#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

const Layout kNoLayout;  // an MPI_IN_PLACE buffer's

struct Buffer {
  uint8_t* host = nullptr;
  // The datatype, borrowed from the rank's handle table, which keeps it
  // for the whole call: the guest cannot free it before the call returns.
  const TypeLayout* type = nullptr;
  const Layout* layout = &kNoLayout;
  int64_t count = 0;
  int typeHandle = 0;
  bool inPlace = false;
};

// Resolves a (buffer, count, datatype) triple; returns 0 or the raised error.
int resolve(HostCall& call, int comm, u32 addr, int count, int typeHandle, bool allowInPlace,
            Buffer& out) {
  if (allowInPlace && addr == abi::kInPlace) {
    out.inPlace = true;
    return abi::kSuccess;
  }
  if (count < 0) return call.fail(comm, abi::kErrCount, "negative count " + std::to_string(count));
  out.layout = &call.rank.type(typeHandle);
  out.type = out.layout->get();
  if (!out.type)
    return call.fail(comm, abi::kErrType, "invalid datatype " + std::to_string(typeHandle));
  if (!out.type->committed) return call.fail(comm, abi::kErrType, "datatype is not committed");
  bool ok;
  out.host = call.typedBuffer(addr, *out.type, count, ok);
  if (!ok) return call.fail(comm, abi::kErrBuffer, "buffer outside linear memory");
  out.count = count;
  out.typeHandle = typeHandle;
  return abi::kSuccess;
}

// A guest int array of `n` entries, or nullptr.
const int32_t* intArray(HostCall& call, u32 addr, int n) {
  if (n <= 0) return reinterpret_cast<const int32_t*>(call.granule.memoryBase());
  return reinterpret_cast<const int32_t*>(call.bytes(addr, uint64_t(n) * 4));
}

int commSize(HostCall& call, int comm) {
  CommHandle* handle = call.rank.comm(comm);
  return handle ? handle->comm->size() : -1;
}

int checkRoot(HostCall& call, int comm, int root, int size) {
  if (root < 0 || root >= size)
    return call.fail(comm, abi::kErrRoot, "invalid root " + std::to_string(root));
  return abi::kSuccess;
}

// This rank's place in `comm`, a communicator commSize accepted.
int rankIn(HostCall& call, int comm) {
  return call.rank.comm(comm)->comm->rankOfWorld[call.rank.worldRank];
}

// The checks a rooted collective starts with, communicator then root; sets
// the communicator's size and this rank's place in it. Returns 0 or the
// raised error.
int checkRooted(HostCall& call, int comm, int root, int& size, int& me) {
  size = commSize(call, comm);
  if (size < 0) return call.fail(comm, abi::kErrComm, "invalid communicator");
  if (int error = checkRoot(call, comm, root, size)) return error;
  me = rankIn(call, comm);
  return abi::kSuccess;
}

// Copies one contribution into this rank's buffer, raising truncation.
int move(HostCall& call, int comm, const uint8_t* src, const TypeLayout& srcType,
         int64_t srcCount, uint8_t* dst, const TypeLayout& dstType, int64_t dstCount) {
  int64_t srcBytes = srcType.size * srcCount;
  int64_t dstBytes = dstType.size * dstCount;
  copyTyped(src, srcType, srcCount, dst, dstType, dstCount, std::min(srcBytes, dstBytes));
  if (srcBytes > dstBytes)
    return call.fail(comm, abi::kErrTruncate,
                     "received " + std::to_string(srcBytes) + " bytes into a buffer of " +
                         std::to_string(dstBytes));
  return abi::kSuccess;
}

// A buffer cut into one block per member: block i is counts[i] instances of
// `type`, displs[i] extents from `host`. The v-forms read counts and
// displacements from the guest; the plain forms use UniformBlocks.
struct Blocks {
  uint8_t* host = nullptr;
  Layout type;
  const int32_t* counts = nullptr;
  const int32_t* displs = nullptr;

  uint8_t* block(int i) const { return host + int64_t(displs[i]) * type->extent(); }
};

// The same blocks for the collectives across hosts (HostCollectives.h).
MemberBlocks memberBlocks(const Blocks& blocks) {
  return MemberBlocks{blocks.host, blocks.type.get(), blocks.counts, blocks.displs};
}

// The plain forms' blocks: `count` instances each, back to back, so that
// they run their v-form's body.
class UniformBlocks : public Blocks {
 public:
  UniformBlocks(uint8_t* base, Layout layout, int size, int count)
      : uniformCounts(size, count), uniformDispls(size) {
    for (int i = 0; i < size; ++i) uniformDispls[i] = int32_t(int64_t(i) * count);
    host = base;
    type = std::move(layout);
    counts = uniformCounts.data();
    displs = uniformDispls.data();
  }
  UniformBlocks(const UniformBlocks&) = delete;
  UniformBlocks& operator=(const UniformBlocks&) = delete;

 private:
  std::vector<int32_t> uniformCounts, uniformDispls;
};

// Resolves a v-form's counts, displacements and datatype and checks that
// every block lies in linear memory; `role` ("send" or "receive") names the
// buffer in errors. Only MPI_Gatherv raises negative counts by name.
int resolveBlocks(HostCall& call, int comm, int size, u32 addr, u32 countsAddr, u32 displsAddr,
                  int typeHandle, bool rejectNegative, const char* role, Blocks& out) {
  out.counts = intArray(call, countsAddr, size);
  out.displs = intArray(call, displsAddr, size);
  if (!out.counts || !out.displs)
    return call.fail(comm, abi::kErrArg, "counts or displacements outside memory");
  out.type = call.rank.type(typeHandle);
  if (!out.type) return call.fail(comm, abi::kErrType, "invalid datatype");
  for (int i = 0; i < size; ++i) {
    if (rejectNegative && out.counts[i] < 0)
      return call.fail(comm, abi::kErrCount, "negative receive count");
    bool ok;
    call.typedBuffer(uint32_t(addr + int64_t(out.displs[i]) * out.type->extent()), *out.type,
                     out.counts[i], ok);
    if (!ok)
      return call.fail(comm, abi::kErrBuffer, std::string(role) + " buffer outside linear memory");
  }
  out.host = call.granule.memoryBase() + addr;
  return abi::kSuccess;
}

#define RETURN_IF_ERROR(expr)          \
  do {                                 \
    if (int error_ = (expr)) return error_; \
  } while (0)

// What of this rank's host-side state a checkpoint file does not hold: some
// MPI objects the rank made, and MPI-IO files (its WASI files are the
// checkpoint's to record).
std::string stateNotCheckpointed(HostCall& call, bool moving = false) {
  if (std::string made = moving ? call.rank.objectsNotMovable()
                                : call.rank.objectsNotCheckpointed();
      !made.empty())
    return made + (moving ? " (a live move does not carry such MPI objects)"
                          : " (such MPI objects are not checkpointed)");
  if (!fileTable(call).empty()) return "an MPI file is open (MPI-IO files are not checkpointed)";
  return {};
}

// After a completed collective on MPI_COMM_WORLD (barrier, broadcast,
// reduce, allreduce, gather, allgather) every rank stands at the same call:
// the job can be suspended there if the launcher's control point wants it
// and every rank can be unwound (nothing pending, no setjmp host frame on
// its stack). A rooted collective may let some rank leave before the
// others arrive, so whether a message is still waiting in a mailbox is
// decided by the control point once every rank stands in it
// (setQuiescenceCheck), not here.
void offerSuspension(HostCall& call) {
  BarrierControlPoint* controlPoint = call.world().barrierControlPoint();
  if (!controlPoint) return;
  auto canSuspend = [&](std::string& why, bool& canMoveLive) {
    controlPoint->noteStateNotCheckpointed(call.rank.worldRank, stateNotCheckpointed(call),
                                           stateNotCheckpointed(call, /*moving=*/true));
    if (call.rank.hasPendingRequests()) {
      why = "a nonblocking request is still pending";
      // A live move carries a receive posted and not yet matched, and a
      // completed request; the rank must still be able to unwind. Else the
      // note names what it does not carry.
      std::string notCarried, unwinds;
      if (call.rank.hasLiveWindow()) notCarried = call.rank.objectsNotMovable();
      if (notCarried.empty() && call.rank.pendingRequestsCarried(notCarried))
        canMoveLive = call.granule.prepareUnwind(unwinds);
      if (!notCarried.empty()) why += " (" + notCarried + ": a live move does not carry it)";
      if (!unwinds.empty()) why += "; " + unwinds;
      return false;
    }
    if (call.rank.hasLiveWindow()) {
      // Refused before any rank unwinds: a suspension rewinds every rank in
      // a fresh instance, whose memory the window's host pointers miss. A
      // live move carries the windows it can (RemoteWindows.cpp): the moved
      // rank's Window is rebuilt where it arrives, the others' stay.
      why = "an MPI window is live (one-sided windows cannot be suspended)";
      std::string notCarried = call.rank.objectsNotMovable(), unwinds;
      if (notCarried.empty())
        canMoveLive = call.granule.prepareUnwind(unwinds);
      else
        why += " (" + notCarried + ": a live move does not carry it)";
      if (!unwinds.empty()) why += "; " + unwinds;
      return false;
    }
    return call.granule.prepareUnwind(why);
  };
  if (controlPoint->agreeToSuspend(call.rank.worldRank, canSuspend))
    call.granule.beginUnwind();
}

// The end of a barrier control point: a collective on MPI_COMM_WORLD that
// completed offers the job's suspension; returns the collective's result.
int endControlPoint(HostCall& call, int comm, int result) {
  if (result == abi::kSuccess && comm == abi::kCommWorld) offerSuspension(call);
  return result;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Barrier(void* instance, u32 comm) {
  HostCall call(instance, "MPI_Barrier");
  // Rewound after a suspension here: the barrier itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm))) return intercommBarrier(call, int(comm));
  if (usesHostCollectives(call, int(comm)))
    return endControlPoint(call, int(comm), barrierAcrossHosts(call, int(comm)));
  int result = runCollective(
      call, int(comm), CollectiveKind::Barrier, [](Contribution&) {},
      [](std::vector<Contribution>&, int) { return abi::kSuccess; }, CollectiveReads::SlotsOnly);
  return endControlPoint(call, int(comm), result);
}

u32 Z_envZ_MPI_Bcast(void* instance, u32 buffer, u32 count, u32 type, u32 root, u32 comm) {
  HostCall call(instance, "MPI_Bcast");
  // Rewound after a suspension here: the collective itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm)))
    return intercommBcast(call, buffer, int(count), int(type), int(root), int(comm));
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  Buffer buf;
  RETURN_IF_ERROR(resolve(call, c, buffer, int(count), int(type), false, buf));
  RETURN_IF_ERROR(checkRoot(call, c, int(root), size));
  if (usesHostCollectives(call, c))
    return endControlPoint(call, c,
                           bcastAcrossHosts(call, c, buf.host, *buf.type, buf.count, int(root)));
  bool staged = buf.type->size * buf.count <= kStagedCollectiveBytes;
  int status = runCollective(
      call, c, CollectiveKind::Bcast,
      [&](Contribution& slot) {
        slot.root = int(root);
        slot.recv = buf.host;
        if (staged && call.rank.comm(c)->comm->rankOfWorld[call.rank.worldRank] == int(root))
          slot.recv = const_cast<uint8_t*>(
              stageCopy(slot, buf.host, *buf.type, buf.count));
        slot.setRecvType(*buf.layout);
        slot.recvCount = buf.count;
      },
      [&](std::vector<Contribution>& slots, int me) {
        const Contribution& from = slots[int(root)];
        if (me == int(root)) return int(abi::kSuccess);
        return move(call, c, from.recv, *from.recvType, from.recvCount, buf.host, *buf.type,
                    buf.count);
      },
      staged ? CollectiveReads::SlotsOnly : CollectiveReads::MemberMemories, int(root));
  return endControlPoint(call, c, status);
}

u32 Z_envZ_MPI_Reduce(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                      u32 root, u32 comm) {
  HostCall call(instance, "MPI_Reduce");
  // Rewound after a suspension here: the collective itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm)))
    return intercommReduce(call, sendbuf, recvbuf, int(count), int(type), int(op), int(root),
                           int(comm));
  int c = int(comm), size, me;
  RETURN_IF_ERROR(checkRooted(call, c, int(root), size, me));
  bool isRoot = me == int(root);
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(count), int(type), isRoot, send));
  if (isRoot) RETURN_IF_ERROR(resolve(call, c, recvbuf, int(count), int(type), false, recv));
  const Layout& layout = call.rank.type(int(type));
  if (!layout) return call.fail(c, abi::kErrType, "invalid datatype");
  RETURN_IF_ERROR(checkOp(call, c, int(op), *layout));
  if (usesHostCollectives(call, c))
    return endControlPoint(call, c,
                           reduceAcrossHosts(call, c, send.inPlace ? recv.host : send.host,
                                             recv.host, *layout, int(count), int(op), int(type),
                                             int(root)));
  bool staged = layout->size * int64_t(count) <= kStagedCollectiveBytes;
  int status = runCollective(
      call, c, CollectiveKind::Reduce,
      [&](Contribution& slot) {
        slot.root = int(root);
        const uint8_t* data = send.inPlace ? recv.host : send.host;
        slot.send = send.inPlace || staged ? stageCopy(slot, data, *layout, int(count))
                                           : data;
      },
      [&](std::vector<Contribution>& slots, int) {
        if (!isRoot) return int(abi::kSuccess);
        return reduceInto(call, int(op), int(type), *layout, int(count), int(slots.size()),
                          [&](int i) { return slots[i].send; }, recv.host,
                          recvbuf);
      },
      staged ? CollectiveReads::SlotsOnly : CollectiveReads::MemberMemories,
      isRoot ? kEveryMember : me);
  return endControlPoint(call, c, status);
}

// From this many bytes on, a contiguous allreduce with a predefined op is
// split: each member reduces one block of the vector from every member's
// contribution, then copies the other blocks from their owners, so each
// reads about 2x the vector instead of N times it. Below it the extra
// barrier costs more than the reading saves.
constexpr int64_t kSplitAllreduceBytes = 16 << 10;
constexpr int64_t kStagedPairAllreduceBytes = 64;

u32 Z_envZ_MPI_Allreduce(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                         u32 comm) {
  HostCall call(instance, "MPI_Allreduce");
  // Rewound after a suspension here: the collective itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm)))
    return intercommAllreduce(call, sendbuf, recvbuf, int(count), int(type), int(op), int(comm));
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(count), int(type), true, send));
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(count), int(type), false, recv));
  RETURN_IF_ERROR(checkOp(call, c, int(op), *recv.type));
  if (usesHostCollectives(call, c))
    return endControlPoint(call, c,
                           allreduceAcrossHosts(call, c, send.inPlace ? recv.host : send.host,
                                                recv.host, *recv.type, int(count), int(op),
                                                int(type)));
  const TypeLayout& layout = *recv.type;
  // Every member decides alike: MPI requires the same count, datatype and
  // op everywhere.
  int64_t bytes = layout.size * int64_t(count);
  bool split = size > 1 && int(op) <= abi::kLastPredefinedOp && layout.isContiguous() &&
               bytes >= kSplitAllreduceBytes;
  // Between two members the last wait is one look at the other's flag,
  // which costs less than the lines a staged copy moves once the data
  // spans more than one; with more members, each slower to come round on
  // a shared core, the wait costs more than copying.
  bool staged = bytes <= (size == 2 ? kStagedPairAllreduceBytes : kStagedCollectiveBytes);
  int status = runCollective(
      call, c, CollectiveKind::Allreduce,
      [&](Contribution& slot) {
        const uint8_t* data = send.inPlace ? recv.host : send.host;
        slot.send = send.inPlace || staged ? stageCopy(slot, data, layout, int(count))
                                           : data;
        slot.recv = recv.host;
      },
      [&](std::vector<Contribution>& slots, int me) {
        if (!split)
          return reduceInto(call, int(op), int(type), layout, int(count), size,
                            [&](int i) { return slots[i].send; }, recv.host, recvbuf);
        auto blockStart = [&](int member) { return int64_t(count) * member / size; };
        int64_t first = blockStart(me), instances = blockStart(me + 1) - first;
        int result = reduceInto(call, int(op), int(type), layout, instances, size,
                                [&](int i) { return slots[i].send + first * layout.size; },
                                recv.host + first * layout.size,
                                recvbuf + uint32_t(first * layout.size));
        awaitMembers(call, c);
        for (int owner = 0; owner < size; ++owner) {
          if (owner == me) continue;
          int64_t offset = layout.lb + blockStart(owner) * layout.size;
          std::memcpy(recv.host + offset, slots[owner].recv + offset,
                      size_t((blockStart(owner + 1) - blockStart(owner)) * layout.size));
        }
        return result;
      },
      staged ? CollectiveReads::SlotsOnly : CollectiveReads::MemberMemories);
  return endControlPoint(call, c, status);
}

u32 Z_envZ_MPI_Reduce_local(void* instance, u32 inbuf, u32 inoutbuf, u32 count, u32 type,
                            u32 op) {
  HostCall call(instance, "MPI_Reduce_local");
  Buffer in, inout;
  RETURN_IF_ERROR(resolve(call, abi::kCommWorld, inbuf, int(count), int(type), false, in));
  RETURN_IF_ERROR(resolve(call, abi::kCommWorld, inoutbuf, int(count), int(type), false, inout));
  RETURN_IF_ERROR(checkOp(call, abi::kCommWorld, int(op), *in.type));
  return reduceInto(call, int(op), int(type), *in.type, int(count), 2,
                    [&](int i) { return i == 0 ? in.host : inout.host; },
                    inout.host, inoutbuf);
}

// Gather and Gatherv: the root moves every member's contribution into that
// member's block of its receive buffer; in place, its own block stays put.
static u32 gather(HostCall& call, int c, CollectiveKind kind, int root, int me,
                  const Buffer& send, const Blocks& recv) {
  return runCollective(
      call, c, kind,
      [&](Contribution& slot) {
        slot.root = root;
        slot.send = send.host;
        slot.setSendType(*send.layout);
        slot.sendCount = send.count;
      },
      [&](std::vector<Contribution>& slots, int) {
        if (me != root) return int(abi::kSuccess);
        for (int i = 0; i < int(slots.size()); ++i) {
          if (i == me && send.inPlace) continue;
          RETURN_IF_ERROR(move(call, c, slots[i].send, *slots[i].sendType, slots[i].sendCount,
                               recv.block(i), *recv.type, recv.counts[i]));
        }
        return int(abi::kSuccess);
      });
}

u32 Z_envZ_MPI_Gather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                      u32 recvcount, u32 recvtype, u32 root, u32 comm) {
  HostCall call(instance, "MPI_Gather");
  // Rewound after a suspension here: the collective itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm)))
    return intercommGather(call, sendbuf, int(sendcount), int(sendtype), recvbuf, 0, 0,
                           int(recvcount), int(recvtype), int(root), int(comm), false);
  int c = int(comm), size, me;
  RETURN_IF_ERROR(checkRooted(call, c, int(root), size, me));
  bool isRoot = me == int(root);
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount), int(sendtype), isRoot, send));
  if (isRoot)
    RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount) * size, int(recvtype), false, recv));
  if (usesHostCollectives(call, c))
    return endControlPoint(call, c,
                           gatherAcrossHosts(call, c, send.inPlace ? nullptr : send.host,
                                             send.type, send.count, recv.host, recv.type,
                                             int(recvcount), int(root)));
  UniformBlocks blocks(recv.host, *recv.layout, size, int(recvcount));
  int status = gather(call, c, CollectiveKind::Gather, int(root), me, send, blocks);
  return endControlPoint(call, c, status);
}

u32 Z_envZ_MPI_Gatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                       u32 recvcounts, u32 displs, u32 recvtype, u32 root, u32 comm) {
  HostCall call(instance, "MPI_Gatherv");
  if (intercommOf(call, int(comm)))
    return intercommGather(call, sendbuf, int(sendcount), int(sendtype), recvbuf, recvcounts,
                           displs, 0, int(recvtype), int(root), int(comm), true);
  int c = int(comm), size, me;
  RETURN_IF_ERROR(checkRooted(call, c, int(root), size, me));
  bool isRoot = me == int(root);
  Buffer send;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount), int(sendtype), isRoot, send));
  Blocks blocks;
  if (isRoot)
    RETURN_IF_ERROR(resolveBlocks(call, c, size, recvbuf, recvcounts, displs, int(recvtype), true,
                                  "receive", blocks));
  if (usesHostCollectives(call, c))
    return gathervAcrossHosts(call, c, send.inPlace ? nullptr : send.host, send.type, send.count,
                              memberBlocks(blocks), int(root));
  return gather(call, c, CollectiveKind::Gatherv, int(root), me, send, blocks);
}

// Scatter and Scatterv: every member but an in-place root copies its block
// of the root's send buffer.
static u32 scatter(HostCall& call, int c, CollectiveKind kind, int root, const Blocks& send,
                   const Buffer& recv) {
  return runCollective(
      call, c, kind,
      [&](Contribution& slot) {
        slot.root = root;
        slot.send = send.host;
        slot.setSendType(send.type);
        slot.sendCounts = send.counts;
        slot.sendDispls = send.displs;
      },
      [&](std::vector<Contribution>& slots, int me) {
        if (recv.inPlace) return int(abi::kSuccess);
        const Contribution& from = slots[root];
        const uint8_t* src = from.send + int64_t(from.sendDispls[me]) * from.sendType->extent();
        return move(call, c, src, *from.sendType, from.sendCounts[me], recv.host, *recv.type,
                    recv.count);
      });
}

u32 Z_envZ_MPI_Scatter(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                       u32 recvcount, u32 recvtype, u32 root, u32 comm) {
  HostCall call(instance, "MPI_Scatter");
  if (intercommOf(call, int(comm)))
    return intercommScatter(call, sendbuf, 0, 0, int(sendcount), int(sendtype), recvbuf,
                            int(recvcount), int(recvtype), int(root), int(comm), false);
  int c = int(comm), size, me;
  RETURN_IF_ERROR(checkRooted(call, c, int(root), size, me));
  bool isRoot = me == int(root);
  Buffer send, recv;
  if (isRoot)
    RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount) * size, int(sendtype), false, send));
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount), int(recvtype), isRoot, recv));
  if (usesHostCollectives(call, c))
    return scatterAcrossHosts(call, c, send.host, send.type, int(sendcount),
                              recv.inPlace ? nullptr : recv.host, recv.type, recv.count,
                              int(root));
  UniformBlocks blocks(send.host, *send.layout, size, int(sendcount));
  return scatter(call, c, CollectiveKind::Scatter, int(root), blocks, recv);
}

u32 Z_envZ_MPI_Scatterv(void* instance, u32 sendbuf, u32 sendcounts, u32 displs, u32 sendtype,
                        u32 recvbuf, u32 recvcount, u32 recvtype, u32 root, u32 comm) {
  HostCall call(instance, "MPI_Scatterv");
  if (intercommOf(call, int(comm)))
    return intercommScatter(call, sendbuf, sendcounts, displs, 0, int(sendtype), recvbuf,
                            int(recvcount), int(recvtype), int(root), int(comm), true);
  int c = int(comm), size, me;
  RETURN_IF_ERROR(checkRooted(call, c, int(root), size, me));
  bool isRoot = me == int(root);
  Buffer recv;
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount), int(recvtype), isRoot, recv));
  Blocks blocks;
  if (isRoot)
    RETURN_IF_ERROR(resolveBlocks(call, c, size, sendbuf, sendcounts, displs, int(sendtype), false,
                                  "send", blocks));
  if (usesHostCollectives(call, c))
    return scattervAcrossHosts(call, c, memberBlocks(blocks), recv.inPlace ? nullptr : recv.host,
                               recv.type, recv.count, int(root));
  return scatter(call, c, CollectiveKind::Scatterv, int(root), blocks, recv);
}

// Allgather and Allgatherv: every member moves every other member's
// contribution into that member's block of its receive buffer. In place, a
// member contributes its own block, staged.
static u32 allgather(HostCall& call, int c, CollectiveKind kind, int me, const Buffer& send,
                     const Blocks& recv) {
  return runCollective(
      call, c, kind,
      [&](Contribution& slot) {
        if (send.inPlace) {
          slot.send = stageCopy(slot, recv.block(me), *recv.type, recv.counts[me]);
          slot.setSendType(recv.type);
          slot.sendCount = recv.counts[me];
        } else {
          slot.send = send.host;
          slot.setSendType(*send.layout);
          slot.sendCount = send.count;
        }
      },
      [&](std::vector<Contribution>& slots, int) {
        for (int i = 0; i < int(slots.size()); ++i) {
          if (i == me && send.inPlace) continue;
          RETURN_IF_ERROR(move(call, c, slots[i].send, *slots[i].sendType, slots[i].sendCount,
                               recv.block(i), *recv.type, recv.counts[i]));
        }
        return int(abi::kSuccess);
      });
}

u32 Z_envZ_MPI_Allgather(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                         u32 recvcount, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Allgather");
  // Rewound after a suspension here: the collective itself was done before.
  if (call.granule.finishRewind()) return abi::kSuccess;
  if (intercommOf(call, int(comm)))
    return intercommAllgather(call, sendbuf, int(sendcount), int(sendtype), recvbuf, 0, 0,
                              int(recvcount), int(recvtype), int(comm), false);
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  int me = rankIn(call, c);
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount), int(sendtype), true, send));
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount) * size, int(recvtype), false, recv));
  if (usesHostCollectives(call, c))
    return endControlPoint(call, c,
                           allgatherAcrossHosts(call, c, send.inPlace ? nullptr : send.host,
                                                send.type, send.count, recv.host, *recv.type,
                                                int(recvcount)));
  UniformBlocks blocks(recv.host, *recv.layout, size, int(recvcount));
  int status = allgather(call, c, CollectiveKind::Allgather, me, send, blocks);
  return endControlPoint(call, c, status);
}

u32 Z_envZ_MPI_Allgatherv(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                          u32 recvcounts, u32 displs, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Allgatherv");
  if (intercommOf(call, int(comm)))
    return intercommAllgather(call, sendbuf, int(sendcount), int(sendtype), recvbuf, recvcounts,
                              displs, 0, int(recvtype), int(comm), true);
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  int me = rankIn(call, c);
  Buffer send;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount), int(sendtype), true, send));
  Blocks blocks;
  RETURN_IF_ERROR(resolveBlocks(call, c, size, recvbuf, recvcounts, displs, int(recvtype), false,
                                "receive", blocks));
  if (usesHostCollectives(call, c))
    return allgathervAcrossHosts(call, c, send.inPlace ? nullptr : send.host, send.type,
                                 send.count, blocks.host, *blocks.type, blocks.counts,
                                 blocks.displs);
  return allgather(call, c, CollectiveKind::Allgatherv, me, send, blocks);
}

// Alltoall and Alltoallv: every member moves its block of each member's send
// buffer into that member's block of its receive buffer. In place, `send`
// describes the receive buffer's blocks and the first `inPlaceSpan`
// instances of it are staged as the send buffer.
static u32 alltoall(HostCall& call, int c, CollectiveKind kind, bool inPlace, int64_t inPlaceSpan,
                    const Blocks& send, const Blocks& recv) {
  return runCollective(
      call, c, kind,
      [&](Contribution& slot) {
        slot.send = inPlace ? stageCopy(slot, recv.host, *recv.type, inPlaceSpan)
                            : send.host;
        slot.setSendType(send.type);
        slot.sendCounts = send.counts;
        slot.sendDispls = send.displs;
      },
      [&](std::vector<Contribution>& slots, int me) {
        for (int i = 0; i < int(slots.size()); ++i) {
          const Contribution& from = slots[i];
          const uint8_t* src = from.send + int64_t(from.sendDispls[me]) * from.sendType->extent();
          RETURN_IF_ERROR(move(call, c, src, *from.sendType, from.sendCounts[me], recv.block(i),
                               *recv.type, recv.counts[i]));
        }
        return int(abi::kSuccess);
      });
}

u32 Z_envZ_MPI_Alltoall(void* instance, u32 sendbuf, u32 sendcount, u32 sendtype, u32 recvbuf,
                        u32 recvcount, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Alltoall");
  if (intercommOf(call, int(comm)))
    return intercommAlltoall(call, sendbuf, 0, 0, int(sendcount), int(sendtype), recvbuf, 0, 0,
                             int(recvcount), int(recvtype), int(comm), false);
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(sendcount) * size, int(sendtype), true, send));
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount) * size, int(recvtype), false, recv));
  if (usesHostCollectives(call, c))
    return alltoallAcrossHosts(call, c, send.inPlace ? nullptr : send.host, send.type,
                               int(sendcount), recv.host, *recv.type, int(recvcount));
  UniformBlocks recvBlocks(recv.host, *recv.layout, size, int(recvcount));
  UniformBlocks sendBlocks(send.host, send.inPlace ? *recv.layout : *send.layout, size,
                           send.inPlace ? int(recvcount) : int(sendcount));
  return alltoall(call, c, CollectiveKind::Alltoall, send.inPlace, recv.count, sendBlocks,
                  recvBlocks);
}

u32 Z_envZ_MPI_Alltoallv(void* instance, u32 sendbuf, u32 sendcounts, u32 sdispls, u32 sendtype,
                         u32 recvbuf, u32 recvcounts, u32 rdispls, u32 recvtype, u32 comm) {
  HostCall call(instance, "MPI_Alltoallv");
  if (intercommOf(call, int(comm)))
    return intercommAlltoall(call, sendbuf, sendcounts, sdispls, 0, int(sendtype), recvbuf,
                             recvcounts, rdispls, 0, int(recvtype), int(comm), true);
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  bool inPlace = sendbuf == abi::kInPlace;
  const int32_t* rcounts = intArray(call, recvcounts, size);
  const int32_t* roffsets = intArray(call, rdispls, size);
  const int32_t* scounts = inPlace ? rcounts : intArray(call, sendcounts, size);
  const int32_t* soffsets = inPlace ? roffsets : intArray(call, sdispls, size);
  if (!rcounts || !roffsets || !scounts || !soffsets)
    return call.fail(c, abi::kErrArg, "counts or displacements outside memory");
  Layout recvLayout = call.rank.type(int(recvtype));
  Layout sendLayout = inPlace ? recvLayout : call.rank.type(int(sendtype));
  if (!recvLayout || !sendLayout) return call.fail(c, abi::kErrType, "invalid datatype");
  int64_t recvSpanEnd = 0;
  for (int i = 0; i < size; ++i) {
    bool ok;
    call.typedBuffer(uint32_t(recvbuf + int64_t(roffsets[i]) * recvLayout->extent()), *recvLayout,
                     rcounts[i], ok);
    if (!ok) return call.fail(c, abi::kErrBuffer, "receive buffer outside linear memory");
    recvSpanEnd = std::max<int64_t>(recvSpanEnd, int64_t(roffsets[i]) + rcounts[i]);
    if (!inPlace) {
      call.typedBuffer(uint32_t(sendbuf + int64_t(soffsets[i]) * sendLayout->extent()),
                       *sendLayout, scounts[i], ok);
      if (!ok) return call.fail(c, abi::kErrBuffer, "send buffer outside linear memory");
    }
  }
  // In place, the counts arrays are read after this rank may have returned
  // (they are the same arrays), so they are copied aside as well.
  std::vector<int32_t> stagedCounts(rcounts, rcounts + size);
  std::vector<int32_t> stagedOffsets(roffsets, roffsets + size);
  Blocks recv{call.granule.memoryBase() + recvbuf, recvLayout, stagedCounts.data(),
              stagedOffsets.data()};
  Blocks send{inPlace ? nullptr : call.granule.memoryBase() + sendbuf, sendLayout,
              inPlace ? stagedCounts.data() : scounts, inPlace ? stagedOffsets.data() : soffsets};
  if (usesHostCollectives(call, c))
    return alltoallvAcrossHosts(
        call, c,
        MemberBlocks{inPlace ? recv.host : send.host, send.type.get(), send.counts, send.displs},
        memberBlocks(recv));
  return alltoall(call, c, CollectiveKind::Alltoallv, inPlace, recvSpanEnd, send, recv);
}

u32 Z_envZ_MPI_Reduce_scatter_block(void* instance, u32 sendbuf, u32 recvbuf, u32 recvcount,
                                    u32 type, u32 op, u32 comm) {
  HostCall call(instance, "MPI_Reduce_scatter_block");
  if (intercommOf(call, int(comm)))
    return intercommReduceScatter(call, sendbuf, recvbuf, 0, int(recvcount), int(type), int(op),
                                  int(comm));
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  Buffer send, recv, whole;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(recvcount) * size, int(type), true, send));
  bool inPlace = send.inPlace;
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(recvcount) * (inPlace ? size : 1), int(type),
                          false, recv));
  RETURN_IF_ERROR(checkOp(call, c, int(op), *recv.type));
  if (usesHostCollectives(call, c))
    return reduceScatterAcrossHosts(call, c, CollectiveKind::ReduceScatterBlock,
                                    inPlace ? recv.host : send.host, recv.host, *recv.type,
                                    std::vector<int64_t>(size_t(size), int64_t(recvcount)),
                                    int(op), int(type));
  int64_t block = int64_t(recvcount) * recv.type->extent();
  return runCollective(
      call, c, CollectiveKind::ReduceScatterBlock,
      [&](Contribution& slot) {
        slot.send = inPlace ? stageCopy(slot, recv.host, *recv.type, int64_t(recvcount) * size)
                            : send.host;
      },
      [&](std::vector<Contribution>& slots, int me) {
        return reduceInto(call, int(op), int(type), *recv.type, int(recvcount), int(slots.size()),
                          [&](int i) { return slots[i].send + me * block; },
                          recv.host, recvbuf);
      });
}

u32 Z_envZ_MPI_Reduce_scatter(void* instance, u32 sendbuf, u32 recvbuf, u32 recvcounts, u32 type,
                              u32 op, u32 comm) {
  HostCall call(instance, "MPI_Reduce_scatter");
  if (intercommOf(call, int(comm)))
    return intercommReduceScatter(call, sendbuf, recvbuf, recvcounts, 0, int(type), int(op),
                                  int(comm));
  int c = int(comm);
  int size = commSize(call, c);
  if (size < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  int me = rankIn(call, c);
  const int32_t* counts = intArray(call, recvcounts, size);
  if (!counts) return call.fail(c, abi::kErrArg, "counts outside linear memory");
  int64_t total = 0, offset = 0;
  for (int i = 0; i < size; ++i) {
    if (counts[i] < 0) return call.fail(c, abi::kErrCount, "negative count");
    if (i < me) offset += counts[i];
    total += counts[i];
  }
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(total), int(type), true, send));
  bool inPlace = send.inPlace;
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(inPlace ? total : counts[me]), int(type), false,
                          recv));
  RETURN_IF_ERROR(checkOp(call, c, int(op), *recv.type));
  if (usesHostCollectives(call, c))
    return reduceScatterAcrossHosts(call, c, CollectiveKind::ReduceScatter,
                                    inPlace ? recv.host : send.host, recv.host, *recv.type,
                                    std::vector<int64_t>(counts, counts + size), int(op),
                                    int(type));
  int64_t extent = recv.type->extent();
  int myCount = counts[me];
  return runCollective(
      call, c, CollectiveKind::ReduceScatter,
      [&](Contribution& slot) {
        slot.send = inPlace ? stageCopy(slot, recv.host, *recv.type, total) : send.host;
      },
      [&](std::vector<Contribution>& slots, int) {
        return reduceInto(call, int(op), int(type), *recv.type, myCount, int(slots.size()),
                          [&](int i) { return slots[i].send + offset * extent; }, recv.host,
                          recvbuf);
      });
}

static u32 scan(void* instance, const char* name, bool exclusive, u32 sendbuf, u32 recvbuf,
                u32 count, u32 type, u32 op, u32 comm) {
  HostCall call(instance, name);
  int c = int(comm);
  if (commSize(call, c) < 0) return call.fail(c, abi::kErrComm, "invalid communicator");
  Buffer send, recv;
  RETURN_IF_ERROR(resolve(call, c, sendbuf, int(count), int(type), true, send));
  RETURN_IF_ERROR(resolve(call, c, recvbuf, int(count), int(type), false, recv));
  RETURN_IF_ERROR(checkOp(call, c, int(op), *recv.type));
  if (usesHostCollectives(call, c))
    return scanAcrossHosts(call, c, send.inPlace ? recv.host : send.host, recv.host, *recv.type,
                           int(count), int(op), int(type), exclusive);
  return runCollective(
      call, c, exclusive ? CollectiveKind::Exscan : CollectiveKind::Scan,
      [&](Contribution& slot) {
        slot.send = send.inPlace ? stageCopy(slot, recv.host, *recv.type, int(count))
                                 : send.host;
      },
      [&](std::vector<Contribution>& slots, int me) {
        int contributors = exclusive ? me : me + 1;  // ranks 0 .. contributors - 1
        return reduceInto(call, int(op), int(type), *recv.type, int(count), contributors,
                          [&](int i) { return slots[i].send; }, recv.host, recvbuf);
      });
}

u32 Z_envZ_MPI_Scan(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                    u32 comm) {
  return scan(instance, "MPI_Scan", false, sendbuf, recvbuf, count, type, op, comm);
}

u32 Z_envZ_MPI_Exscan(void* instance, u32 sendbuf, u32 recvbuf, u32 count, u32 type, u32 op,
                      u32 comm) {
  return scan(instance, "MPI_Exscan", true, sendbuf, recvbuf, count, type, op, comm);
}

u32 Z_envZ_MPI_Op_create(void* instance, u32 function, u32 commute, u32 opOut) {
  HostCall call(instance, "MPI_Op_create");
  if (!call.bytes(opOut, 4)) return call.fail(abi::kCommWorld, abi::kErrArg, "op pointer outside memory");
  call.store<int32_t>(opOut, call.rank.addOp(UserOp{function, commute != 0}));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Op_free(void* instance, u32 opAddr) {
  HostCall call(instance, "MPI_Op_free");
  int32_t op;
  if (!call.load(opAddr, op) || !call.rank.userOp(op))
    return call.fail(abi::kCommWorld, abi::kErrOp, "not a user-defined op");
  call.rank.freeOp(op);
  call.store<int32_t>(opAddr, abi::kOpNull);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Op_commutative(void* instance, u32 op, u32 commuteOut) {
  HostCall call(instance, "MPI_Op_commutative");
  if (!call.rank.isOp(int(op))) return call.fail(abi::kCommWorld, abi::kErrOp, "invalid op");
  const UserOp* user = call.rank.userOp(int(op));
  call.store<int32_t>(commuteOut, user ? user->commutative : 1);
  return abi::kSuccess;
}

}  // extern "C"
