//===- CollectiveEngine.h - running one collective, reducing buffers ------===//
//
// The two building blocks every collective call (and every communicator
// constructor) uses:
//  - runCollective: post this rank's Contribution, wait until the members
//    whose slots it reads have posted, run the rank's part (which reads
//    those slots and the other ranks' memories directly), then wait until
//    all are done reading. A part that reads nothing but the slots skips
//    that last wait, so a broadcast's root or a reduction's non-roots leave
//    as soon as they have posted;
//  - reduceInto: fold several same-shaped buffers with a predefined or a
//    user-defined op, in rank order, into a buffer of the calling rank.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <vector>

#include "mpi/RankState.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

enum class CollectiveKind : int {
  Barrier = 1, Bcast, Reduce, Allreduce, Gather, Gatherv, Scatter, Scatterv, Allgather,
  Allgatherv, Alltoall, Alltoallv, ReduceScatter, ReduceScatterBlock, Scan, Exscan,
  CommSplit, WinCreate, WinFence, WinFree, FileOperation,
  // Run as nonblocking collectives (NonblockingCollectives.h); at most 31.
  NeighborAllgather, NeighborAlltoall, DistGraphCreate,
};

// Collectives moving at most this many bytes per member stage them in their
// slots (CollectiveReads::SlotsOnly): copying that little costs less than
// the second wait.
inline constexpr int64_t kStagedCollectiveBytes = 4096;

// What a collective's part reads of the other members: their memories
// through the pointers they posted, or only data staged in their slots.
// Every member must pass the same value.
enum class CollectiveReads { MemberMemories, SlotsOnly };

// Whose slots this member's part reads, so whose posts it waits for.
inline constexpr int kEveryMember = -1;

// Runs the collective described by this rank's slot, which `fill` writes.
// `body(slots, me)` is this rank's part; it returns an error class (raised
// through the communicator's error handler by runCollective) or success.
int runCollective(HostCall& call, int commHandle, CollectiveKind kind,
                  util::FunctionRef<void(Contribution&)> fill,
                  util::FunctionRef<int(std::vector<Contribution>&, int)> body,
                  CollectiveReads reads = CollectiveReads::MemberMemories,
                  int readsSlotOf = kEveryMember);

// Inside a collective's body: waits until every member of `commHandle` has
// got here, for collectives that run in phases.
void awaitMembers(HostCall& call, int commHandle);

// Copies `count` instances of `type` at `base` aside into `slot` (into its
// first cache line when they fit) and returns the address to publish in
// their place: MPI_IN_PLACE data would otherwise be overwritten while other
// ranks read it, and a small collective whose members read only staged
// data saves its last wait.
const uint8_t* stageCopy(Contribution& slot, const uint8_t* base, const TypeLayout& type,
                         int64_t count);

// out = source(0) op (source(1) op (... op source(k-1))), each source being
// `count` instances of `type`. `outGuest` is out's guest address and
// `typeHandle` the caller's handle for `type` (user ops receive both).
// Returns an error class.
int reduceInto(HostCall& call, int op, int typeHandle, const TypeLayout& type, int64_t count,
               int sourceCount, util::FunctionRef<const uint8_t*(int)> source, uint8_t* out,
               uint32_t outGuest);

// inout = in op inout for user-defined `op`, on packed operands of `count`
// instances of `type` (`typeHandle` the caller's handle for it): for
// reductions whose partial results travel between hosts packed. The
// operands are unpacked into scratch space borrowed from the caller's
// guest, whose function combines them there. Returns an error class.
int applyUserOpPacked(HostCall& call, int comm, int op, int typeHandle, const TypeLayout& type,
                      int64_t count, const uint8_t* in, uint8_t* inout);

// Whether `op` is a valid op for `type` on this rank; raises otherwise.
int checkOp(HostCall& call, int comm, int op, const TypeLayout& type);

}  // namespace synergy::mpi
