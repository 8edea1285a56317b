//===- WindowFlavors.cpp - dynamic windows --------------------------------===//
//
// MPI_Win_create_dynamic makes a window with no memory; each member then
// attaches regions of its own memory (MPI_Win_attach/detach), published in
// the window's WindowSync, and an origin names target memory by its
// address in the target's linear memory (MPI_Get_address, MPI_BOTTOM = 0).
// Every access must fall inside one region the target has attached.
//
// Shared-memory windows are SharedMemoryWindows.cpp's.
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

}  // extern "C"
