//===- WindowAttributes.cpp - MPI keyvals and attributes on windows -------===//
//
// Host functions for attribute caching on windows (MPI_Win_create_keyval,
// MPI_Win_set_attr, ...), and the steps MPI_Win_get_attr and MPI_Win_free
// (OneSided.cpp, which serves the predefined MPI_WIN_BASE ... MPI_WIN_MODEL
// itself) take for the keyvals the program made. As for datatypes, the
// keyvals live in the rank's one table and the callbacks run through the
// checked steps of CommunicatorAttributes.cpp; the values hang in
// RankState::windowAttributes, by window handle. A window is never
// duplicated, so only delete callbacks run. Errors are raised on
// MPI_COMM_WORLD, like the window calls' other argument errors.
//
//===----------------------------------------------------------------------===//
#include "mpi/WindowAttributes.h"

#include "mpi/CommunicatorAttributes.h"
#include "mpi/MpiAbi.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

int checkWindow(HostCall& call, int win) {
  if (!call.rank.window(win)) return call.fail(abi::kCommWorld, abi::kErrWin, "invalid window");
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

int getWindowAttribute(HostCall& call, int errorComm, int win, int keyval, u32 valueOut,
                       u32 flagOut) {
  static const AttributeMap kNone;
  auto found = call.rank.windowAttributes.find(win);
  return getAttribute(call, errorComm,
                      found == call.rank.windowAttributes.end() ? kNone : found->second, keyval,
                      valueOut, flagOut);
}

int deleteWindowAttributes(HostCall& call, int win) {
  auto found = call.rank.windowAttributes.find(win);
  if (found == call.rank.windowAttributes.end()) return abi::kSuccess;
  AttributeMap attributes = std::move(found->second);
  call.rank.windowAttributes.erase(found);
  return deleteAttributes(call, abi::kCommWorld, win, attributes);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Win_create_keyval(void* instance, u32 copyFunction, u32 deleteFunction,
                                 u32 keyvalOut, u32 extraState) {
  HostCall call(instance, "MPI_Win_create_keyval");
  return createKeyval(call, copyFunction, deleteFunction, keyvalOut, extraState);
}

u32 Z_envZ_MPI_Win_free_keyval(void* instance, u32 keyvalAddr) {
  HostCall call(instance, "MPI_Win_free_keyval");
  return freeKeyval(call, keyvalAddr);
}

u32 Z_envZ_MPI_Win_set_attr(void* instance, u32 win, u32 keyval, u32 value) {
  HostCall call(instance, "MPI_Win_set_attr");
  if (int error = checkWindow(call, int(win))) return error;
  return setAttribute(
      call, abi::kCommWorld, int(win),
      [&]() -> AttributeMap* {
        if (!call.rank.window(int(win))) return nullptr;
        return &call.rank.windowAttributes[int(win)];
      },
      int(keyval), value);
}

u32 Z_envZ_MPI_Win_delete_attr(void* instance, u32 win, u32 keyval) {
  HostCall call(instance, "MPI_Win_delete_attr");
  if (int error = checkWindow(call, int(win))) return error;
  return deleteAttribute(
      call, abi::kCommWorld, int(win),
      [&]() -> AttributeMap* {
        if (!call.rank.window(int(win))) return nullptr;
        return &call.rank.windowAttributes[int(win)];
      },
      int(keyval));
}

}  // extern "C"
