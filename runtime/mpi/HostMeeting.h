//===- HostMeeting.h - the members on one host meeting in shared memory ---===//
//
// A collective over ranks on several hosts (HostCollectives.h) has a local
// phase on each host: the host's leader collects what its members
// contribute and hands them the result. Those members are threads of one
// process, so they need not send that to each other: a HostMeeting lets
// each member post its buffers in its slot of the communicator's collective
// slots (its send and receive buffers, types and counts) and wait; the
// leader, once every member of its host has posted, reads their send
// buffers and writes their receive buffers itself, in place, then releases
// them. Against two messages through the leader this saves each member two
// copies of its data, a pack and an unpack, and the leader one copy a
// member, and no member's data waits in a mailbox.
//
// A communicator whose members span hosts never runs the single-host
// collectives (runCollective refuses it), so its slots, their posted marks
// and its members' progress counters serve the meetings alone: member m's
// k-th meeting on the communicator posts into slot set k % kSlotSets. A
// member enters its next meeting only after the leader released the one
// before, and the leader reads a member's slot only between that member's
// post and its release, so no slot set is written while it is read.
//
// A post wakes only the leader and a release only the host's members, and
// their waits are for ranks of this host (World::Awaited::ThisHost): they
// leave the connections to other hosts to the leader, which waits for the
// other hosts' leaders meanwhile and so reads their answer itself.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/CollectiveEngine.h"
#include "mpi/RankState.h"
#include "mpi/World.h"
#include "util/FunctionRef.h"

namespace synergy::mpi {

class HostMeeting {
 public:
  // Posts the calling rank's slot, which `fill` writes, for its next
  // meeting on `comm`, whose members on this host are `members` (comm
  // ranks, the leader first).
  HostMeeting(HostCall& call, Communicator& comm, const std::vector<int>& members,
              CollectiveKind kind, util::FunctionRef<void(Contribution&)> fill);

  // The leader: waits until every member of this host has posted.
  void awaitMembers();
  // The leader, after awaitMembers(): member `index`'s slot (an index in
  // `members`).
  const Contribution& slotOf(size_t index) const;
  // The leader: tells the members that their receive buffers hold the
  // result, and that it is done with their send buffers.
  void release();
  // A member other than the leader: waits for the leader's release.
  void awaitRelease();

 private:
  HostCall& call_;
  Communicator& comm_;
  const std::vector<int>& members_;
  uint64_t sequence_;
  std::vector<Contribution>& slots_;
};

}  // namespace synergy::mpi
