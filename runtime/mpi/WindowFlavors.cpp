//===- WindowFlavors.cpp - dynamic and shared-memory windows --------------===//
//
// MPI_Win_create_dynamic makes a window with no memory; each member then
// attaches regions of its own memory (MPI_Win_attach/detach), published in
// the window's WindowSync, and an origin names target memory by its
// address in the target's linear memory (MPI_Get_address, MPI_BOTTOM = 0).
// Every access must fall inside one region the target has attached.
//
// MPI_Win_allocate_shared allocates each member's part in that member's
// own linear memory. A granule can load from and store to nothing but its
// own linear memory, so another member's part is reachable only through
// RMA calls on the window (which work as on any window):
// MPI_Win_shared_query answers for the caller's own part (and for
// MPI_PROC_NULL when that names the caller's part) and refuses any other
// member's with MPI_ERR_RMA_SHARED and a message saying why, rather than
// hand back a pointer that would read the caller's own memory.
//
//===----------------------------------------------------------------------===//
#include <algorithm>

#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

extern "C" {

u32 Z_envZ_MPI_Win_create_dynamic(void* instance, u32 info, u32 comm, u32 winOut) {
  HostCall call(instance, "MPI_Win_create_dynamic");
  (void)info;
  return createWindow(call, nullptr, 0, 1, int(comm), winOut, 0, abi::kWinFlavorDynamic);
}

u32 Z_envZ_MPI_Win_attach(void* instance, u32 win, u32 base, u32 size) {
  HostCall call(instance, "MPI_Win_attach");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->flavor != abi::kWinFlavorDynamic)
    return failOnWindow(call, *window, abi::kErrRmaFlavor,
                        "MPI_Win_attach needs a window from MPI_Win_create_dynamic");
  int64_t bytes = int32_t(size);
  uint8_t* host = bytes >= 0 ? call.bytes(base, uint64_t(bytes)) : nullptr;
  if (!host)
    return failOnWindow(call, *window, abi::kErrRmaAttach,
                        "attached memory is not inside linear memory");
  std::lock_guard<std::mutex> guard(window->sync->attachedMutex);
  window->sync->attached[window->me].push_back({host, bytes, base});
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_detach(void* instance, u32 win, u32 base) {
  HostCall call(instance, "MPI_Win_detach");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->flavor != abi::kWinFlavorDynamic)
    return failOnWindow(call, *window, abi::kErrRmaFlavor,
                        "MPI_Win_detach needs a window from MPI_Win_create_dynamic");
  bool found = false;
  {
    std::lock_guard<std::mutex> guard(window->sync->attachedMutex);
    auto& regions = window->sync->attached[window->me];
    auto region = std::find_if(regions.begin(), regions.end(), [&](const WindowSync::Region& r) {
      return r.guestAddress == base;
    });
    if (region != regions.end()) {
      regions.erase(region);
      found = true;
    }
  }
  if (!found)
    return failOnWindow(call, *window, abi::kErrRmaAttach,
                        "no region attached at address " + std::to_string(base));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_allocate_shared(void* instance, u32 size, u32 dispUnit, u32 info, u32 comm,
                                   u32 baseptrOut, u32 winOut) {
  HostCall call(instance, "MPI_Win_allocate_shared");
  (void)info;
  return allocateWindow(call, int32_t(size), int(dispUnit), int(comm), baseptrOut, winOut,
                        abi::kWinFlavorShared);
}

u32 Z_envZ_MPI_Win_shared_query(void* instance, u32 win, u32 rank, u32 sizeOut, u32 dispUnitOut,
                                u32 baseptrOut) {
  HostCall call(instance, "MPI_Win_shared_query");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->flavor != abi::kWinFlavorShared)
    return failOnWindow(call, *window, abi::kErrRmaFlavor,
                        "MPI_Win_shared_query needs a window from MPI_Win_allocate_shared");
  int member = int(rank);
  if (member == abi::kProcNull) {
    // The first member with a non-empty part, as MPI defines it.
    member = 0;
    while (member + 1 < window->comm->size() && window->sizes[member] == 0) ++member;
  } else if (member < 0 || member >= window->comm->size()) {
    return failOnWindow(call, *window, abi::kErrRank, "invalid rank " + std::to_string(member));
  }
  if (member != window->me)
    return failOnWindow(
        call, *window, abi::kErrRmaShared,
        "rank " + std::to_string(member) +
            "'s part of a shared window lives in that rank's own linear memory, which this "
            "rank cannot load from or store to; use MPI_Put/MPI_Get on the window instead");
  uint32_t base = uint32_t(window->bases[member] - call.granule.memoryBase());
  if (!call.bytes(sizeOut, 4) || !call.bytes(dispUnitOut, 4) || !call.bytes(baseptrOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "output outside linear memory");
  call.store<int32_t>(sizeOut, int32_t(window->sizes[member]));
  call.store<int32_t>(dispUnitOut, int32_t(window->dispUnits[member]));
  call.store<uint32_t>(baseptrOut, base);
  return abi::kSuccess;
}

}  // extern "C"
