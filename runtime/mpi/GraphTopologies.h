//===- GraphTopologies.h - the neighbours of a topology's members ----------===//
//
// What the neighbour collectives (NeighborCollectives.cpp) need of a
// communicator's topology (Cartesian, graph or distributed graph;
// GraphTopologies.cpp): whom the calling member receives from and sends
// to, and which block of its buffers each message fills or carries.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <vector>

#include "mpi/RankState.h"

namespace synergy::mpi {

// One message of a neighbour collective: its peer (a rank of the
// communicator, or MPI_PROC_NULL, which moves nothing) and the index of
// the buffer block it fills or carries.
struct NeighborMessage {
  int peer;
  int block;
};

// The calling member's messages, in the order they are posted, which
// decides which of several messages between the same two members matches
// which: the k-th send to a peer meets that peer's k-th receive from here.
struct NeighborExchange {
  std::vector<NeighborMessage> receives;  // indegree of them
  std::vector<NeighborMessage> sends;     // outdegree of them
};

// Fills `out` for the calling member of communicator handle `comm`;
// returns 0 or the raised error (MPI_ERR_TOPOLOGY without a topology).
int neighborsOf(HostCall& call, int comm, NeighborExchange& out);

}  // namespace synergy::mpi
