//===- WindowProperties.cpp - a window's group, name and info hints -------===//
//
// The per-member properties of a window: MPI_Win_get_group,
// MPI_Win_set/get_name and the info hints (MPI_Win_set/get_info). Its error
// handler is in WindowErrorHandlers.cpp.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstring>

#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

extern "C" {

u32 Z_envZ_MPI_Win_get_group(void* instance, u32 win, u32 groupOut) {
  HostCall call(instance, "MPI_Win_get_group");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (!call.bytes(groupOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "group pointer outside linear memory");
  auto group = std::make_shared<Group>();
  group->worldRanks = window->comm->worldRanks;
  call.store<int32_t>(groupOut, call.rank.addGroup(std::move(group)));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_set_name(void* instance, u32 win, u32 name) {
  HostCall call(instance, "MPI_Win_set_name");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  std::string text;
  for (u32 at = name; text.size() < size_t(abi::kMaxObjectName - 1); ++at) {
    uint8_t* ch = call.bytes(at, 1);
    if (!ch) return failOnWindow(call, *window, abi::kErrArg, "name outside linear memory");
    if (!*ch) break;
    text += char(*ch);
  }
  window->name = std::move(text);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_get_name(void* instance, u32 win, u32 nameOut, u32 lengthOut) {
  HostCall call(instance, "MPI_Win_get_name");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  uint8_t* out = call.bytes(nameOut, window->name.size() + 1);
  if (!out || !call.bytes(lengthOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "name buffer outside linear memory");
  std::memcpy(out, window->name.c_str(), window->name.size() + 1);
  call.store<int32_t>(lengthOut, int32_t(window->name.size()));
  return abi::kSuccess;
}

// Hints from MPI_Win_set_info are kept, later values replacing earlier
// ones for the same key; none changes how a window of one host works.
u32 Z_envZ_MPI_Win_set_info(void* instance, u32 win, u32 info) {
  HostCall call(instance, "MPI_Win_set_info");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  auto found = call.rank.infos.find(int(info));
  if (int(info) == abi::kInfoNull || found == call.rank.infos.end())
    return failOnWindow(call, *window, abi::kErrArg,
                        "invalid info object " + std::to_string(int(info)));
  for (const auto& [key, value] : found->second) {
    auto same = std::find_if(window->info.begin(), window->info.end(),
                             [&](const auto& entry) { return entry.first == key; });
    if (same != window->info.end())
      same->second = value;
    else
      window->info.emplace_back(key, value);
  }
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_get_info(void* instance, u32 win, u32 infoOut) {
  HostCall call(instance, "MPI_Win_get_info");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (!call.bytes(infoOut, 4))
    return failOnWindow(call, *window, abi::kErrArg, "info pointer outside linear memory");
  int handle = call.rank.nextInfo++;
  call.rank.infos[handle] = window->info;
  call.store<int32_t>(infoOut, handle);
  return abi::kSuccess;
}

}  // extern "C"
