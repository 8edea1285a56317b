//===- WindowErrorHandlers.cpp - a window's error handler -----------------===//
//
// MPI_Win_create_errhandler, MPI_Win_set/get_errhandler and
// MPI_Win_call_errhandler. A window starts with MPI_ERRORS_ARE_FATAL, as MPI
// says, and every one-sided call raises its errors through its handler
// (failOnWindow): MPI_ERRORS_RETURN returns the error, MPI_ERRORS_ARE_FATAL
// ends the job, and a user handler is called with pointers to the window's
// handle and to the error code, after which the call returns the code.
//
// A user handler is called as ErrorHandlerCalls.h describes.
//
//===----------------------------------------------------------------------===//
#include "mpi/ErrorHandlerCalls.h"
#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

bool isPredefined(int handler) {
  return handler == abi::kErrorsAreFatal || handler == abi::kErrorsReturn;
}

}  // namespace

namespace synergy::mpi {

void callUserWindowErrorHandler(HostCall& call, const Window& window, int errorCode) {
  auto found = call.rank.windowErrorHandlers.find(window.errhandler);
  if (found != call.rank.windowErrorHandlers.end())
    callGuestErrorHandler(call, found->second, window.handle, errorCode);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Win_create_errhandler(void* instance, u32 function, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Win_create_errhandler");
  if (!call.bytes(errhandlerOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "errhandler pointer outside linear memory");
  checkErrorHandlerFunction(call, function);
  int handle = call.rank.nextErrorHandler++;
  call.rank.windowErrorHandlers[handle] = function;
  call.store<int32_t>(errhandlerOut, handle);
  return abi::kSuccess;
}

u32 Z_envZ_MPI_Win_set_errhandler(void* instance, u32 win, u32 errhandler) {
  HostCall call(instance, "MPI_Win_set_errhandler");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  int handler = int(errhandler);
  if (!isPredefined(handler) && !call.rank.windowErrorHandlers.count(handler))
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

// Under MPI_ERRORS_RETURN the handler does nothing and the call succeeds,
// a user handler is called and the call succeeds, and under
// MPI_ERRORS_ARE_FATAL the job ends, naming the error code.
u32 Z_envZ_MPI_Win_call_errhandler(void* instance, u32 win, u32 errorCode) {
  HostCall call(instance, "MPI_Win_call_errhandler");
  int error;
  auto window = windowOrFail(call, int(win), error);
  if (!window) return error;
  if (window->errhandler == abi::kErrorsReturn) return abi::kSuccess;
  int code = int(errorCode);
  if (window->errhandler != abi::kErrorsAreFatal) {
    callUserWindowErrorHandler(call, *window, code);
    return abi::kSuccess;
  }
  return failOnWindow(call, *window, code > 0 && code <= abi::kErrLastCode ? code : abi::kErrOther,
                      "the program raised error code " + std::to_string(code) + " on the window");
}

}  // extern "C"
