//===- SetjmpLongjmp.cpp - host half of setjmp/longjmp ---------------------===//
//
// This file implements the two host functions behind guest setjmp/longjmp
// (see include/setjmp.h and guestlib/SetjmpLongjmp.c). LLVM's lowering turns
// every call made by a function that calls setjmp into a call to an import
// env.invoke_<signature>(function, arguments...). The glue (GlueWriter.cpp)
// defines each of those imports as a call to synergy_setjmp_invoke with a
// small typed trampoline, and synergy_setjmp_invoke makes the indirect call
// under a host jump target. A guest longjmp stores its target in guest
// memory and calls env.synergy_longjmp_unwind, which jumps to the innermost
// such target; the lowered code after the invoke then either finds its own
// setjmp there or passes the longjmp on outwards.
//
// C++ exceptions (guestlib/CxxExceptions.cpp) travel the same way: LLVM's
// exception lowering (-enable-emscripten-cxx-exceptions) also makes calls
// that may throw into invokes, and a throw sets __THREW__ to 1 and calls
// env.synergy_exception_unwind, which returns instead when no invoke is
// left, so that the guest calls std::terminate with its message.
//
// The jump target is the compiler's __builtin_setjmp, not sigsetjmp: it
// stores the frame and stack pointers and the resume address, and the
// compiler spills whatever else is live around it, where sigsetjmp saves
// every callee-saved register through libc. A loop iteration of
// bench/setjmp/run-exceptions.py's "calls in try" row took 11.7 ns instead
// of 14.7. A host C++ exception thrown through the wasm frames to a try
// block in the invoke saved another 0.5 ns a call but took 1.8 us per
// unwind instead of 0.04 (native C++: 0.75), and in Lua 5.4 every error and
// coroutine yield is an unwind.
//
// Only wasm frames and invoke trampolines lie between a target and the
// unwind, so no host state is skipped, unless guest code that a host
// function called back (an MPI user op or error handler, an OpenMP combiner:
// callTableFunction runs them in the caller's GuestExecution) throws or
// longjmps out of the callback, which MPI and OpenMP leave undefined. The
// jump restores what the skipped guest frames had changed outside
// memory: the stack pointer global. wasm2c keeps no other per-call state in
// guard-page mode, and with a call-depth counter its value is restored too.
//
//===----------------------------------------------------------------------===//
#include <cstdint>

#include "granule/Granule.h"
#include "granule/GuestExecution.h"
#include "granule/Module.h"
#include "wasm-rt.h"

namespace synergy::granule {

struct SetjmpFrame {
  // __builtin_setjmp's buffer: five words, on every target.
  void* target[5];
  SetjmpFrame* outer = nullptr;
  uint32_t* stackPointer = nullptr;  // the global, in the instance
  uint32_t savedStackPointer = 0;
#if WASM_RT_USE_STACK_DEPTH_COUNT
  uint32_t callDepth = 0;
#endif
};

// Where this granule's __stack_pointer global and function table live in
// its instance, found once: an invoke is made by every call site of a
// function that calls setjmp or has a landing pad, so it must not look the
// global up by name or ask the glue for the table each time. Offsets, not
// pointers, so that they hold for a fresh instance of the same module.
class InvokeTargets : public HostExtension {
 public:
  // Out of line: inlined, it made Granule::extension<InvokeTargets>() too
  // large to inline into every invoke, whose call then cost about 1.4 ns
  // of the "calls in try" row's 13-14 (bench/setjmp, at load 40).
  [[gnu::noinline]] explicit InvokeTargets(Granule& granule);
  // The global's storage in `granule`'s instance, or null if it has none.
  uint32_t* stackPointer(Granule& granule) const {
    if (stackPointerOffset_ == kNone) return nullptr;
    return reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(granule.instance()) +
                                       stackPointerOffset_);
  }
  // The instance's function table, or null if it defines none.
  wasm_rt_funcref_table_t* table(Granule& granule) const {
    if (tableOffset_ == kNone) return nullptr;
    return reinterpret_cast<wasm_rt_funcref_table_t*>(static_cast<uint8_t*>(granule.instance()) +
                                                      tableOffset_);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t stackPointerOffset_ = kNone;
  uint32_t tableOffset_ = kNone;
};

InvokeTargets::InvokeTargets(Granule& granule) {
  const Module& module = granule.module();
  const GlobalSlot* slot = module.global("__stack_pointer");
  if (slot && slot->size == sizeof(uint32_t)) stackPointerOffset_ = slot->offset;
  auto* instance = static_cast<uint8_t*>(granule.instance());
  auto* table = reinterpret_cast<uint8_t*>(module.table(instance));
  if (table >= instance &&
      table + sizeof(wasm_rt_funcref_table_t) <= instance + module.instanceSize())
    tableOffset_ = static_cast<uint32_t>(table - instance);
}

}  // namespace synergy::granule

using synergy::granule::currentGuestExecution;
using synergy::granule::InvokeTargets;
using synergy::granule::GuestExecution;
using synergy::granule::Granule;
using synergy::granule::SetjmpFrame;

extern "C" {

#if WASM_RT_USE_STACK_DEPTH_COUNT
extern uint32_t wasm_rt_call_stack_depth;
#endif

// Calls table entry `function`, which must have wasm type `type`, through
// `call`; returns 1 if a guest longjmp unwound it, 0 if it returned.
int synergy_setjmp_invoke(void* host, uint32_t type, uint32_t function,
                          void (*call)(void* arguments, const wasm_rt_funcref_t* callee),
                          void* arguments) {
  Granule& granule = Granule::fromHost(host);
  const InvokeTargets& targets = granule.extension<InvokeTargets>();
  wasm_rt_funcref_table_t* table = targets.table(granule);
  if (!table || function >= table->size || !table->data[function].func ||
      table->data[function].func_type != type)
    wasm_rt_trap(WASM_RT_TRAP_CALL_INDIRECT);
  GuestExecution* execution = currentGuestExecution();
  if (!execution) granule.trap("invoke outside guest execution");

  SetjmpFrame frame;
  frame.outer = execution->setjmpFrames;
  frame.stackPointer = targets.stackPointer(granule);
  if (frame.stackPointer) frame.savedStackPointer = *frame.stackPointer;
#if WASM_RT_USE_STACK_DEPTH_COUNT
  frame.callDepth = wasm_rt_call_stack_depth;
#endif
  if (__builtin_setjmp(frame.target) != 0) {
    // synergy_longjmp_unwind already popped this frame.
    if (frame.stackPointer) *frame.stackPointer = frame.savedStackPointer;
#if WASM_RT_USE_STACK_DEPTH_COUNT
    wasm_rt_call_stack_depth = frame.callDepth;
#endif
    return 1;
  }
  execution->setjmpFrames = &frame;
  call(arguments, &table->data[function]);
  execution->setjmpFrames = frame.outer;
  return 0;
}

// Jumps to the innermost invoke of the running guest execution, popping
// it; returns if there is none.
static void jumpToInnermostInvoke() {
  GuestExecution* execution = currentGuestExecution();
  SetjmpFrame* frame = execution ? execution->setjmpFrames : nullptr;
  if (!frame) return;
  execution->setjmpFrames = frame->outer;
  __builtin_longjmp(frame->target, 1);
}

// env.synergy_longjmp_unwind: the guest has stored a longjmp's target and
// value; jump to the innermost invoke. With none left, the target's setjmp
// belongs to a function that has returned (or was never called through an
// invoke), which C leaves undefined; the granule traps.
void Z_envZ_synergy_longjmp_unwind(void* host) {
  jumpToInnermostInvoke();
  Granule::fromHost(host).trap("longjmp to a jmp_buf whose setjmp is no longer active");
}

// env.synergy_exception_unwind: the guest has recorded a thrown C++
// exception; jump to the innermost invoke. With none left no handler can
// catch it, and the guest calls std::terminate once this returns.
void Z_envZ_synergy_exception_unwind(void*) { jumpToInnermostInvoke(); }

}  // extern "C"
