//===- WindowErrorHandlers.cpp - a window's error handler -----------------===//
//
// MPI_Win_create_errhandler, MPI_Win_set/get_errhandler and
// MPI_Win_call_errhandler. A window starts with MPI_ERRORS_ARE_FATAL, as MPI
// says, and every one-sided call raises its errors through its handler
// (failOnWindow): MPI_ERRORS_RETURN returns the error, MPI_ERRORS_ARE_FATAL
// ends the job, and a user handler is called with pointers to the window's
// handle and to the error code, after which the call returns the code.
//
// A user handler is a guest function, called through the module's function
// table after its wasm type has been checked against the one
// MPI_Win_errhandler_function compiles to (two pointers, then the pointer
// to the variadic arguments), so a handler made from a wrong pointer traps
// as a bad indirect call would. Its two arguments live in a frame pushed on
// the guest's own stack for the call, so a handler that raises another
// error on a window gets a frame of its own.
//
//===----------------------------------------------------------------------===//
#include <wasm-rt.h>

#include "mpi/Window.h"

using namespace synergy::mpi;
using u32 = uint32_t;

namespace {

// (MPI_Win*, int*, va_list) -> void, as clang lowers a variadic C
// function for wasm32.
uint32_t handlerType() {
  static const uint32_t type =
      wasm_rt_register_func_type(3, 0, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32);
  return type;
}

// The table entry at `function` when it is an error handler; traps
// otherwise, like a bad call_indirect.
const wasm_rt_funcref_t& handlerEntry(HostCall& call, u32 function) {
  wasm_rt_funcref_table_t* table = call.granule.module().table(call.granule.instance());
  if (!table || function >= table->size || !table->data[function].func ||
      table->data[function].func_type != handlerType())
    wasm_rt_trap(WASM_RT_TRAP_CALL_INDIRECT);
  return table->data[function];
}

bool isPredefined(int handler) {
  return handler == abi::kErrorsAreFatal || handler == abi::kErrorsReturn;
}

}  // namespace

namespace synergy::mpi {

void callUserWindowErrorHandler(HostCall& call, const Window& window, int errorCode) {
  auto found = call.rank.windowErrorHandlers.find(window.errhandler);
  if (found == call.rank.windowErrorHandlers.end()) return;
  const wasm_rt_funcref_t& entry = handlerEntry(call, found->second);
  // The frame: the window handle, the error code and an empty variadic
  // argument list, 16-byte aligned below the guest's stack pointer.
  uint32_t stackPointer = 0;
  if (!call.granule.readGlobal32("__stack_pointer", stackPointer) || stackPointer < 16)
    wasm_rt_trap(WASM_RT_TRAP_OOB);
  uint32_t frame = (stackPointer - 16) & ~15u;
  if (!call.store<int32_t>(frame, window.handle) || !call.store<int32_t>(frame + 4, errorCode) ||
      !call.store<int32_t>(frame + 8, 0))
    wasm_rt_trap(WASM_RT_TRAP_OOB);
  call.granule.writeGlobal32("__stack_pointer", frame);
  using HandlerFn = void (*)(void*, u32, u32, u32);
  reinterpret_cast<HandlerFn>(entry.func)(entry.module_instance, frame, frame + 4, frame + 8);
  call.granule.writeGlobal32("__stack_pointer", stackPointer);
}

}  // namespace synergy::mpi

extern "C" {

u32 Z_envZ_MPI_Win_create_errhandler(void* instance, u32 function, u32 errhandlerOut) {
  HostCall call(instance, "MPI_Win_create_errhandler");
  if (!call.bytes(errhandlerOut, 4))
    return call.fail(abi::kCommWorld, abi::kErrArg, "errhandler pointer outside linear memory");
  handlerEntry(call, function);
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
