//===- GeneralizedRequests.h - requests the program completes itself ------===//
//
// MPI_Grequest_start makes a request for an operation the program runs on
// its own, and MPI_Grequest_complete marks it done. The completion calls
// treat it like any other request, and call its three guest callbacks
// where MPI says: the query function fills the status when a Wait, Test or
// MPI_Request_get_status sees it complete, the free function runs once the
// request is both complete and freed, and MPI_Cancel calls the cancel
// function. These are the hooks PointToPoint.cpp and RequestCancellation.cpp
// call for a request of Kind::Generalized.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "mpi/RankState.h"

namespace synergy::mpi {

// Completed generalized request `request`: runs its query function into the
// status at `statusAddr` (which may be MPI_STATUS_IGNORE) and, when the
// completion call frees the request (`freeing`), then its free function.
// Returns the error code the query or the free function returned.
int finishGeneralized(HostCall& call, Request& request, uint32_t statusAddr, bool freeing);

// MPI_Cancel: runs the cancel function with whether the request completed.
int cancelGeneralized(HostCall& call, Request& request);

// MPI_Request_free of handle `handle`: a request already complete runs its
// free function and its handle goes; one still pending keeps its handle
// until MPI_Grequest_complete, which then frees it. Returns the free
// function's error code.
int freeGeneralized(HostCall& call, Request& request, int handle);

}  // namespace synergy::mpi
