//===- HostMeeting.cpp - the members on one host meeting in shared memory -===//
#include "mpi/HostMeeting.h"

namespace synergy::mpi {

HostMeeting::HostMeeting(HostCall& call, Communicator& comm, const std::vector<int>& members,
                         CollectiveKind kind, util::FunctionRef<void(Contribution&)> fill)
    : call_(call),
      comm_(comm),
      members_(members),
      sequence_(++comm.progressOf[comm.rankOfWorld[call.rank.worldRank]].collectives),
      slots_(comm.slotSets[sequence_ % Communicator::kSlotSets]) {
  int me = comm.rankOfWorld[call.rank.worldRank];
  Contribution& slot = slots_[size_t(me)];
  slot.reset();
  slot.kind = int(kind);
  fill(slot);
  // Only the leader reads the slot: it alone needs to see the post.
  if (me != members_[0])
    call.world().publishMarkFor(call.rank.worldRank, comm, slot.posted, sequence_,
                                std::span<const int>(members_.data(), 1));
}

// The leader reads the connections to other hosts while it waits for its
// members: what they bring is for this meeting's next step, mostly, and
// read by the I/O thread, each frame would cost that thread a wake-up
// (MPI_Alltoall at 4 ranks, 2+1+1: the 2-rank host's leader met the
// others' bundles already delivered, so it never polled, and its I/O
// thread woke about 1.5 times a call). Members keep off them
// (HostPhases::waitAll's comment says why).
void HostMeeting::awaitMembers() {
  for (size_t i = 1; i < members_.size(); ++i) {
    WaitInfo info{call_.name, members_[i], 0, &comm_};
    std::atomic<uint64_t>& posted = slots_[size_t(members_[i])].posted;
    if (posted.load(std::memory_order_acquire) < sequence_ &&
        !call_.world().waitUntilReady(
            call_.rank.worldRank, info,
            [&] { return posted.load(std::memory_order_acquire) >= sequence_; },
            World::Awaited::AnyHost))
      call_.leaveAbortedJob();
  }
}

const Contribution& HostMeeting::slotOf(size_t index) const {
  return slots_[size_t(members_[index])];
}

void HostMeeting::release() {
  call_.world().publishMarkFor(call_.rank.worldRank, comm_,
                               comm_.finishedUpTo[members_[0]].value, sequence_,
                               std::span<const int>(members_).subspan(1));
}

void HostMeeting::awaitRelease() {
  std::atomic<uint64_t>& released = comm_.finishedUpTo[members_[0]].value;
  WaitInfo info{call_.name, members_[0], 0, &comm_};
  if (released.load(std::memory_order_acquire) < sequence_ &&
      !call_.world().waitUntilReady(
          call_.rank.worldRank, info,
          [&] { return released.load(std::memory_order_acquire) >= sequence_; },
          World::Awaited::ThisHost))
    call_.leaveAbortedJob();
  // Its own finished mark as well, which no meeting reads: once live moves
  // leave every member of the communicator on this host, it runs the
  // single-host collectives, which wait on every member's mark
  // (CollectiveEngine.cpp) from the first after kSlotSets on.
  comm_.finishedUpTo[size_t(comm_.rankOfWorld[call_.rank.worldRank])].value.store(
      sequence_, std::memory_order_release);
}

}  // namespace synergy::mpi
