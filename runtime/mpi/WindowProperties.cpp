//===- WindowProperties.cpp - a window's group, error handler, name, info -===//
//
// The per-member properties of a window: MPI_Win_get_group, the error
// handler (MPI_Win_set/get_errhandler, MPI_Win_call_errhandler; windows
// start with MPI_ERRORS_ARE_FATAL, as MPI says, and every one-sided call
// raises its errors through it), MPI_Win_set/get_name and the info hints
// (MPI_Win_set/get_info). Only the predefined error handlers exist: the
// runtime has no MPI_*_create_errhandler.
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

u32 Z_envZ_MPI_Win_set_errhandler(void* instance, u32 win, u32 errhandler) {
  HostCall call(instance, "MPI_Win_set_errhandler");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  int handler = int(errhandler);
  if (handler != abi::kErrorsAreFatal && handler != abi::kErrorsReturn)
    return failOnWindow(call, *window, abi::kErrArg,
                        "invalid error handler " + std::to_string(handler));
  window->errhandler = handler;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_get_errhandler(void* instance, u32 win, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Win_get_errhandler");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (!call.store<int32_t>(errhandlerOut, window->errhandler))
    return failOnWindow(call, *window, abi::kErrArg, "errhandler pointer outside linear memory");
  return abi::kSuccess;
}

// Under MPI_ERRORS_RETURN the handler does nothing and the call succeeds;
// under MPI_ERRORS_ARE_FATAL the job ends, naming the error code.
u32 Z_envZ_MPI_Win_call_errhandler(void* instance, u32 win, u32 errorCode) {
  HostCall call(instance, "MPI_Win_call_errhandler");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->errhandler == abi::kErrorsReturn) return abi::kSuccess;
  int code = int(errorCode);
  return failOnWindow(call, *window, code > 0 && code <= abi::kErrLastCode ? code : abi::kErrOther,
                      "the program raised error code " + std::to_string(code) + " on the window");
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
