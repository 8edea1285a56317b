//===- CommunicatorErrorHandlers.h - user error handlers on communicators --===//
//
// HostCall::fail (RankState.cpp) raises an error on a communicator whose
// handler the program made with MPI_Comm_create_errhandler through this
// (CommunicatorErrorHandlers.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mpi/RankState.h"

namespace synergy::mpi {

// Calls user handler `errhandler` with communicator handle `comm` and
// `errorCode`; does nothing when `errhandler` is not a communicator one.
void callUserCommErrorHandler(HostCall& call, int comm, int errhandler, int errorCode);

}  // namespace synergy::mpi
