//===- GuestExecution.h - per-thread trap and exit unwinding ---------------===//
//
// wasm2c code leaves the guest in three ways besides returning: wasm_rt_trap
// (explicit traps), a fault in a guard page or on the native stack's guard
// (memory out of bounds, call-stack exhaustion), and proc_exit from a host
// function. All three jump back to the innermost GuestExecution on the
// current thread. Each thread keeps its own jump buffer and its own
// alternate signal stack, so granules on many threads trap independently.
//
// A fourth way is the time limit (TimeLimit.h): once it has passed, every
// thread that ever prepared for guest code is signalled, and the signal
// unwinds a thread only when it interrupted the module's own code. Host code
// may hold locks, so a thread interrupted there is left alone and signalled
// again later. Only the first thread caught traps; its report ends the
// process.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <string>

namespace synergy::snapshot {
class LinearMemory;
}

namespace synergy::granule {

struct SetjmpFrame;  // SetjmpLongjmp.cpp

struct GuestExecution {
  enum Outcome : int { Running = 0, Exited = 1, Trapped = 2 };

  sigjmp_buf jumpBuffer;
  const snapshot::LinearMemory* memory = nullptr;  // faults here are OOB
  int exitCode = 0;
  const char* trapReason = nullptr;
  uintptr_t trapPc = 0;  // code address that trapped, for symbolization
  // The module's machine code: only a thread interrupted in here may be
  // unwound by the time-limit signal.
  uintptr_t codeBegin = 0;
  uintptr_t codeEnd = 0;
  GuestExecution* outer = nullptr;
  // The innermost env.invoke_* call a guest longjmp may unwind to; they
  // belong to this execution and are dropped with it when it traps.
  SetjmpFrame* setjmpFrames = nullptr;
};

// Installs the process-wide fault handlers (once) and this thread's
// alternate signal stack (once per thread), and finds the thread's native
// stack unless it runs on one set by useNativeStackRange.
void prepareThreadForGuestCode();

// A fault this far below the native stack guest code runs on is taken for
// the stack's exhaustion, not for a crash of the host.
inline constexpr size_t kStackGuardBytes = size_t(1) << 20;

// The native stack a thread runs guest code on: [low, high).
struct NativeStackRange {
  uintptr_t low = 0;
  uintptr_t high = 0;
};
// Makes `range` the calling thread's stack, for telling stack exhaustion
// from other faults (HostStack.h switches stacks); returns the previous one
// to restore when the thread leaves it.
NativeStackRange useNativeStackRange(NativeStackRange range);

// Makes `execution` the current thread's innermost one; returns the previous.
GuestExecution* enterGuestExecution(GuestExecution* execution);
void leaveGuestExecution(GuestExecution* previous);
GuestExecution* currentGuestExecution();

[[noreturn]] void unwindGuestTrap(const char* reason, uintptr_t pc);

// The reason a guest unwound by the time limit reports.
inline constexpr const char* kTimeLimitTrapReason = "time limit exceeded";

// From now on a thread interrupted in guest code by interruptGuestThreads
// traps with kTimeLimitTrapReason. Installs the signal handler on first use.
void expireGuestTimeLimit();
// Signals every thread that prepared for guest code.
void interruptGuestThreads();
// Whether a thread has taken the time-limit trap (its report is under way).
bool timeLimitTrapTaken();
[[noreturn]] void unwindGuestExit(int code);

}  // namespace synergy::granule
