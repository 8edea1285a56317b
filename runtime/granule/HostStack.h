//===- HostStack.h - a large native stack for guest code, on this thread --===//
//
// wasm2c code makes one native call per guest call, so the guest's call
// depth is bounded by the native stack it runs on, and running off that
// stack must end in a "call stack exhausted" trap (GuestExecution.h), not a
// crash of the host. A process's main thread has RLIMIT_STACK (8 MiB by
// default), too little for the deep recursion native programs get away with.
//
// A granule used to get a big stack from a thread of its own, which cost
// every run a clone, a malloc arena for the new thread and two scheduler
// wake-ups (the thread's start, then the waiting thread's) that a loaded
// host turns into milliseconds of wall time. runOnFreshHostStack maps the
// stack instead and switches the calling thread onto it for one call
// (swapcontext), below a guard region as large as the distance GuestExecution
// accepts as stack exhaustion, so no other mapping can sit where an
// overflowing frame lands.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <type_traits>

namespace synergy::granule {

// Calls body(context) on the calling thread, switched onto a freshly mapped
// native stack of `stackBytes`, and unmaps it afterwards. Returns false,
// without calling body, when the stack cannot be mapped. body must not throw.
bool runOnFreshHostStack(size_t stackBytes, void (*body)(void*), void* context);

template <typename Body>
bool runOnFreshHostStack(size_t stackBytes, Body&& body) {
  return runOnFreshHostStack(
      stackBytes,
      [](void* context) { (*static_cast<std::remove_reference_t<Body>*>(context))(); }, &body);
}

}  // namespace synergy::granule
