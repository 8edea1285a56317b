//===- CommunicatorAttributes.h - keyvals and attributes on communicators -===//
//
// What MPI_Comm_dup and MPI_Comm_free (Communicators.cpp) must do about the
// attributes a program hung on a communicator: run the copy and delete
// callbacks of their keyvals (CommunicatorAttributes.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mpi/RankState.h"

namespace synergy::mpi {

// Copies the attributes of communicator handle `from` to the new handle
// `to` through their keyvals' copy callbacks; returns 0 or the error a
// callback returned (raised on `from`).
int copyCommAttributes(HostCall& call, int from, int to);

// Deletes every attribute of communicator handle `comm` through its
// keyval's delete callback; returns 0 or the first error a callback
// returned (raised on `comm`).
int deleteCommAttributes(HostCall& call, int comm);

}  // namespace synergy::mpi
