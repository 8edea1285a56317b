//===- Communicators.h - what the communicator constructors share ----------===//
//
// Every intracommunicator constructor (dup, split, create, the topology
// constructors of Communicators.cpp and GraphTopologies.cpp) is one
// comm-split collective over the parent; see Communicators.cpp. The
// neighbour collectives (NeighborCollectives.cpp) find a Cartesian
// topology's neighbours as MPI_Cart_shift does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>

#include "mpi/RankState.h"

namespace synergy::mpi {

// Each member of communicator handle `comm` passes (color, key); the
// members of a color get a new communicator, ranked by key (ties in parent
// rank order), with the Cartesian topology `cart` when it has a value.
// Stores the new handle, or MPI_COMM_NULL for MPI_UNDEFINED, at guest
// `newcommOut`; returns 0 or the raised error.
int splitCommunicator(HostCall& call, int comm, int color, int key, uint32_t newcommOut,
                      const std::optional<CartTopology>& cart);

// The rank `disp` steps from `rank` along dimension `dim` of `cart`, or
// MPI_PROC_NULL when that leaves a non-periodic dimension.
int cartShift(const CartTopology& cart, int rank, int dim, int disp);

}  // namespace synergy::mpi
