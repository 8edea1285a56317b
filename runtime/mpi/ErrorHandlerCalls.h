//===- ErrorHandlerCalls.h - calling a guest's MPI error handler ----------===//
//
// A user error handler (MPI_Comm_create_errhandler,
// MPI_Win_create_errhandler, MPI_File_create_errhandler) is a guest
// function of type void (HANDLE*, int*, ...), or one defined without the
// ellipsis and cast to it, called through the module's function table. All kinds check and call it the same way
// (ErrorHandlerCalls.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "mpi/RankState.h"

namespace synergy::mpi {

// Traps, as a bad call_indirect would, unless table entry `function` is a
// function of an error-handler type.
void checkErrorHandlerFunction(HostCall& call, uint32_t function);

// Calls handler `function` with pointers to `objectHandle` and
// `errorCode`, placed in a frame on the guest's own stack.
void callGuestErrorHandler(HostCall& call, uint32_t function, int32_t objectHandle,
                           int errorCode);

}  // namespace synergy::mpi
