//===- HostStack.cpp - a large native stack for guest code, on this thread ===//
#include "granule/HostStack.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>

#include "granule/GuestExecution.h"

namespace synergy::granule {
namespace {

struct StackCall {
  void (*body)(void*);
  void* context;
};

// makecontext passes only int arguments; the call is handed over here, on
// the thread that switches, and read before anything else runs on it.
thread_local StackCall* tPendingCall = nullptr;

void enterFreshStack() {
  StackCall* call = tPendingCall;
  tPendingCall = nullptr;
  call->body(call->context);
  // Returning resumes the context in uc_link: the caller's.
}

}  // namespace

bool runOnFreshHostStack(size_t stackBytes, void (*body)(void*), void* context) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  stackBytes = (stackBytes + page - 1) / page * page;
  const size_t mappedBytes = kStackGuardBytes + stackBytes;
  void* mapped = mmap(nullptr, mappedBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (mapped == MAP_FAILED) return false;
  auto* low = static_cast<char*>(mapped) + kStackGuardBytes;
  // The guard: an overflowing frame faults here. Huge pages would make the
  // first touch of the stack's top zero 2 MiB where a few KiB are used.
  if (mprotect(mapped, kStackGuardBytes, PROT_NONE) != 0) {
    munmap(mapped, mappedBytes);
    return false;
  }
  madvise(low, stackBytes, MADV_NOHUGEPAGE);

  ucontext_t caller, callee;
  getcontext(&callee);
  callee.uc_stack.ss_sp = low;
  callee.uc_stack.ss_size = stackBytes;
  callee.uc_link = &caller;
  makecontext(&callee, enterFreshStack, 0);
  StackCall call{body, context};
  tPendingCall = &call;
  NativeStackRange previous = useNativeStackRange(
      {reinterpret_cast<uintptr_t>(low), reinterpret_cast<uintptr_t>(low) + stackBytes});
  swapcontext(&caller, &callee);
  useNativeStackRange(previous);
  munmap(mapped, mappedBytes);
  return true;
}

}  // namespace synergy::granule
