//===- PassiveTarget.cpp - MPI_Win_lock, lock_all, flush and sync ---------===//
//
// Passive-target synchronisation on windows of one host. Each target's
// lock is one atomic word in the window's WindowSync (-1 exclusive, n > 0
// shared by n), taken with compare-and-swap; a rank that cannot take it
// waits like any blocked MPI call (World::waitUntilReady: polls, then
// sleeps, counted by the deadlock watch) and is woken when a holder lets
// go. An exclusive lock therefore really excludes: a read-modify-write
// done under it by every rank is never lost.
//
// Operations act on the target's memory when they are called, so they are
// complete at once: unlock, flush, flush_local and their _all forms have
// no data left to move. They still check that the caller is inside a
// passive-target epoch for the target, as OpenMPI does, and raise
// MPI_ERR_RMA_SYNC otherwise; so do lock and lock_all inside an access
// epoch of MPI_Win_start. Either ends a fence epoch (RmaEpochs.cpp).
//
// On a window whose members span hosts, the lock of a member of another
// host is that host's word, taken and let go through it
// (RemoteWindows.cpp); flush and unlock then wait until this member's
// operations on the target are done, and letting go of a lock of this
// host grants those that members of other hosts wait for.
//
//===----------------------------------------------------------------------===//
#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// Takes `type` of lock on target `target`, waiting while it is held
// against us. False when the job was aborted meanwhile.
bool acquireLock(HostCall& call, Window& window, int target, int type) {
  if (window.spanningId && call.world().isRemote(window.comm->worldRanks[target]))
    return lockAcrossHosts(call, window, target, /*lock=*/true, type == abi::kLockExclusive);
  std::atomic<int64_t>& word = window.sync->lockOf[target];
  auto tryTake = [&] {
    int64_t seen = word.load();
    if (type == abi::kLockExclusive) return seen == 0 && word.compare_exchange_strong(seen, -1);
    return seen >= 0 && word.compare_exchange_strong(seen, seen + 1);
  };
  if (tryTake()) return true;
  WaitInfo info{call.name, window.comm->worldRanks[target], 0, window.comm.get()};
  return call.world().waitUntilReady(call.rank.worldRank, info, tryTake);
}

// Lets go of `held` on `target`. False when the job was aborted while
// this member waited for its operations on another host.
bool releaseLock(HostCall& call, Window& window, int target, HeldLock held) {
  if (window.spanningId && call.world().isRemote(window.comm->worldRanks[target])) {
    if (held == HeldLock::Shared || held == HeldLock::Exclusive)
      return lockAcrossHosts(call, window, target, /*lock=*/false, held == HeldLock::Exclusive);
    return awaitRmaAcrossHosts(call, window, target);
  }
  std::atomic<int64_t>& word = window.sync->lockOf[target];
  if (held == HeldLock::Exclusive) word.store(0);
  if (held == HeldLock::Shared) word.fetch_sub(1);
  return true;
}

int checkTarget(HostCall& call, Window& window, int target) {
  if (target < 0 || target >= window.comm->size())
    return failOnWindow(call, window, abi::kErrRank, "invalid target rank " + std::to_string(target));
  return abi::kSuccess;
}

// The common part of the flush calls: a live window and an epoch. Every
// operation on MPI_PROC_NULL is already done, and no lock is held on it.
int flushEpoch(void* instance, const char* name, int win, int target) {
  HostCall call(instance, name);
  int error;
  auto window = windowOrFail(call, win, error);
  if (!window || target == abi::kProcNull) return error;
  if (target >= 0 && (error = checkTarget(call, *window, target))) return error;
  if (!inPassiveEpoch(*window, target))
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        target >= 0 ? "no lock is held on target " + std::to_string(target)
                                    : std::string("no lock is held on the window"));
  if (window->spanningId && !awaitRmaAcrossHosts(call, *window, target)) call.leaveAbortedJob();
  return abi::kSuccess;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Win_lock(void* instance, u32 lockType, u32 targetRank, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_lock");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  int type = int(lockType), target = int(targetRank);
  if (type != abi::kLockExclusive && type != abi::kLockShared)
    return failOnWindow(call, *window, abi::kErrArg, "invalid lock type " + std::to_string(type));
  // A lock on MPI_PROC_NULL guards nothing: its epoch holds no operation.
  if (target == abi::kProcNull) return abi::kSuccess;
  if ((error = checkTarget(call, *window, target))) return error;
  if (inPassiveEpoch(*window, target))
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        "already holds a lock on target " + std::to_string(target));
  if (window->accessEpoch)
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        "an access epoch (MPI_Win_start) is open");
  window->fenceEpoch = false;
  if (int(assertion) & abi::kModeNocheck) {
    window->lockHeld[target] = HeldLock::Unchecked;
    return abi::kSuccess;
  }
  if (!acquireLock(call, *window, target, type)) call.leaveAbortedJob();
  window->lockHeld[target] = type == abi::kLockExclusive ? HeldLock::Exclusive : HeldLock::Shared;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_unlock(void* instance, u32 targetRank, u32 win) {
  HostCall call(instance, "MPI_Win_unlock");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  int target = int(targetRank);
  if (target == abi::kProcNull) return abi::kSuccess;
  if ((error = checkTarget(call, *window, target))) return error;
  HeldLock held = window->lockHeld[target];
  if (held == HeldLock::None)
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        "no lock is held on target " + std::to_string(target));
  window->lockHeld[target] = HeldLock::None;
  if (!releaseLock(call, *window, target, held)) call.leaveAbortedJob();
  if (held != HeldLock::Unchecked) announceWindowChange(call, *window);
  if (window->spanningId) grantWaitingLocks(call);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_lock_all(void* instance, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_lock_all");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (inPassiveEpoch(*window, -1))
    return failOnWindow(call, *window, abi::kErrRmaSync, "already holds a lock on the window");
  if (window->accessEpoch)
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        "an access epoch (MPI_Win_start) is open");
  window->fenceEpoch = false;
  if (int(assertion) & abi::kModeNocheck) {
    window->lockAllHeld = HeldLock::Unchecked;
    return abi::kSuccess;
  }
  // Shared locks wait only for exclusive holders, who hold one target
  // each, so taking them in rank order cannot deadlock.
  for (int target = 0; target < window->comm->size(); ++target)
    if (!acquireLock(call, *window, target, abi::kLockShared)) call.leaveAbortedJob();
  window->lockAllHeld = HeldLock::Shared;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_unlock_all(void* instance, u32 win) {
  HostCall call(instance, "MPI_Win_unlock_all");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  HeldLock held = window->lockAllHeld;
  if (held == HeldLock::None)
    return failOnWindow(call, *window, abi::kErrRmaSync, "MPI_Win_lock_all was not called");
  window->lockAllHeld = HeldLock::None;
  for (int target = 0; target < window->comm->size(); ++target)
    if (!releaseLock(call, *window, target, held)) call.leaveAbortedJob();
  if (held == HeldLock::Unchecked) return abi::kSuccess;
  announceWindowChange(call, *window);
  if (window->spanningId) grantWaitingLocks(call);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_flush(void* instance, u32 targetRank, u32 win) {
  return flushEpoch(instance, "MPI_Win_flush", int(win), int(targetRank));
}

u32 Z_envZ_MPI_Win_flush_local(void* instance, u32 targetRank, u32 win) {
  return flushEpoch(instance, "MPI_Win_flush_local", int(win), int(targetRank));
}

u32 Z_envZ_MPI_Win_flush_all(void* instance, u32 win) {
  return flushEpoch(instance, "MPI_Win_flush_all", int(win), -1);
}

u32 Z_envZ_MPI_Win_flush_local_all(void* instance, u32 win) {
  return flushEpoch(instance, "MPI_Win_flush_local_all", int(win), -1);
}

// The window's public and private copies are one memory (MPI_WIN_UNIFIED),
// and every access went straight to it, so there is nothing to reconcile.
u32 Z_envZ_MPI_Win_sync(void* instance, u32 win) {
  HostCall call(instance, "MPI_Win_sync");
  int error;
  windowOrFail(call, int(win), error);
  return error;
}

}  // extern "C"
