//===- GeneralActiveTarget.cpp - MPI_Win_post, start, complete, wait, test ===//
//
// Post-start-complete-wait synchronisation on windows of one host, kept in
// two sets of counters of the window's WindowSync:
//  - MPI_Win_post on target t grants each origin o of its group one
//    exposure epoch (grants[o][t] += 1); MPI_Win_start on o takes one grant
//    from each target of its group, waiting for the targets that have not
//    posted yet, because operations act on the target's memory as soon as
//    they are called and must not run before the target has exposed it;
//  - MPI_Win_complete on o counts one completion at each target it
//    started; MPI_Win_wait on t waits until every origin it posted to has
//    completed, and MPI_Win_test asks the same without waiting.
// A target posts again only after its wait, and an origin starts again
// only after its complete, so counts of consecutive epochs never mix.
// Start is refused while the member holds a lock; post and start end a
// fence epoch (RmaEpochs.cpp).
//
// On a window whose members span hosts, the counters live on the host that
// waits on them: post and complete towards a member of another host signal
// its host (RemoteWindows.cpp), and complete first waits until the origin's
// operations on that target are done.
//
//===----------------------------------------------------------------------===//
#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// The window ranks of the members of group `handle`; false after raising
// the error when the group is invalid or has a member outside the window.
bool groupMembers(HostCall& call, Window& window, int handle, std::vector<int>& members,
                  int& error) {
  auto group = call.rank.group(handle);
  if (!group) {
    error = failOnWindow(call, window, abi::kErrGroup, "invalid group " + std::to_string(handle));
    return false;
  }
  members.clear();
  for (int worldRank : group->worldRanks) {
    int member = worldRank >= 0 && size_t(worldRank) < window.comm->rankOfWorld.size()
                     ? window.comm->rankOfWorld[worldRank]
                     : -1;
    if (member < 0) {
      error = failOnWindow(call, window, abi::kErrGroup,
                           "group member " + std::to_string(worldRank) +
                               " of MPI_COMM_WORLD is not a member of the window");
      return false;
    }
    members.push_back(member);
  }
  return true;
}

// Takes one of `count` if there is one; a compare-and-swap loop.
bool takeOne(std::atomic<int64_t>& count, int64_t amount) {
  int64_t seen = count.load();
  while (seen >= amount)
    if (count.compare_exchange_weak(seen, seen - amount)) return true;
  return false;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_Win_post(void* instance, u32 group, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_post");
  (void)assertion;
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->exposureOrigins >= 0)
    return failOnWindow(call, *window, abi::kErrRmaSync, "an exposure epoch is already open");
  std::vector<int> origins;
  if (!groupMembers(call, *window, int(group), origins, error)) return error;
  window->fenceEpoch = false;
  int members = window->comm->size();
  for (int origin : origins) {
    if (window->spanningId && call.world().isRemote(window->comm->worldRanks[origin]))
      signalEpochAcrossHosts(call, *window, origin, /*exposure=*/true);
    else
      window->sync->grants[size_t(origin) * members + window->me].fetch_add(1);
  }
  window->exposureOrigins = int64_t(origins.size());
  announceWindowChange(call, *window);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_start(void* instance, u32 group, u32 assertion, u32 win) {
  HostCall call(instance, "MPI_Win_start");
  (void)assertion;
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->accessEpoch)
    return failOnWindow(call, *window, abi::kErrRmaSync, "an access epoch is already open");
  if (inPassiveEpoch(*window, -1))
    return failOnWindow(call, *window, abi::kErrRmaSync,
                        "a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all) is open");
  std::vector<int> targets;
  if (!groupMembers(call, *window, int(group), targets, error)) return error;
  window->fenceEpoch = false;
  int members = window->comm->size();
  for (int target : targets) {
    std::atomic<int64_t>& grant = window->sync->grants[size_t(window->me) * members + target];
    if (takeOne(grant, 1)) continue;
    WaitInfo info{call.name, window->comm->worldRanks[target], 0, window->comm.get()};
    if (!call.world().waitUntilReady(call.rank.worldRank, info, [&] { return takeOne(grant, 1); }))
      call.leaveAbortedJob();
  }
  window->accessGroup = std::move(targets);
  window->accessEpoch = true;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_complete(void* instance, u32 win) {
  HostCall call(instance, "MPI_Win_complete");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (!window->accessEpoch)
    return failOnWindow(call, *window, abi::kErrRmaSync, "MPI_Win_start was not called");
  for (int target : window->accessGroup) {
    if (!window->spanningId || !call.world().isRemote(window->comm->worldRanks[target]))
      window->sync->completions[target].fetch_add(1);
    else if (!signalEpochAcrossHosts(call, *window, target, /*exposure=*/false))
      call.leaveAbortedJob();
  }
  window->accessGroup.clear();
  window->accessEpoch = false;
  announceWindowChange(call, *window);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_wait(void* instance, u32 win) {
  HostCall call(instance, "MPI_Win_wait");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->exposureOrigins < 0)
    return failOnWindow(call, *window, abi::kErrRmaSync, "MPI_Win_post was not called");
  std::atomic<int64_t>& completions = window->sync->completions[window->me];
  int64_t origins = window->exposureOrigins;
  if (!takeOne(completions, origins)) {
    WaitInfo info{call.name, abi::kAnySource, 0, window->comm.get()};
    if (!call.world().waitUntilReady(call.rank.worldRank, info,
                                     [&] { return takeOne(completions, origins); }))
      call.leaveAbortedJob();
  }
  window->exposureOrigins = -1;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_test(void* instance, u32 win, u32 flagOut) {
  HostCall call(instance, "MPI_Win_test");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->exposureOrigins < 0)
    return failOnWindow(call, *window, abi::kErrRmaSync, "MPI_Win_post was not called");
  if (!call.bytes(flagOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "flag outside linear memory");
  bool done = takeOne(window->sync->completions[window->me], window->exposureOrigins);
  if (done)
    window->exposureOrigins = -1;
  else
    call.world().yieldIfSharingCpus();
  call.store<int32_t>(flagOut, done);
  return abi::kSuccess;
}

}  // extern "C"
