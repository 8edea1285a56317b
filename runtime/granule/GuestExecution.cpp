//===- GuestExecution.cpp - per-thread trap and exit unwinding -------------===//
#include "granule/GuestExecution.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "snapshot/DirtyTracker.h"
#include "snapshot/LinearMemory.h"

namespace synergy::granule {
namespace {

constexpr size_t kAltStackBytes = 256 * 1024;
// Faults this far below the thread's stack are treated as stack exhaustion.
constexpr uintptr_t kStackGuardSlack = 1 << 20;

thread_local GuestExecution* tCurrent = nullptr;
thread_local uintptr_t tStackLow = 0;
thread_local uintptr_t tStackHigh = 0;
thread_local bool tPrepared = false;

struct sigaction gPreviousSegv, gPreviousBus;

void restoreAndReturn(int signal) {
  // Not a guest fault: let the default action produce a normal crash report.
  sigaction(signal, signal == SIGSEGV ? &gPreviousSegv : &gPreviousBus, nullptr);
}

void onFault(int signal, siginfo_t* info, void* context) {
  // A first write to a page that --dsm tracks is not a fault of the guest.
  if (signal == SIGSEGV && snapshot::handleDirtyTrackingFault(info->si_addr)) return;
  GuestExecution* execution = tCurrent;
  if (!execution) return restoreAndReturn(signal);
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const char* reason = nullptr;
  if (execution->memory && execution->memory->reservationContains(info->si_addr))
    reason = "out of bounds memory access";
  else if (tStackLow && address + kStackGuardSlack >= tStackLow && address < tStackHigh)
    reason = "call stack exhausted";
  if (!reason) return restoreAndReturn(signal);
  execution->trapReason = reason;
  execution->trapPc = uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  siglongjmp(execution->jumpBuffer, GuestExecution::Trapped);
}

void installFaultHandlers() {
  struct sigaction action = {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &gPreviousSegv);
  sigaction(SIGBUS, &action, &gPreviousBus);
}

}  // namespace

void prepareThreadForGuestCode() {
  static std::once_flag handlersInstalled;
  std::call_once(handlersInstalled, installFaultHandlers);
  if (tPrepared) return;
  tPrepared = true;
  void* altStack = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (altStack != MAP_FAILED) {
    stack_t ss = {};
    ss.ss_sp = altStack;
    ss.ss_size = kAltStackBytes;
    sigaltstack(&ss, nullptr);
  }
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &low, &size);
    tStackLow = reinterpret_cast<uintptr_t>(low);
    tStackHigh = tStackLow + size;
    pthread_attr_destroy(&attr);
  }
}

GuestExecution* enterGuestExecution(GuestExecution* execution) {
  execution->outer = tCurrent;
  tCurrent = execution;
  return execution->outer;
}

void leaveGuestExecution(GuestExecution* previous) { tCurrent = previous; }

GuestExecution* currentGuestExecution() { return tCurrent; }

void unwindGuestTrap(const char* reason, uintptr_t pc) {
  GuestExecution* execution = tCurrent;
  if (!execution) {
    std::fprintf(stderr, "synergy: internal error: trap '%s' outside guest code\n", reason);
    std::abort();
  }
  execution->trapReason = reason;
  execution->trapPc = pc;
  siglongjmp(execution->jumpBuffer, GuestExecution::Trapped);
}

void unwindGuestExit(int code) {
  GuestExecution* execution = tCurrent;
  if (!execution) {
    std::fprintf(stderr, "synergy: internal error: exit outside guest code\n");
    std::abort();
  }
  execution->exitCode = code;
  siglongjmp(execution->jumpBuffer, GuestExecution::Exited);
}

}  // namespace synergy::granule
