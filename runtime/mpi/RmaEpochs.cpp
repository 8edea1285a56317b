//===- RmaEpochs.cpp - which epochs a window member is in -----------------===//
//
// MPI-3.1 section 11.5 lets a one-sided operation run only inside an access
// epoch towards its target, and lets a member open an epoch only when no
// other kind is open: a lock or lock_all (passive target), a start (general
// active target access), a post (general active target exposure), or the
// epoch a fence opens, which lasts until the next fence unless that fence
// says MPI_MODE_NOSUCCEED. A fence epoch ends early when the member opens
// any other kind, as in MPICH: a program may fence and then lock.
//
// Operations on a window of one host act on the target's memory when they
// are called, so an operation outside its epoch would not fail: it would
// race with the target's own accesses, silently. MPICH and OpenMPI raise
// MPI_ERR_RMA_SYNC through the window's error handler instead (MPICH's
// errors/rma/win_sync_* tests), and so do these checks. Each looks only at
// the calling member's own Window, so they hold the same way on windows
// whose members span hosts.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "mpi/Window.h"

namespace synergy::mpi {

bool inPassiveEpoch(const Window& window, int target) {
  if (window.lockAllHeld != HeldLock::None) return true;
  if (target >= 0) return window.lockHeld[target] != HeldLock::None;
  return std::any_of(window.lockHeld.begin(), window.lockHeld.end(),
                     [](HeldLock held) { return held != HeldLock::None; });
}

int checkAccessEpoch(HostCall& call, const Window& window, int target, bool passiveOnly) {
  if (inPassiveEpoch(window, target)) return abi::kSuccess;
  // MPI-3.1 11.3.5: request-based operations are valid only in a passive
  // target epoch, whose flush or unlock is what completes them remotely.
  if (passiveOnly)
    return failOnWindow(call, window, abi::kErrRmaSync,
                        "a request-based operation needs a lock on target " +
                            std::to_string(target));
  bool started = window.accessEpoch && std::find(window.accessGroup.begin(),
                                                 window.accessGroup.end(),
                                                 target) != window.accessGroup.end();
  if (window.fenceEpoch || started) return abi::kSuccess;
  return failOnWindow(call, window, abi::kErrRmaSync,
                      "no access epoch is open towards target " + std::to_string(target));
}

int checkNoEpochOpen(HostCall& call, const Window& window) {
  const char* open = nullptr;
  if (inPassiveEpoch(window, -1))
    open = "a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)";
  else if (window.accessEpoch)
    open = "an access epoch (MPI_Win_start)";
  else if (window.exposureOrigins >= 0)
    open = "an exposure epoch (MPI_Win_post)";
  if (!open) return abi::kSuccess;
  return failOnWindow(call, window, abi::kErrRmaSync, std::string(open) + " is still open");
}

}  // namespace synergy::mpi
