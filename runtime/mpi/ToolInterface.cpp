//===- ToolInterface.cpp - the MPI tool information interface (MPI_T) -----===//
//
// Host functions for MPI-3.1 chapter 14. The runtime exposes no control
// variables, no performance variables, no enumerations and no categories,
// which the standard allows (§14.3: an implementation need not provide
// any). What remains is real and checked as the standard says:
//  - MPI_T_init_thread / MPI_T_finalize nest, independently of MPI_Init, and
//    every other call before the first init or after the last finalize
//    returns MPI_T_ERR_NOT_INITIALIZED;
//  - counts are 0, every index is MPI_T_ERR_INVALID_INDEX, every name
//    MPI_T_ERR_INVALID_NAME, every variable or enumeration handle
//    MPI_T_ERR_INVALID_HANDLE;
//  - performance-variable sessions are created and freed per rank, and a
//    session that was never created (or was freed) is
//    MPI_T_ERR_INVALID_SESSION; MPI_T_PVAR_ALL_HANDLES applies the
//    start/stop/reset to no handle at all.
// MPI_T functions return their error codes and never call error handlers.
// The state lives in RankState and is not part of a checkpoint: a program
// resumed from one starts with the interface finalized.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <limits>

#include "mpi/MpiAbi.h"
#include "mpi/RankState.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

constexpr int kErrNotInitialized = 55;  // MPI_T_ERR_NOT_INITIALIZED
constexpr int kErrInvalidIndex = 57;
constexpr int kErrInvalidHandle = 59;
constexpr int kErrOutOfSessions = 61;
constexpr int kErrInvalidSession = 62;
constexpr int kErrInvalidName = 73;
constexpr int kAllHandles = -1;  // MPI_T_PVAR_ALL_HANDLES
constexpr int kSessionNull = 0;
// Sessions are small per-rank records; a program that creates more than
// this without freeing them gets MPI_T_ERR_OUT_OF_SESSIONS.
constexpr size_t kMaxSessions = 1 << 16;

bool initialized(const HostCall& call) { return call.rank.toolInitCount > 0; }

// Stores `value` at `addr`; MPI_ERR_ARG when the pointer is outside memory.
int storeInt(HostCall& call, u32 addr, int32_t value) {
  return call.store<int32_t>(addr, value) ? abi::kSuccess : abi::kErrArg;
}

// A query whose answer is always 0: a count of variables or categories (there
// are none), or the category stamp (no category ever changes).
u32 answerZero(void* instance, const char* name, u32 answerOut) {
  HostCall call(instance, name);
  if (!initialized(call)) return kErrNotInitialized;
  return storeInt(call, answerOut, 0);
}

// A call naming a variable, enumeration item or category by index.
u32 noSuchIndex(void* instance, const char* name) {
  HostCall call(instance, name);
  return initialized(call) ? kErrInvalidIndex : kErrNotInitialized;
}

// A call naming a variable or category by name (nothing has one).
u32 noSuchName(void* instance, const char* name, u32 nameAddr) {
  HostCall call(instance, name);
  if (!initialized(call)) return kErrNotInitialized;
  return nameAddr ? kErrInvalidName : abi::kErrArg;
}

// A call on a control-variable or enumeration handle (none can exist).
u32 noSuchHandle(void* instance, const char* name) {
  HostCall call(instance, name);
  return initialized(call) ? kErrInvalidHandle : kErrNotInitialized;
}

// A call on a performance-variable handle within `session`: the session
// must be open; then only MPI_T_PVAR_ALL_HANDLES, where `allowsAll`, names
// a (vacuous) set of handles.
u32 onPvarHandle(void* instance, const char* name, u32 session, u32 handle, bool allowsAll) {
  HostCall call(instance, name);
  if (!initialized(call)) return kErrNotInitialized;
  if (!call.rank.toolSessions.count(int(session))) return kErrInvalidSession;
  return allowsAll && int(handle) == kAllHandles ? abi::kSuccess : kErrInvalidHandle;
}

}  // namespace

extern "C" {

u32 Z_envZ_MPI_T_init_thread(void* instance, u32 required, u32 provided) {
  HostCall call(instance, "MPI_T_init_thread");
  // The same levels as MPI_Init_thread serves (Environment.cpp).
  int level = std::clamp<int>(int32_t(required), abi::kThreadSingle, abi::kThreadMultiple);
  if (int result = storeInt(call, provided, level)) return result;
  ++call.rank.toolInitCount;
  return abi::kSuccess;
}

u32 Z_envZ_MPI_T_finalize(void* instance) {
  HostCall call(instance, "MPI_T_finalize");
  if (!initialized(call)) return kErrNotInitialized;
  // The last finalize ends every session, as a new init starts afresh.
  if (--call.rank.toolInitCount == 0) call.rank.toolSessions.clear();
  return abi::kSuccess;
}

u32 Z_envZ_MPI_T_enum_get_info(void* instance, u32, u32, u32, u32) {
  return noSuchHandle(instance, "MPI_T_enum_get_info");
}

u32 Z_envZ_MPI_T_enum_get_item(void* instance, u32, u32, u32, u32, u32) {
  return noSuchHandle(instance, "MPI_T_enum_get_item");
}

u32 Z_envZ_MPI_T_cvar_get_num(void* instance, u32 countOut) {
  return answerZero(instance, "MPI_T_cvar_get_num", countOut);
}

u32 Z_envZ_MPI_T_cvar_get_info(void* instance, u32, u32, u32, u32, u32, u32, u32, u32, u32,
                               u32) {
  return noSuchIndex(instance, "MPI_T_cvar_get_info");
}

u32 Z_envZ_MPI_T_cvar_get_index(void* instance, u32 name, u32) {
  return noSuchName(instance, "MPI_T_cvar_get_index", name);
}

u32 Z_envZ_MPI_T_cvar_handle_alloc(void* instance, u32, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_cvar_handle_alloc");
}

u32 Z_envZ_MPI_T_cvar_handle_free(void* instance, u32) {
  return noSuchHandle(instance, "MPI_T_cvar_handle_free");
}

u32 Z_envZ_MPI_T_cvar_read(void* instance, u32, u32) {
  return noSuchHandle(instance, "MPI_T_cvar_read");
}

u32 Z_envZ_MPI_T_cvar_write(void* instance, u32, u32) {
  return noSuchHandle(instance, "MPI_T_cvar_write");
}

u32 Z_envZ_MPI_T_pvar_get_num(void* instance, u32 countOut) {
  return answerZero(instance, "MPI_T_pvar_get_num", countOut);
}

u32 Z_envZ_MPI_T_pvar_get_info(void* instance, u32, u32, u32, u32, u32, u32, u32, u32, u32,
                               u32, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_pvar_get_info");
}

u32 Z_envZ_MPI_T_pvar_get_index(void* instance, u32 name, u32, u32) {
  return noSuchName(instance, "MPI_T_pvar_get_index", name);
}

u32 Z_envZ_MPI_T_pvar_session_create(void* instance, u32 sessionOut) {
  HostCall call(instance, "MPI_T_pvar_session_create");
  if (!initialized(call)) return kErrNotInitialized;
  RankState& rank = call.rank;
  if (rank.toolSessions.size() >= kMaxSessions) return kErrOutOfSessions;
  // Handles count up from 1, go back to 1 instead of past INT_MAX (a guest
  // may create and free sessions that often), and skip any still open.
  auto following = [](int handle) {
    return handle == std::numeric_limits<int>::max() ? kSessionNull + 1 : handle + 1;
  };
  while (rank.toolSessions.count(rank.nextToolSession))
    rank.nextToolSession = following(rank.nextToolSession);
  if (int result = storeInt(call, sessionOut, rank.nextToolSession)) return result;
  rank.toolSessions.insert(rank.nextToolSession);
  rank.nextToolSession = following(rank.nextToolSession);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_T_pvar_session_free(void* instance, u32 sessionInOut) {
  HostCall call(instance, "MPI_T_pvar_session_free");
  if (!initialized(call)) return kErrNotInitialized;
  int32_t session = 0;
  if (!call.load(sessionInOut, session)) return abi::kErrArg;
  if (!call.rank.toolSessions.erase(session)) return kErrInvalidSession;
  return storeInt(call, sessionInOut, kSessionNull);
}

u32 Z_envZ_MPI_T_pvar_handle_alloc(void* instance, u32 session, u32, u32, u32, u32) {
  HostCall call(instance, "MPI_T_pvar_handle_alloc");
  if (!initialized(call)) return kErrNotInitialized;
  return call.rank.toolSessions.count(int(session)) ? kErrInvalidIndex : kErrInvalidSession;
}

u32 Z_envZ_MPI_T_pvar_handle_free(void* instance, u32 session, u32) {
  // A freed handle is given by address; none can be valid, so its value
  // does not matter.
  return onPvarHandle(instance, "MPI_T_pvar_handle_free", session, 0, false);
}

u32 Z_envZ_MPI_T_pvar_start(void* instance, u32 session, u32 handle) {
  return onPvarHandle(instance, "MPI_T_pvar_start", session, handle, true);
}

u32 Z_envZ_MPI_T_pvar_stop(void* instance, u32 session, u32 handle) {
  return onPvarHandle(instance, "MPI_T_pvar_stop", session, handle, true);
}

u32 Z_envZ_MPI_T_pvar_reset(void* instance, u32 session, u32 handle) {
  return onPvarHandle(instance, "MPI_T_pvar_reset", session, handle, true);
}

u32 Z_envZ_MPI_T_pvar_read(void* instance, u32 session, u32 handle, u32) {
  return onPvarHandle(instance, "MPI_T_pvar_read", session, handle, false);
}

u32 Z_envZ_MPI_T_pvar_write(void* instance, u32 session, u32 handle, u32) {
  return onPvarHandle(instance, "MPI_T_pvar_write", session, handle, false);
}

u32 Z_envZ_MPI_T_pvar_readreset(void* instance, u32 session, u32 handle, u32) {
  return onPvarHandle(instance, "MPI_T_pvar_readreset", session, handle, false);
}

u32 Z_envZ_MPI_T_category_get_num(void* instance, u32 countOut) {
  return answerZero(instance, "MPI_T_category_get_num", countOut);
}

u32 Z_envZ_MPI_T_category_get_info(void* instance, u32, u32, u32, u32, u32, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_category_get_info");
}

u32 Z_envZ_MPI_T_category_get_index(void* instance, u32 name, u32) {
  return noSuchName(instance, "MPI_T_category_get_index", name);
}

u32 Z_envZ_MPI_T_category_get_cvars(void* instance, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_category_get_cvars");
}

u32 Z_envZ_MPI_T_category_get_pvars(void* instance, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_category_get_pvars");
}

u32 Z_envZ_MPI_T_category_get_categories(void* instance, u32, u32, u32) {
  return noSuchIndex(instance, "MPI_T_category_get_categories");
}

u32 Z_envZ_MPI_T_category_changed(void* instance, u32 stampOut) {
  return answerZero(instance, "MPI_T_category_changed", stampOut);
}

}  // extern "C"
