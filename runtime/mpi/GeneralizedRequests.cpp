//===- GeneralizedRequests.cpp - MPI_Grequest_start and _complete ---------===//
//
// This file implements generalized requests (GeneralizedRequests.h). Such a
// request is a Request of Kind::Generalized with the program's three
// callbacks and their extra_state attached, so Wait, Test and their array
// forms wait on its completion flag like on any other, and
// MPI_Grequest_complete, often called from another thread, sets it and
// wakes the rank.
//
// The callbacks are guest functions, called through the module's function
// table after their wasm types are checked (a wrong pointer traps as a bad
// indirect call would); MPI_Grequest_start checks them first, so a bad one
// traps there. The query function fills a status in a frame pushed on the
// guest's own stack, which the completion call then copies out, since the
// program may have passed MPI_STATUS_IGNORE; it may call
// MPI_Status_set_elements and MPI_Status_set_cancelled on it, which is why
// the rank's call lock, held meanwhile, lets the same thread in again.
//
//===----------------------------------------------------------------------===//
#include "mpi/GeneralizedRequests.h"

#include <wasm-rt.h>

#include <cstring>

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

struct GeneralizedRequest : Request {
  u32 queryFunction = 0;  // guest table indices; 0 when the program gave none
  u32 freeFunction = 0;
  u32 cancelFunction = 0;
  u32 extraState = 0;
  // MPI_Request_free came before MPI_Grequest_complete: the handle stays
  // until then, and the free function runs then.
  bool freedByProgram = false;
};

GeneralizedRequest& generalized(Request& request) {
  return static_cast<GeneralizedRequest&>(request);
}

// The guest function at table index `function`, checked to have the wasm
// type `type`; traps otherwise, like a bad call_indirect.
const wasm_rt_funcref_t& callbackEntry(HostCall& call, u32 function, uint32_t type) {
  wasm_rt_funcref_table_t* table = call.granule.module().table(call.granule.instance());
  if (!table || function >= table->size || !table->data[function].func ||
      table->data[function].func_type != type)
    wasm_rt_trap(WASM_RT_TRAP_CALL_INDIRECT);
  return table->data[function];
}

// MPI_Grequest_query_function and MPI_Grequest_cancel_function:
// (void*, MPI_Status*) and (void*, int), both -> int.
uint32_t twoArgumentType() {
  static const uint32_t type =
      wasm_rt_register_func_type(2, 1, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32);
  return type;
}
// MPI_Grequest_free_function: (void*) -> int.
uint32_t oneArgumentType() {
  static const uint32_t type = wasm_rt_register_func_type(1, 1, WASM_RT_I32, WASM_RT_I32);
  return type;
}

int callTwo(HostCall& call, u32 function, u32 first, u32 second) {
  const wasm_rt_funcref_t& entry = callbackEntry(call, function, twoArgumentType());
  using Fn = u32 (*)(void*, u32, u32);
  return int(reinterpret_cast<Fn>(entry.func)(entry.module_instance, first, second));
}

int runFree(HostCall& call, GeneralizedRequest& request) {
  if (!request.freeFunction) return abi::kSuccess;
  const wasm_rt_funcref_t& entry = callbackEntry(call, request.freeFunction, oneArgumentType());
  using Fn = u32 (*)(void*, u32);
  return int(reinterpret_cast<Fn>(entry.func)(entry.module_instance, request.extraState));
}

}  // namespace

namespace synergy::mpi {

int finishGeneralized(HostCall& call, Request& base, uint32_t statusAddr, bool freeing) {
  GeneralizedRequest& request = generalized(base);
  int result = abi::kSuccess;
  if (request.queryFunction) {
    uint32_t stackPointer = 0;
    if (!call.granule.readGlobal32("__stack_pointer", stackPointer) ||
        stackPointer < abi::kStatusSize + 16)
      wasm_rt_trap(WASM_RT_TRAP_OOB);
    uint32_t frame = (stackPointer - abi::kStatusSize) & ~15u;
    if (!call.storeStatus(frame, abi::kAnySource, abi::kAnyTag, abi::kSuccess, 0,
                          request.cancelled) ||
        !call.store<int32_t>(frame + abi::kStatusErrorOffset, abi::kSuccess))
      wasm_rt_trap(WASM_RT_TRAP_OOB);
    call.granule.writeGlobal32("__stack_pointer", frame);
    result = callTwo(call, request.queryFunction, request.extraState, frame);
    call.granule.writeGlobal32("__stack_pointer", stackPointer);
    uint8_t* filled = call.bytes(frame, abi::kStatusSize);
    uint8_t* out = statusAddr ? call.bytes(statusAddr, abi::kStatusSize) : nullptr;
    if (filled && out) {
      // What the query function put in MPI_ERROR reaches the program only
      // from the calls that report errors in statuses, as for any request.
      int32_t programError;
      std::memcpy(&programError, out + abi::kStatusErrorOffset, sizeof(programError));
      std::memmove(out, filled, abi::kStatusSize);
      if (!call.reportsErrorsInStatuses)
        std::memcpy(out + abi::kStatusErrorOffset, &programError, sizeof(programError));
    }
  } else {
    call.storeStatus(statusAddr, abi::kAnySource, abi::kAnyTag, abi::kSuccess, 0,
                     request.cancelled);
  }
  if (freeing) {
    int freed = runFree(call, request);
    if (result == abi::kSuccess) result = freed;
  }
  return result;
}

int cancelGeneralized(HostCall& call, Request& base) {
  GeneralizedRequest& request = generalized(base);
  if (!request.cancelFunction) return abi::kSuccess;
  return callTwo(call, request.cancelFunction, request.extraState,
                 isCompleteNow(request) ? 1 : 0);
}

int freeGeneralized(HostCall& call, Request& base, int handle) {
  GeneralizedRequest& request = generalized(base);
  if (!isCompleteNow(request)) {
    request.freedByProgram = true;
    return abi::kSuccess;
  }
  int result = runFree(call, request);
  call.rank.freeRequest(handle);
  return result;
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Grequest_start(void* instance, u32 queryFunction, u32 freeFunction,
                              u32 cancelFunction, u32 extraState, u32 requestOut) {
  HostCall call(instance, "MPI_Grequest_start");
  if (!call.bytes(requestOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "request pointer outside linear memory");
  if (queryFunction) callbackEntry(call, queryFunction, twoArgumentType());
  if (freeFunction) callbackEntry(call, freeFunction, oneArgumentType());
  if (cancelFunction) callbackEntry(call, cancelFunction, twoArgumentType());
  auto request = std::make_shared<GeneralizedRequest>();
  request->kind = Request::Kind::Generalized;
  request->owner = call.rank.worldRank;
  request->commHandle = abi::kCommWorld;
  request->queryFunction = queryFunction;
  request->freeFunction = freeFunction;
  request->cancelFunction = cancelFunction;
  request->extraState = extraState;
  call.store<int32_t>(requestOut, call.rank.addRequest(std::move(request)));
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Grequest_complete(void* instance, u32 handle) {
  HostCall call(instance, "MPI_Grequest_complete");
  Request* request = call.rank.borrowRequest(int(handle));
  if (!request || request->kind != Request::Kind::Generalized)
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "not a generalized request: " + std::to_string(int32_t(handle)));
  if (isCompleteNow(*request))
    return call.fail(abi::kCommWorld, abi::kErrRequest,
                     "generalized request " + std::to_string(handle) + " is complete already");
  markComplete(*request);
  if (generalized(*request).freedByProgram) {
    int result = runFree(call, generalized(*request));
    call.rank.freeRequest(int(handle));
    return result;
  }
  call.world().wakeWaiter(call.rank.worldRank);
  return abi::kSuccess;
}

}  // extern "C"
