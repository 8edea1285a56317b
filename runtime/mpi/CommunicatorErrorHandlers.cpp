//===- CommunicatorErrorHandlers.cpp - user error handlers on communicators ===//
//
// MPI_Comm_create_errhandler, MPI_Comm_set/get_errhandler,
// MPI_Comm_call_errhandler and MPI-1's MPI_Errhandler_create/set/get. A
// communicator starts with its parent's handler (MPI_COMM_WORLD and
// MPI_COMM_SELF with MPI_ERRORS_ARE_FATAL); every call that fails on it
// raises through HostCall::fail, which calls a user handler with pointers
// to the communicator's handle and to the error code (ErrorHandlerCalls.h)
// and then returns the code, as MPI_ERRORS_RETURN would. A window's
// handler (WindowErrorHandlers.cpp) cannot be set on a communicator: the
// two kinds of handler take different handles.
//
//===----------------------------------------------------------------------===//
#include "mpi/CommunicatorErrorHandlers.h"

#include "mpi/ErrorHandlerCalls.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

bool isCommErrorHandler(HostCall& call, int handler) {
  return handler == abi::kErrorsAreFatal || handler == abi::kErrorsReturn ||
         call.rank.commErrorHandlers.count(handler);
}

u32 createErrorHandler(HostCall& call, u32 function, u32 errhandlerOut) {
  if (!call.bytes(errhandlerOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "errhandler pointer outside linear memory");
  checkErrorHandlerFunction(call, function);
  int handle = call.rank.nextErrorHandler++;
  call.rank.commErrorHandlers[handle] = function;
  call.store<int32_t>(errhandlerOut, handle);
  return abi::kSuccess;
}

u32 setErrorHandler(HostCall& call, u32 comm, u32 errhandler) {
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!isCommErrorHandler(call, int(errhandler)))
    return call.fail(int(comm), abi::kErrArg,
                     "invalid communicator error handler " + std::to_string(int(errhandler)));
  handle->errhandler = int(errhandler);
  return abi::kSuccess;
}

u32 getErrorHandler(HostCall& call, u32 comm, u32 errhandlerOut) {
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  if (!call.store<int32_t>(errhandlerOut, handle->errhandler))
    return call.fail(int(comm), abi::kErrArg, "errhandler pointer outside linear memory");
  return abi::kSuccess;
}

}  // namespace

namespace synergy::mpi {

void callUserCommErrorHandler(HostCall& call, int comm, int errhandler, int errorCode) {
  auto found = call.rank.commErrorHandlers.find(errhandler);
  if (found != call.rank.commErrorHandlers.end())
    callGuestErrorHandler(call, found->second, comm, errorCode);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Comm_create_errhandler(void* instance, u32 function, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Comm_create_errhandler");
  return createErrorHandler(call, function, errhandlerOut);
}

u32 Z_envZ_MPI_Errhandler_create(void* instance, u32 function, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Errhandler_create");
  return createErrorHandler(call, function, errhandlerOut);
}

u32 Z_envZ_MPI_Comm_set_errhandler(void* instance, u32 comm, u32 errhandler) {
  HostCall call(instance, "MPI_Comm_set_errhandler");
  return setErrorHandler(call, comm, errhandler);
}

u32 Z_envZ_MPI_Errhandler_set(void* instance, u32 comm, u32 errhandler) {
  HostCall call(instance, "MPI_Errhandler_set");
  return setErrorHandler(call, comm, errhandler);
}

u32 Z_envZ_MPI_Comm_get_errhandler(void* instance, u32 comm, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Comm_get_errhandler");
  return getErrorHandler(call, comm, errhandlerOut);
}

u32 Z_envZ_MPI_Errhandler_get(void* instance, u32 comm, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Errhandler_get");
  return getErrorHandler(call, comm, errhandlerOut);
}

// Under MPI_ERRORS_RETURN the handler does nothing and the call succeeds,
// a user handler is called and the call succeeds, and under
// MPI_ERRORS_ARE_FATAL the job ends, naming the error code.
u32 Z_envZ_MPI_Comm_call_errhandler(void* instance, u32 comm, u32 errorCode) {
  HostCall call(instance, "MPI_Comm_call_errhandler");
  CommHandle* handle = call.rank.comm(int(comm));
  if (!handle) return call.fail(int(comm), abi::kErrComm, "invalid communicator");
  int code = int(errorCode);
  if (handle->errhandler == abi::kErrorsReturn) return abi::kSuccess;
  if (handle->errhandler != abi::kErrorsAreFatal) {
    callUserCommErrorHandler(call, int(comm), handle->errhandler, code);
    return abi::kSuccess;
  }
  return call.fail(int(comm), code > 0 && code <= abi::kErrLastCode ? code : abi::kErrOther,
                   "the program raised error code " + std::to_string(code) +
                       " on the communicator");
}

}  // extern "C"
