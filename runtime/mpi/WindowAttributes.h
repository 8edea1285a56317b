//===- WindowAttributes.h - attributes the program hangs on windows -------===//
//
// What MPI_Win_get_attr and MPI_Win_free (OneSided.cpp) must do about the
// attributes of keyvals the program made (WindowAttributes.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mpi/RankState.h"

namespace synergy::mpi {

// MPI_Win_get_attr for a keyval the program made, on live window `win`;
// errors are raised on `errorComm`, the window's communicator.
int getWindowAttribute(HostCall& call, int errorComm, int win, int keyval, uint32_t valueOut,
                       uint32_t flagOut);

// Runs the delete callback of every attribute of window handle `win` and
// forgets them; returns 0 or the first error a callback returned.
int deleteWindowAttributes(HostCall& call, int win);

}  // namespace synergy::mpi
