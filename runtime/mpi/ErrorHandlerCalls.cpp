//===- ErrorHandlerCalls.cpp - calling a guest's MPI error handler --------===//
//
// A user error handler is called through the module's function table
// after its wasm type has been checked against the ones an error-handler
// function compiles to, so a handler made from a wrong pointer traps as a
// bad indirect call would. The declared type, void (HANDLE*, int*, ...),
// compiles to two pointers and the pointer to the variadic arguments; but
// C programs (MPICH's test suite among them) commonly define the handler
// as void (HANDLE*, int*) and cast it, which a native ABI calls without
// harm. clang gives such a function its own two-pointer wasm type, so that
// type is accepted too and called with the two pointers alone. Its
// arguments live in a frame pushed on the guest's own stack for the call,
// so a handler that raises another error gets a frame of its own.
//
//===----------------------------------------------------------------------===//
#include "mpi/ErrorHandlerCalls.h"

#include <wasm-rt.h>

using namespace synergy::mpi;

namespace {

// (HANDLE*, int*, va_list) -> void, as clang lowers a variadic C function
// for wasm32.
uint32_t variadicHandlerType() {
  static const uint32_t type =
      wasm_rt_register_func_type(3, 0, WASM_RT_I32, WASM_RT_I32, WASM_RT_I32);
  return type;
}

// (HANDLE*, int*) -> void: a handler defined without the ellipsis.
uint32_t twoPointerHandlerType() {
  static const uint32_t type = wasm_rt_register_func_type(2, 0, WASM_RT_I32, WASM_RT_I32);
  return type;
}

const wasm_rt_funcref_t& handlerEntry(HostCall& call, uint32_t function) {
  wasm_rt_funcref_table_t* table = call.granule.module().table(call.granule.instance());
  if (!table || function >= table->size || !table->data[function].func ||
      (table->data[function].func_type != variadicHandlerType() &&
       table->data[function].func_type != twoPointerHandlerType()))
    wasm_rt_trap(WASM_RT_TRAP_CALL_INDIRECT);
  return table->data[function];
}

}  // namespace

namespace synergy::mpi {

void checkErrorHandlerFunction(HostCall& call, uint32_t function) { handlerEntry(call, function); }

void callGuestErrorHandler(HostCall& call, uint32_t function, int32_t objectHandle,
                           int errorCode) {
  const wasm_rt_funcref_t& entry = handlerEntry(call, function);
  // The frame: the handle, the error code and an empty variadic argument
  // list, 16-byte aligned below the guest's stack pointer.
  uint32_t stackPointer = 0;
  if (!call.granule.readGlobal32("__stack_pointer", stackPointer) || stackPointer < 16)
    wasm_rt_trap(WASM_RT_TRAP_OOB);
  uint32_t frame = (stackPointer - 16) & ~15u;
  if (!call.store<int32_t>(frame, objectHandle) || !call.store<int32_t>(frame + 4, errorCode) ||
      !call.store<int32_t>(frame + 8, 0))
    wasm_rt_trap(WASM_RT_TRAP_OOB);
  call.granule.writeGlobal32("__stack_pointer", frame);
  if (entry.func_type == variadicHandlerType()) {
    using VariadicHandlerFn = void (*)(void*, uint32_t, uint32_t, uint32_t);
    reinterpret_cast<VariadicHandlerFn>(entry.func)(entry.module_instance, frame, frame + 4,
                                                    frame + 8);
  } else {
    using TwoPointerHandlerFn = void (*)(void*, uint32_t, uint32_t);
    reinterpret_cast<TwoPointerHandlerFn>(entry.func)(entry.module_instance, frame, frame + 4);
  }
  call.granule.writeGlobal32("__stack_pointer", stackPointer);
}

}  // namespace synergy::mpi
