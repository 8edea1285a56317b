//===- NonblockingCollectives.h - completing MPI_I* collective requests ---===//
//
// A nonblocking collective (MPI_Ibarrier, MPI_Iallreduce, ...) is a request
// of kind Collective: its data moves as point-to-point messages on a
// context of its own, posted when the call starts, and what is left once
// they have all arrived (folding staged contributions into the receive
// buffer) runs when a completion call finds them complete. The completion
// calls (PointToPoint.cpp) reach the schedule only through these three
// functions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mpi/RankState.h"

namespace synergy::mpi {

// The messages of one nonblocking collective and its local step.
struct CollectiveSchedule {
  int commHandle = 0;
  std::shared_ptr<Communicator> comm;
  // The receives, each of which must complete; sends are copied as they
  // start and need no tracking.
  std::vector<std::shared_ptr<Request>> receives;
  // Contributions received or copied aside for the local step.
  std::vector<std::vector<uint8_t>> staging;
  // Runs once every receive has completed; returns an error class.
  std::function<int(HostCall&)> localStep;
};

// Completes `request`, a Collective one, when all its receives have
// completed: runs its local step and marks it complete. Otherwise, or
// when it is complete already, does nothing.
void advanceCollective(HostCall& call, Request& request);

// Waits until the Collective `request` completes; leaves the rank when
// the job was aborted.
void awaitCollective(HostCall& call, Request& request);

// For waiting on several requests: the Collective `request` itself when it
// is complete, otherwise one of its receives that has not completed.
Request* pendingPartOf(Request& request);

}  // namespace synergy::mpi
